"""The one way the commands reach the server: a base URL (`--url`, else SKILLMEM_HOST and
SKILLMEM_PORT) and a bearer token (`--token`, else SKILLMEM_TOKEN), over HTTP with httpx.
Every failure to reach it, and every error it answers, becomes a one-line `Failure`."""

from __future__ import annotations

import json
from typing import Any

import httpx

from gateway.cli.common import (
    REFUSED,
    UNREACHABLE,
    USAGE_ERROR,
    Failure,
    default_url,
    need_token,
)

TIMEOUT_SECONDS = 120.0


class Client:
    def __init__(self, url: str | None, token: str | None) -> None:
        self.url = (url or default_url()).rstrip("/")
        self.token = need_token(token)

    def post(self, path: str, body: bytes, content_type: str, limit: int) -> tuple[int, bytes]:
        """POST ``body`` to ``path``; the status and at most ``limit`` bytes of the answer."""
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": content_type}
        try:
            with (
                httpx.Client(timeout=TIMEOUT_SECONDS) as http,
                http.stream("POST", self.url + path, content=body, headers=headers) as answer,
            ):
                data = b""
                for chunk in answer.iter_bytes():
                    data += chunk
                    if len(data) > limit:
                        raise Failure(f"the answer is larger than {limit} bytes", REFUSED)
                return answer.status_code, data
        except httpx.InvalidURL as error:
            raise Failure(f"--url {self.url} is not a URL ({error})", USAGE_ERROR) from None
        except httpx.TransportError as error:
            raise Failure(
                f"cannot reach the server at {self.url} ({type(error).__name__}): is "
                "`skillmem serve` running? (--url, or SKILLMEM_HOST and SKILLMEM_PORT)",
                UNREACHABLE,
            ) from None

    def graphql(self, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        """The data of a GraphQL operation; its first error, with its code, as a Failure."""
        body = json.dumps({"query": query, "variables": variables or {}}).encode()
        status, data = self.post("/graphql", body, "application/json", 50_000_000)
        answer = decode(status, data)
        errors = answer.get("errors") or []
        if errors or status != 200:
            raise graphql_failure(status, errors)
        result: dict[str, Any] = answer.get("data") or {}
        return result


def decode(status: int, data: bytes) -> dict[str, Any]:
    """A JSON answer as a dict; anything else (a proxy's page) as a one-line failure."""
    try:
        answer = json.loads(data or b"{}")
    except ValueError:
        raise Failure(
            f"the server answered {status} with no JSON: is --url right?", REFUSED
        ) from None
    if not isinstance(answer, dict):
        raise Failure(f"the server answered {status} with unexpected JSON", REFUSED)
    return answer


def graphql_failure(status: int, errors: list[Any]) -> Failure:
    first = errors[0] if errors and isinstance(errors[0], dict) else {}
    extensions = first.get("extensions") or {}
    code = extensions.get("code") or f"HTTP {status}"
    details = [
        f"{p.get('field') or p.get('path') or '-'}: {p.get('message')}"
        for p in extensions.get("problems") or []
        if isinstance(p, dict)
    ]
    message = first.get("message") or "the request was refused"
    if code == "UNAUTHENTICATED":
        message += " (check --token or SKILLMEM_TOKEN)"
    return Failure(f"{code}: {message}", REFUSED, details)
