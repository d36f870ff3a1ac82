"""The workspace's memory as one read-only store through the `anthropic` SDK (issue 14, item 4):
the memory pages the caller may read as markdown files under `/profiles/` and
`/records/<object>/`, their content and sha256 the ones GraphQL shows, and every write refused
with 403 naming propose_memory."""

from __future__ import annotations

import anthropic
import pytest

from tests.factories import Workspace, company, data, gql, local, make_page, private_deal

LINE = "- {} — Claire, 2026-10-02 [relation]"


@pytest.fixture
async def pages(pool, ws: Workspace) -> dict[str, str]:
    """A workspace profile, the member's own profile, a company's page and a private deal's."""
    acme = await company(pool, ws, "Acme")
    deal = await private_deal(pool, ws, "admin", "Secret deal")
    return {
        "workspace": await make_page(pool, ws, "workspace", None, LINE.format("We sell boats")),
        "member": await make_page(
            pool, ws, "member", ws.members["member"], LINE.format("Likes mail"), name="Member"
        ),
        "acme": await make_page(
            pool, ws, "record", local(ws, acme), LINE.format("Acme pays late"), name="Acme"
        ),
        "deal": await make_page(
            pool, ws, "record", local(ws, deal), LINE.format("Deal is big"), name="Secret deal"
        ),
    }


async def _workspace_store(client: anthropic.AsyncAnthropic) -> str:
    stores = [s async for s in client.beta.memory_stores.list()]
    found = [s for s in stores if s.name == "Workspace memory"]
    assert len(found) == 1 and stores[0] == found[0]  # it comes first
    assert found[0].model_extra and found[0].model_extra["read_only"] is True
    return found[0].id


async def test_the_workspace_store_shows_the_pages_the_caller_reads(
    sdk, client, ws: Workspace, pages
):
    member = sdk(ws.tokens["member"])
    store_id = await _workspace_store(member)
    files = {
        m.path: m async for m in member.beta.memory_stores.memories.list(store_id, view="full")
    }
    assert set(files) == {
        "/profiles/members/Member.md",
        "/profiles/workspace.md",
        "/records/companies/Acme.md",
    }
    acme = files["/records/companies/Acme.md"]
    shown = await gql(
        client,
        ws.tokens["member"],
        "query($id: ID!) { memoryPage(id: $id) { content contentSha256 } }",
        {"id": pages["acme"]},
    )
    page = data(shown, "memoryPage")
    assert (acme.content, acme.content_sha256) == (page["content"], page["contentSha256"])
    assert "Acme pays late" in (acme.content or "")
    read = await member.beta.memory_stores.memories.retrieve(acme.id, memory_store_id=store_id)
    assert read.content == acme.content
    top = [
        (e.type, e.path) async for e in member.beta.memory_stores.memories.list(store_id, depth=1)
    ]
    assert top == [("memory_prefix", "/profiles/"), ("memory_prefix", "/records/")]
    admin = sdk(ws.tokens["admin"])
    theirs = [
        m.path async for m in admin.beta.memory_stores.memories.list(await _workspace_store(admin))
    ]
    assert theirs == [
        "/profiles/workspace.md",
        "/records/companies/Acme.md",
        "/records/deals/Secret deal.md",
    ]


async def test_writes_to_the_workspace_store_are_refused_naming_propose_memory(
    sdk, ws: Workspace, pages
):
    client = sdk(ws.tokens["admin"]).beta.memory_stores
    store_id = await _workspace_store(sdk(ws.tokens["admin"]))
    [acme] = [m async for m in client.memories.list(store_id, path_prefix="/records/companies/")]
    writes = [
        client.memories.create(store_id, path="/new.md", content="x"),
        client.memories.update(acme.id, memory_store_id=store_id, content="x"),
        client.memories.delete(acme.id, memory_store_id=store_id),
        client.update(store_id, name="Mine"),
        client.archive(store_id),
        client.delete(store_id),
    ]
    for write in writes:
        with pytest.raises(anthropic.PermissionDeniedError) as raised:
            await write
        assert "propose_memory" in raised.value.message
    assert (await client.memories.retrieve(acme.id, memory_store_id=store_id)).content


async def test_a_caller_whose_role_reads_no_memory_sees_no_workspace_store(sdk, ws: Workspace):
    key = sdk(ws.tokens["api_key"])  # the integration role reads companies only
    assert [s.name async for s in key.beta.memory_stores.list()] == []
