"""The trash for records: nobody reads a trashed record, only the delete right trashes or
restores one, and a trashed record keeps its memory page (DESIGN §5)."""

from __future__ import annotations

from resolvers.common import ids
from tests.factories import codes, gql, load_records, make_page

TRASH = "mutation($id: ID!) { trashRecord(id: $id) }"
RESTORE = "mutation($id: ID!) { restoreRecord(id: $id) { id label } }"
READ = "query($id: ID!) { record(id: $id) { label } }"
PAGE = "query($id: ID!) { memoryPageByRecord(recordId: $id) { content souvenirs { key } } }"
LIST = '{ records(object: "companies") { nodes { label } } }'

SOUVENIR = "- Acme pays at 60 days — Claire, 2026-10-02 [relation]"


async def acme_with_page(pool, ws) -> str:
    [acme] = await load_records(
        pool, ws.tokens["member"], [{"object": "companies", "label": "Acme"}]
    )
    await make_page(pool, ws, "record", ids.decode(acme, "Record", ws.id), SOUVENIR, name="Acme")
    return acme


async def test_a_trashed_record_is_read_by_no_one_and_keeps_its_page(pool, client, ws):
    acme = await acme_with_page(pool, ws)
    before = (await gql(client, ws.tokens["member"], PAGE, {"id": acme})).json()["data"]
    assert (await gql(client, ws.tokens["admin"], TRASH, {"id": acme})).json() == {
        "data": {"trashRecord": True}
    }
    for who in ("admin", "member", "viewer"):
        assert codes(await gql(client, ws.tokens[who], READ, {"id": acme})) == ["NOT_FOUND"]
        listed = (await gql(client, ws.tokens[who], LIST)).json()["data"]["records"]["nodes"]
        assert listed == []
        page = await gql(client, ws.tokens[who], PAGE, {"id": acme})
        assert page.json()["data"]["memoryPageByRecord"] is None
    restored = await gql(client, ws.tokens["admin"], RESTORE, {"id": acme})
    assert restored.json()["data"]["restoreRecord"]["label"] == "Acme"
    after = (await gql(client, ws.tokens["member"], PAGE, {"id": acme})).json()["data"]
    assert after == before
    assert after["memoryPageByRecord"]["content"] == SOUVENIR


async def test_only_the_delete_right_trashes_or_restores(client, pool, ws):
    acme = await acme_with_page(pool, ws)
    for who in ("member", "viewer", "agent", "mcp_client"):
        assert codes(await gql(client, ws.tokens[who], TRASH, {"id": acme})) == ["FORBIDDEN"]
    # The integration key reads companies but may not delete them.
    assert codes(await gql(client, ws.tokens["api_key"], TRASH, {"id": acme})) == ["FORBIDDEN"]
    assert (await gql(client, ws.tokens["member"], READ, {"id": acme})).json()["data"] == {
        "record": {"label": "Acme"}
    }
    await gql(client, ws.tokens["admin"], TRASH, {"id": acme})
    assert codes(await gql(client, ws.tokens["member"], RESTORE, {"id": acme})) == ["FORBIDDEN"]
    assert codes(await gql(client, ws.tokens["member"], READ, {"id": acme})) == ["NOT_FOUND"]


async def test_skills_memory_and_other_workspaces_are_not_trashed_here(client, pool, ws, ws2):
    created = await gql(
        client,
        ws.tokens["admin"],
        'mutation { createSkill(input: {name: "house-style", description: "How we write."})'
        " { id } }",
    )
    skill = created.json()["data"]["createSkill"]["id"]
    assert codes(await gql(client, ws.tokens["admin"], TRASH, {"id": skill})) == [
        "SCHEMA_SYSTEM_ENTITY_IMMUTABLE"
    ]
    acme = await acme_with_page(pool, ws)
    page = await gql(
        client,
        ws.tokens["member"],
        "query($id: ID!) { memoryPageByRecord(recordId: $id) { id } }",
        {"id": acme},
    )
    page_record = ids.decode(page.json()["data"]["memoryPageByRecord"]["id"], "MemoryPage", ws.id)
    # Nobody creates or deletes a memory record through the record API.
    assert codes(await gql(client, ws.tokens["admin"], TRASH, {"id": ws.gid(page_record)})) == [
        "SCHEMA_SYSTEM_ENTITY_IMMUTABLE"
    ]
    assert codes(await gql(client, ws2.tokens["admin"], TRASH, {"id": acme})) == ["NOT_FOUND"]
    assert (await gql(client, ws.tokens["member"], READ, {"id": acme})).json()["data"] == {
        "record": {"label": "Acme"}
    }
