"""The catalogue tests' shared fixtures: the Anthropic SDK's client (for the reserved names on
its /v1/skills), and the app with both of the catalogue's outsides at the test's fake server."""

from collections.abc import AsyncIterator

import asyncpg
import httpx
import pytest
from pytest_httpserver import HTTPServer

from gateway.app import create_app
from gateway.settings import Settings
from tests.anthropic.conftest import sdk, sent  # noqa: F401


@pytest.fixture
async def outside(
    api_pool: asyncpg.Pool, settings: Settings, httpserver: HTTPServer
) -> AsyncIterator[httpx.AsyncClient]:
    """The app with the directory and the source at the test's fake: one try, a short time."""
    base = httpserver.url_for("/").rstrip("/")
    changes = {
        "catalog_directory_base_url": base,
        "catalog_source_base_url": base,
        "catalog_timeout": 2.0,
        "catalog_max_retries": 0,
        "catalog_backoff": 0.01,
        "catalog_approval_seconds": 3600,
    }
    app = create_app(settings.model_copy(update=changes), pool=api_pool)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        yield client
