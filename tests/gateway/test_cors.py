"""CORS (issue 13, item 3): a preflight from an allowed origin is answered before any token is
asked for; one from another origin is refused; credentials never go with a wildcard origin;
`serve --demo` lets in local development's origins unless others are set."""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest
from pydantic import ValidationError

from gateway.app import create_app
from gateway.http.cors import origin_allowed
from gateway.settings import Settings
from tests.factories import bearer

APP = "http://localhost:5173"


def preflight(origin: str, method: str = "POST") -> dict[str, str]:
    return {
        "origin": origin,
        "access-control-request-method": method,
        "access-control-request-headers": "authorization, content-type",
    }


@pytest.fixture
async def cors_client(api_pool):
    settings = Settings(database_url=None, worker=False, cors_origins=APP)
    transport = httpx.ASGITransport(app=create_app(settings, pool=api_pool))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client


async def test_a_preflight_from_an_allowed_origin_is_answered_before_authentication(
    cors_client,
):
    answer = await cors_client.options("/graphql", headers=preflight(APP))
    assert answer.status_code == 200
    assert answer.headers["access-control-allow-origin"] == APP
    assert "POST" in answer.headers["access-control-allow-methods"]
    allowed = answer.headers["access-control-allow-headers"].lower()
    assert "authorization" in allowed and "content-type" in allowed
    assert "access-control-allow-credentials" not in answer.headers


async def test_a_preflight_from_another_origin_is_refused(cors_client):
    answer = await cors_client.options("/graphql", headers=preflight("https://elsewhere.example"))
    assert answer.status_code == 403
    assert "access-control-allow-origin" not in answer.headers
    assert answer.json()["error"]["code"] == "FORBIDDEN"


async def test_the_allowed_origin_reads_answers_even_a_refusal(cors_client, ws):
    ok = await cors_client.post(
        "/graphql",
        json={"query": "{ me { name } }"},
        headers=bearer(ws.tokens["member"], origin=APP),
    )
    assert ok.status_code == 200
    assert ok.headers["access-control-allow-origin"] == APP
    assert "x-request-id" in ok.headers["access-control-expose-headers"].lower()
    refused = await cors_client.post(
        "/graphql", json={"query": "{ me { name } }"}, headers={"origin": APP}
    )
    assert refused.status_code == 401
    assert refused.headers["access-control-allow-origin"] == APP
    other = await cors_client.post(
        "/graphql",
        json={"query": "{ me { name } }"},
        headers=bearer(ws.tokens["member"], origin="https://elsewhere.example"),
    )
    assert "access-control-allow-origin" not in other.headers


async def test_no_origin_is_let_in_by_default(client):
    answer = await client.options("/graphql", headers=preflight(APP))
    assert answer.status_code == 403
    assert "access-control-allow-origin" not in answer.headers


@pytest.mark.parametrize(
    "given",
    [
        {"cors_origins": "*"},
        {"cors_origins": "http://localhost:3000,*"},
        {"cors_origin_regex": "https?://.*"},
    ],
)
def test_credentials_with_a_wildcard_origin_are_refused(given):
    with pytest.raises(ValidationError, match="cannot be used with a wildcard origin"):
        Settings(database_url=None, cors_allow_credentials=True, **given)
    # Without credentials, the same origins are accepted.
    Settings(database_url=None, **given)


def test_credentials_with_named_origins_are_accepted():
    settings = Settings(database_url=None, cors_allow_credentials=True, cors_origins=APP)
    assert settings.cors_origins == [APP]


def test_the_server_refuses_to_start_with_credentials_and_a_wildcard(tmp_path):
    env = {
        # Nothing listens there: were the settings accepted, serving would fail at once.
        "DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none",
        "SKILLMEM_DATA_DIR": str(tmp_path / "pgdata"),
        "SKILLMEM_CORS_ORIGINS": "*",
        "SKILLMEM_CORS_ALLOW_CREDENTIALS": "true",
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(
        [sys.executable, "-m", "gateway.cli.main", "serve"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "cannot be used with a wildcard origin" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_demo_lets_in_local_development_origins_unless_others_are_set():
    demo = Settings(database_url=None).with_local_origins()
    for origin in ("http://localhost:3000", "http://localhost:5173", "http://127.0.0.1:8080"):
        assert origin_allowed(demo, origin)
    assert not origin_allowed(demo, "http://127.0.0.1.evil.example")
    assert not origin_allowed(demo, "https://elsewhere.example")
    chosen = Settings(database_url=None, cors_origins="https://app.example").with_local_origins()
    assert chosen.cors_origins == ["https://app.example"]
    assert not origin_allowed(chosen, "http://localhost:3000")
