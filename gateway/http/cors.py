"""CORS (issue 13, item 3): which browser apps on other origins may call the API. Starlette's
rules, run by the edge (gateway/http/edge.py) before the principal check, so a preflight is
answered before authentication (it carries no token) and every answer, a 401 included, carries
the headers a browser needs to read it. The same origins may open the GraphQL WebSocket
(gateway/http/subscriptions.py)."""

from __future__ import annotations

import re

import orjson
from starlette.datastructures import Headers
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response
from starlette.types import ASGIApp

from gateway.settings import Settings
from resolvers.common.errors import Code
from schema.errors import error_body

ALLOWED_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
ALLOWED_HEADERS = ("authorization", "content-type", "accept", "x-request-id")
EXPOSED_HEADERS = ("x-request-id", "www-authenticate")
# How long a browser may keep a preflight's answer.
PREFLIGHT_MAX_AGE_SECONDS = 600


class Cors(CORSMiddleware):
    """Starlette's CORS, whose refused preflight answers with the API's error body."""

    def preflight_response(self, request_headers: Headers) -> Response:
        answer = super().preflight_response(request_headers)
        if answer.status_code < 400:
            return answer
        reason = bytes(answer.body).decode()
        body = error_body(Code.FORBIDDEN, f"CORS preflight refused: {reason}.", plain=True)
        headers = {
            k: v for k, v in answer.headers.items() if k not in ("content-length", "content-type")
        }
        return Response(orjson.dumps(body), 403, headers=headers, media_type="application/json")


def cors_for(settings: Settings, app: ASGIApp) -> Cors:
    """The rules letting in the origins the settings name (none by default); the edge uses
    its preflight answer and its ``send`` (what a simple request's answer carries)."""
    return Cors(
        app,
        allow_origins=settings.cors_origins,
        allow_origin_regex=settings.cors_origin_regex,
        allow_credentials=settings.cors_allow_credentials,
        allow_methods=ALLOWED_METHODS,
        allow_headers=ALLOWED_HEADERS,
        expose_headers=EXPOSED_HEADERS,
        max_age=PREFLIGHT_MAX_AGE_SECONDS,
    )


def origin_allowed(settings: Settings, origin: str) -> bool:
    """Whether a browser app on ``origin`` may call the API (the middleware's own rule)."""
    if "*" in settings.cors_origins or origin in settings.cors_origins:
        return True
    pattern = settings.cors_origin_regex
    return pattern is not None and re.fullmatch(pattern, origin) is not None
