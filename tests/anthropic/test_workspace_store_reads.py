"""Reading the workspace's memory store (issue 14, item 4, from a review): the read rule, the
paths, the roll-ups and the paging are SQL's, so a caller never meets a page they may not
read, whichever route they take; the version a memory names is a MemoryVersion."""

from __future__ import annotations

import unicodedata

import anthropic
import pytest

from db.pool import begin_workspace
from gateway.anthropic import memory_models as m
from gateway.anthropic.transport import public_id
from resolvers.stores.workspace import WORKSPACE_STORE_ID, file_name
from tests.factories import (
    Workspace,
    company,
    data,
    gql,
    load_records,
    local,
    make_page,
    private_deal,
    write_page,
)

LINE = "- {} — Claire, 2026-10-02 [relation]"
EDIT = """
mutation($id: ID!, $content: String!) { editMemoryPage(pageId: $id, content: $content) { version } }
"""


def _store(ws: Workspace) -> str:
    return public_id(*m.STORE, ws.id, WORKSPACE_STORE_ID)


def _memory(ws: Workspace, page_gid: str) -> str:
    return public_id(*m.MEMORY, ws.id, local(ws, page_gid, "MemoryPage"))


@pytest.fixture
async def pages(pool, ws: Workspace) -> dict[str, str]:
    """The workspace's profile, each member's own, a company's page and a private deal's."""
    acme = await company(pool, ws, "Acme")
    deal = await private_deal(pool, ws, "admin", "Secret deal")
    made = {"workspace": await make_page(pool, ws, "workspace", None, LINE.format("Boats"))}
    for who in ("admin", "member"):
        made[who] = await make_page(
            pool, ws, "member", ws.members[who], LINE.format(f"{who} likes mail"), name=who
        )
    made["acme"] = await make_page(
        pool, ws, "record", local(ws, acme), LINE.format("Acme pays late"), name="Acme"
    )
    made["deal"] = await make_page(
        pool, ws, "record", local(ws, deal), LINE.format("Deal is big"), name="Secret deal"
    )
    return made


async def test_a_caller_never_meets_a_page_they_may_not_read(sdk, ws: Workspace, pages):
    memories = sdk(ws.tokens["member"]).beta.memory_stores.memories
    store = _store(ws)
    seen = {e.path async for e in memories.list(store, view="full")}
    assert seen == {
        "/profiles/members/member.md",
        "/profiles/workspace.md",
        "/records/companies/Acme.md",
    }
    rolled = [e.path async for e in memories.list(store, path_prefix="/records/", depth=1)]
    assert rolled == ["/records/companies/"]  # no /records/deals/ folder for them
    assert [e.path async for e in memories.list(store, path_prefix="/records/deals/")] == []
    admin = sdk(ws.tokens["admin"]).beta.memory_stores.memories
    theirs = {e.path: e async for e in admin.list(store)}
    assert "/profiles/members/member.md" not in theirs  # another member's profile
    deal = theirs["/records/deals/Secret deal.md"]
    versions = sdk(ws.tokens["member"]).beta.memory_stores.memory_versions
    for hidden in (deal.id, _memory(ws, pages["admin"])):
        with pytest.raises(anthropic.NotFoundError):
            await memories.retrieve(hidden, memory_store_id=store)
    with pytest.raises(anthropic.NotFoundError):
        await versions.retrieve(deal.memory_version_id, memory_store_id=store)
    read = await admin.retrieve(deal.id, memory_store_id=store)
    assert read.path == deal.path and "Deal is big" in (read.content or "")


async def test_lists_page_and_roll_up_in_path_order(sdk, sent, pool, ws: Workspace, pages):
    for name in ("Beta", "Gamma", "Delta"):
        made = await company(pool, ws, name)
        await make_page(pool, ws, "record", local(ws, made), LINE.format(name), name=name)
    memories = sdk(ws.tokens["admin"]).beta.memory_stores.memories
    store = _store(ws)
    whole = [e.path async for e in memories.list(store, limit=100)]
    assert whole == sorted(whole, key=str.encode) and len(whole) == 7
    before = sent.count("GET", f"/v1/memory_stores/{store}/memories")
    paged = [e.path async for e in memories.list(store, limit=2)]
    assert paged == whole
    assert sent.count("GET", f"/v1/memory_stores/{store}/memories") - before == 4
    top = [(e.type, e.path) async for e in memories.list(store, depth=2)]
    assert top == [
        ("memory_prefix", "/profiles/members/"),
        ("memory", "/profiles/workspace.md"),
        ("memory_prefix", "/records/companies/"),
        ("memory_prefix", "/records/deals/"),
    ]
    deep = [e.path async for e in memories.list(store, path_prefix="/records/companies/")]
    assert deep == [f"/records/companies/{n}.md" for n in ("Acme", "Beta", "Delta", "Gamma")]
    folders = [e.path async for e in memories.list(store, limit=1, depth=1)]
    assert folders == ["/profiles/", "/records/"]


NAMES = [
    "a/b",
    "  spaced\u3000 ",
    "Cafe\u0301",
    "\u202eevil\u2066",
    "x" * 250,
    " \u00a0",
    "tab\there\x85",
]


