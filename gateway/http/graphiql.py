"""The GraphiQL page, served with its scripts from this process (no CDN)."""

from __future__ import annotations

GRAPHIQL_HTML = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>skillmem GraphiQL</title>
  <style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
  <link rel="stylesheet" href="/static/graphiql.min.css">
</head>
<body>
  <div id="graphiql">Loading GraphiQL…</div>
  <script src="/static/react.production.min.js"></script>
  <script src="/static/react-dom.production.min.js"></script>
  <script src="/static/graphiql.min.js"></script>
  <script>
    const DEFAULT_QUERY = [
      "{", "  me {", "    kind", "    name", "    person { name email }", "    role { name }",
      "    workspace { name }", "  }", "}", ""].join("\\n");
    const fetcher = GraphiQL.createFetcher({ url: "/graphql" });
    const defaultHeaders = JSON.stringify(
      { Authorization: "Bearer <paste the token printed at start>" }, null, 2);
    ReactDOM.createRoot(document.getElementById("graphiql")).render(
      React.createElement(GraphiQL, {
        fetcher,
        defaultEditorToolsVisibility: "headers",
        headers: localStorage.getItem("graphiql:headers") || defaultHeaders,
        defaultQuery: DEFAULT_QUERY,
        shouldPersistHeaders: true,
      })
    );
  </script>
</body>
</html>
"""
