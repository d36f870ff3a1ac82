"""A GraphQL query's answer over GET, cacheable by its own client only.

Every answer is one person's (their token, their workspace, what their rights let them read):
``Cache-Control: private`` keeps it out of shared caches (proxies, CDNs), ``no-cache`` lets
the client keep it but never use it without asking again, since memory changes at any time
and a revoked token must stop reading at once. The ``ETag`` (a hash of the answer's bytes and
media type) makes asking again cheap on the wire: a client sending it back in
``If-None-Match`` gets ``304 Not Modified`` and no body when the answer has not changed (the
query still runs, as the token's rights are checked at every request). ``Vary: Authorization,
Accept`` keeps one token's answer (or one media type's) from being chosen for another.
"""

from __future__ import annotations

import hashlib

from starlette.requests import Request
from starlette.responses import Response

CACHE_CONTROL = "private, no-cache"
VARY = "Authorization, Accept"


def etag_of(media: str, payload: bytes) -> str:
    """A strong validator of exactly these bytes in this media type."""
    digest = hashlib.sha256(media.encode() + b"\n" + payload).hexdigest()
    return f'"{digest[:32]}"'


def matches(if_none_match: str | None, etag: str) -> bool:
    """Whether an If-None-Match header names ``etag`` (weakly compared, as for a GET)."""
    if not if_none_match:
        return False
    tags = [tag.strip() for tag in if_none_match.split(",")]
    return "*" in tags or any(tag.removeprefix("W/") == etag for tag in tags)


def cacheable_reply(request: Request, media: str, payload: bytes) -> Response:
    """The 200 answer to a GET query with its caching headers, or 304 when the client holds
    it already."""
    etag = etag_of(media, payload)
    headers = {"Cache-Control": CACHE_CONTROL, "Vary": VARY, "ETag": etag}
    if matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return Response(payload, status_code=200, media_type=media, headers=headers)