async def test_paths_are_the_file_names_the_python_rule_gives(sdk, pool, ws: Workspace):
    made = {}
    for number, name in enumerate(NAMES):
        acme = await company(pool, ws, f"Co {number}")
        page = await make_page(pool, ws, "record", local(ws, acme), LINE.format("x"), name="P")
        # Any label a page's record may hold, past the rules a page's name is made with.
        async with pool.acquire() as conn, conn.transaction():
            await begin_workspace(conn, ws.id)
            await conn.execute(
                "UPDATE records SET label = $2 WHERE id = $1", local(ws, page, "MemoryPage"), name
            )
        made[name] = page
    memories = sdk(ws.tokens["admin"]).beta.memory_stores.memories
    listed = {e.id: e.path async for e in memories.list(_store(ws))}
    for name, page in made.items():
        expected = "/records/companies/" + file_name(name)
        assert listed[_memory(ws, page)] == expected, name
        assert unicodedata.is_normalized("NFC", expected)
        one = await memories.retrieve(_memory(ws, page), memory_store_id=_store(ws))
        assert one.path == expected


async def test_a_second_page_at_one_path_takes_its_id_and_the_first_is_the_readers(
    sdk, pool, ws: Workspace
):
    hidden_deal = await private_deal(pool, ws, "admin", "Private")
    open_deals = await load_records(
        pool, ws.tokens["admin"], [{"object": "deals", "label": n} for n in ("One", "Two")]
    )
    hidden, shown, second = [
        await make_page(pool, ws, "record", local(ws, deal), LINE.format("a"), name="Same")
        for deal in (hidden_deal, *open_deals)
    ]
    store = _store(ws)

    def suffixed(page: str) -> str:
        return f"/records/deals/Same-{local(ws, page, 'MemoryPage').hex[:8]}.md"

    for who, expected in (
        ("admin", {hidden: "/records/deals/Same.md", shown: suffixed(shown)}),
        ("member", {shown: "/records/deals/Same.md"}),  # the first page they read keeps it
    ):
        memories = sdk(ws.tokens[who]).beta.memory_stores.memories
        listed = {e.id: e.path async for e in memories.list(store)}
        want = {_memory(ws, p): path for p, path in expected.items()}
        want[_memory(ws, second)] = suffixed(second)
        assert listed == want
        for memory_id, path in want.items():
            assert (await memories.retrieve(memory_id, memory_store_id=store)).path == path


async def test_the_version_a_memory_names_is_a_memory_version(
    sdk, client, pool, ws: Workspace, pages
):
    store = _store(ws)
    member = sdk(ws.tokens["member"]).beta.memory_stores
    acme = await member.memories.retrieve(_memory(ws, pages["acme"]), memory_store_id=store)
    first = await member.memory_versions.retrieve(acme.memory_version_id, memory_store_id=store)
    assert (first.operation, first.memory_id, first.path) == ("created", acme.id, acme.path)
    assert (first.content, first.content_sha256) == (acme.content, acme.content_sha256)
    assert first.created_by is None  # the system wrote it
    await write_page(pool, ws, pages["acme"], LINE.format("Acme pays on time"))
    now = await member.memories.retrieve(acme.id, memory_store_id=store)
    second = await member.memory_versions.retrieve(now.memory_version_id, memory_store_id=store)
    assert (second.operation, second.content) == ("modified", now.content)
    assert "on time" in (second.content or "")
    with pytest.raises(anthropic.NotFoundError):  # only the version a memory names
        await member.memory_versions.retrieve(acme.memory_version_id, memory_store_id=store)
    edited = await gql(
        client,
        ws.tokens["member"],
        EDIT,
        {"id": pages["member"], "content": LINE.format("Likes calls")},
    )
    assert data(edited, "editMemoryPage")["version"] == 2
    own = await member.memories.retrieve(_memory(ws, pages["member"]), memory_store_id=store)
    mine = await member.memory_versions.retrieve(own.memory_version_id, memory_store_id=store)
    assert mine.operation == "modified" and mine.content == own.content
    user = public_id("user", "Member", ws.id, ws.members["member"])
    assert mine.created_by is not None
    assert mine.created_by.model_dump() == {"type": "user_actor", "user_id": user}
    admin = sdk(ws.tokens["admin"]).beta.memory_stores
    with pytest.raises(anthropic.NotFoundError):  # another member's profile
        await admin.memory_versions.retrieve(own.memory_version_id, memory_store_id=store)


async def test_a_page_without_versions_names_itself_as_its_created_version(
    sdk, pool, ws: Workspace, pages
):
    page_id = local(ws, pages["workspace"], "MemoryPage")
    # As the database's owner: the app never deletes a version.
    async with pool.acquire() as conn:
        deleted = await conn.execute("DELETE FROM memory_versions WHERE page_id = $1", page_id)
    assert deleted == "DELETE 1"
    store = _store(ws)
    member = sdk(ws.tokens["member"]).beta.memory_stores
    memory = await member.memories.retrieve(_memory(ws, pages["workspace"]), memory_store_id=store)
    assert memory.memory_version_id == public_id(*m.VERSION, ws.id, page_id)
    version = await member.memory_versions.retrieve(memory.memory_version_id, memory_store_id=store)
    assert (version.operation, version.content, version.created_by) == (
        "created",
        memory.content,
        None,
    )
