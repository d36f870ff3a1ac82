"""MCP: the server (tools, skills as resources) over streamable HTTP and stdio."""
