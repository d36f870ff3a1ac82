"""What a careless or hostile client sends the SDK's routes, answered as an error with its code
and never a 500: a skill file that spells the JSON escape of NUL (a file, not JSON: kept), page
tokens this server did not write, and times without an offset (the SDK sends a naive datetime
so: read as UTC)."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

import anthropic
import orjson
import pytest

from tests.anthropic.test_skills import files_of, upload


def token_of(*parts: str) -> str:
    return base64.urlsafe_b64encode(orjson.dumps(list(parts))).decode().rstrip("=")


async def test_a_skill_file_that_spells_the_nul_escape_is_uploaded_as_it_is(sdk, ws):
    api = sdk(ws.tokens["admin"])
    script = b's.replace("\\u0000", "")  # strip NUL\n'
    made = await api.beta.skills.create(
        files=upload("nul-cleaner", files={"scripts/clean.py": script})
    )
    found = await api.beta.skills.versions.download(made.latest_version_id, skill_id=made.id)
    assert files_of(await found.read())["nul-cleaner/scripts/clean.py"] == script


@pytest.mark.parametrize("page", [token_of("\u00b2"), token_of("99999999999"), token_of("\x00")])
async def test_a_versions_page_token_this_server_did_not_write_is_400(sdk, ws, page):
    api = sdk(ws.tokens["admin"])
    made = await api.beta.skills.create(files=upload("paged-skill"))
    with pytest.raises(anthropic.BadRequestError):
        await api.beta.skills.versions.list(made.id, page=page)


@pytest.mark.parametrize("page", [token_of("\x00"), token_of("a\x00b")])
async def test_a_page_token_holding_nul_is_400(sdk, ws, page):
    api = sdk(ws.tokens["admin"])
    with pytest.raises(anthropic.BadRequestError):
        await api.beta.skills.list(page=page)
    store = await api.beta.memory_stores.create(name="Paged")
    with pytest.raises(anthropic.BadRequestError):
        await api.beta.memory_stores.memories.list(store.id, page=page)


async def test_a_time_without_its_offset_is_utc(sdk, ws):
    api = sdk(ws.tokens["admin"])
    store = await api.beta.memory_stores.create(name="Dated")
    an_hour_ago = (datetime.now(UTC) - timedelta(hours=1)).replace(tzinfo=None)
    listed = [s.id async for s in api.beta.memory_stores.list(created_at_gte=an_hour_ago)]
    assert store.id in listed
    later = (datetime.now(UTC) + timedelta(hours=1)).replace(tzinfo=None)
    assert store.id not in [s.id async for s in api.beta.memory_stores.list(created_at_gte=later)]
