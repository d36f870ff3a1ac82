"""The catalogue (DESIGN §4, issue 15): the skills the product ships (``shipped``, the folders
under ``skills/``), and the outside sources: the community directory, repositories, and the
Agent Skills discovery index a site publishes. Pure parsing and rules in ``settings``,
``refs`` and ``answers``; the HTTP client (httpx) in ``transport``, ``directory``, ``sources``
and ``wellknown``, as the Dreamer's chat reader reaches its model.

The contract a fake server in tests and a real deployment agree on:

- directory (``directory_base_url``): ``GET {base}/api/search?q=TEXT&limit=N`` answers
  ``{"query": str, "searchType": str, "skills": [{"id": str, "skillId": str, "name": str,
  "installs": int >= 0, "source": "owner/repo"}]}`` (other fields ignored);
- source (``source_base_url``, GitHub's REST API shape): ``GET {base}/repos/{owner}/{repo}/
  commits/{ref}`` answers ``{"sha": "<40 hex>"}`` (404: the repository or ref does not exist),
  then ``GET {base}/repos/{owner}/{repo}/tarball/{sha}`` answers that commit's tree as a tar.gz
  (or zip) whose one top-level folder holds the repository's files (redirects followed);
- a site (any base URL): ``GET {site}/.well-known/agent-skills/index.json`` (the Agent Skills
  discovery index, schema 0.2.0: ``{"$schema": ..., "skills": [{"name", "description", "type":
  "skill-md" | "archive", "url", "digest": "sha256:<hex>"}]}``), or, when that is 404, the
  older ``{site}/.well-known/skills/index.json`` (``{"skills": [{"name", "description",
  "files": [paths]}]}``, each file at ``{site}/.well-known/skills/{name}/{path}``).

Every call: a timeout per attempt, retries with backoff (GETs only, all of them idempotent) on a
lost connection, a timeout, 429 and 5xx, a size cap on every body (refused past the cap without
reading the rest), every archive read by ``resolvers.skills.archive.read`` and every folder
checked by ``resolvers.skills.folder``. Nothing is written: a caller gets checked folders, or a
``CatalogError`` with every problem.
"""
