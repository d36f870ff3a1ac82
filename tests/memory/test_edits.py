"""A person's edits of memory pages (DESIGN §5) against a real PostgreSQL: a rewrite keeps
kept lines and signs new ones, deleting a souvenir, and an emptied page's trip to the trash and
back."""

from __future__ import annotations

import pytest

from db.pool import begin_workspace
from resolvers.common import ids
from tests.factories import codes, gql, make_page
from tests.memory.pages_api import (
    BY_RECORD,
    DELETE,
    PAGE,
    RESTORE,
    TODAY,
    data,
    edit,
    line,
    page_rows,
    problems,
    read,
    record,
)

# A person's edit -------------------------------------------------------------------------------


async def test_a_persons_edit_keeps_kept_lines_and_signs_new_ones(client, pool, ws, today):
    _, acme = await record(pool, ws)
    meeting_gid, _ = await record(pool, ws, "Weekly with Acme", "meeting")
    first = line("Acme pays late")
    second = line("Le DAF décide seul", "décision", source=f"record:{meeting_gid}")
    third = line("Acme likes mail")
    page = await make_page(pool, ws, "record", acme, "\n".join([first, second, third]))
    before = await read(client, ws, page)
    assert before["souvenirs"][1]["source"] == f"record:{meeting_gid}"
    assert before["souvenirs"][1]["sourceRecordId"] == meeting_gid
    assert before["canEdit"] is True

    reworded = line("Le DAF décide seul, avec le CEO", "décision", source=f"record:{meeting_gid}")
    content = "\n".join([first, reworded, "- Appeler le mardi [consigne]"])
    edited = data(await edit(client, ws, page, content))["editMemoryPage"]
    kept, changed, new = edited["souvenirs"]
    assert kept["key"] == before["souvenirs"][0]["key"]
    assert (kept["line"], kept["human"], kept["author"]) == (first, False, "Claire")
    assert changed["key"] not in {s["key"] for s in before["souvenirs"]}
    assert changed["text"] == "Le DAF décide seul, avec le CEO"
    assert (changed["author"], changed["day"], changed["human"]) == ("Member", TODAY, True)
    assert changed["source"] is None and changed["sourceRecordId"] is None
    assert changed["type"] == "DECISION"
    assert new["line"] == f"- Appeler le mardi — Member, {TODAY} [consigne] ✍"
    assert new["key"] != changed["key"]
    assert edited["content"] == "\n".join([first, changed["line"], new["line"]])
    assert edited["version"] == before["version"] + 1
    # Read again: the same keys.
    again = await read(client, ws, page)
    assert [s["key"] for s in again["souvenirs"]] == [s["key"] for s in edited["souvenirs"]]


async def test_a_type_typed_in_english_or_without_accents_is_stored_canonically(
    client, pool, ws, today
):
    """Issue 13, item 5, through GraphQL: `[preference]`, `[Decision]`, `[instruction]` and
    `[context]` are stored as `[préférence]`, `[décision]`, `[consigne]` and `[contexte]`; a
    line with no type is refused with every accepted form, and nothing changes."""
    _, acme = await record(pool, ws)
    page = await make_page(pool, ws, "record", acme, line("Acme pays late"))
    typed = ["Acme likes tea [preference]", "Le DAF signe [Decision]", "Appeler [instruction]"]
    content = "\n".join([line("Acme pays late"), *(f"- {t}" for t in typed), "- Gel [context]"])
    edited = data(await edit(client, ws, page, content))["editMemoryPage"]
    assert [s["line"] for s in edited["souvenirs"][1:]] == [
        f"- Acme likes tea — Member, {TODAY} [préférence] ✍",
        f"- Le DAF signe — Member, {TODAY} [décision] ✍",
        f"- Appeler — Member, {TODAY} [consigne] ✍",
        f"- Gel — Member, {TODAY} [contexte] (revoir 2027-06-15) ✍",
    ]
    assert [s["type"] for s in edited["souvenirs"][1:]] == [
        "PREFERENCE",
        "DECISION",
        "CONSIGNE",
        "CONTEXTE",
    ]

    refused = await edit(client, ws, page, edited["content"] + "\n- Acme likes coffee")
    assert codes(refused) == ["SCHEMA_VALIDATION_FAILED"]
    [problem] = problems(refused)
    assert problem["line"] == 6
    for form in ("[préférence]", "[preference]", "[instruction]", "[context]", "[decision]"):
        assert form in problem["message"]
    assert (await read(client, ws, page))["content"] == edited["content"]


async def test_an_unchanged_edit_writes_no_version(client, pool, ws):
    _, acme = await record(pool, ws)
    page = await make_page(pool, ws, "record", acme, line("Acme pays late"))
    before = await read(client, ws, page)
    edited = data(await edit(client, ws, page, before["content"]))["editMemoryPage"]
    assert (edited["version"], edited["content"]) == (before["version"], before["content"])


async def test_malformed_lines_are_all_listed_and_nothing_changes(client, pool, ws, today):
    _, acme = await record(pool, ws)
    page = await make_page(pool, ws, "record", acme, line("Acme pays late"))
    before = await read(client, ws, page)
    content = "\n".join(
        [
            line("Acme pays late"),
            "Just some prose",
            "- Missing its type",
            "- An unknown type [avis]",
            "  ",
            "- A bad day — Claire, 2026-13-45 [relation]",
            "- Appeler le mardi [consigne]",
        ]
    )
    response = await edit(client, ws, page, content)
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    found = problems(response)
    assert {p["line"] for p in found} == {2, 3, 4, 5, 6}
    assert all(p["field"] == "content" for p in found)
    after = await read(client, ws, page)
    assert (after["content"], after["version"], after["contentSha256"]) == (
        before["content"],
        before["version"],
        before["contentSha256"],
    )


@pytest.mark.parametrize("who", ["agent", "mcp_client", "viewer"])
async def test_only_a_persons_own_session_with_the_right_edits(client, pool, ws, who):
    _, acme = await record(pool, ws)
    page = await make_page(pool, ws, "record", acme, line("Acme pays late"))
    response = await edit(client, ws, page, "- Something else [relation]", who=who)
    assert codes(response) == ["FORBIDDEN"]
    key = (await read(client, ws, page))["souvenirs"][0]["key"]
    deleted = await gql(client, ws.tokens[who], DELETE, {"id": page, "key": key})
    assert codes(deleted) == ["FORBIDDEN"]
    assert (await read(client, ws, page))["version"] == 1


# Trash and restore -----------------------------------------------------------------------------


async def test_deleting_the_last_souvenir_trashes_the_page_and_restore_brings_it_back(
    client, pool, ws
):
    acme_gid, acme = await record(pool, ws)
    page = await make_page(pool, ws, "record", acme, line("Acme pays late"))
    before = await read(client, ws, page)
    token = ws.tokens["member"]
    key = before["souvenirs"][0]["key"]
    deleted = data(await gql(client, token, DELETE, {"id": page, "key": key}))["deleteSouvenir"]
    assert deleted["trashed"] is True and deleted["content"] == ""
    assert codes(await gql(client, token, PAGE, {"id": page})) == ["NOT_FOUND"]
    assert data(await gql(client, token, BY_RECORD, {"id": acme_gid}))["memoryPageByRecord"] is None

    restored = data(await gql(client, token, RESTORE, {"id": page}))["restoreMemoryPage"]
    assert restored["trashed"] is False
    assert restored["content"] == before["content"]
    assert [s["key"] for s in restored["souvenirs"]] == [key]
    by_record = data(await gql(client, token, BY_RECORD, {"id": acme_gid}))["memoryPageByRecord"]
    assert by_record["id"] == page


async def test_an_emptied_page_goes_to_the_trash_and_comes_back(client, pool, ws):
    acme_gid, acme = await record(pool, ws)
    content = "\n".join([line("Acme pays late"), line("Acme likes mail")])
    page = await make_page(pool, ws, "record", acme, content)
    token = ws.tokens["member"]
    emptied = data(await edit(client, ws, page, ""))["editMemoryPage"]
    assert emptied["trashed"] is True
    assert codes(await gql(client, token, PAGE, {"id": page})) == ["NOT_FOUND"]
    assert data(await gql(client, token, BY_RECORD, {"id": acme_gid}))["memoryPageByRecord"] is None
    restored = data(await gql(client, token, RESTORE, {"id": page}))["restoreMemoryPage"]
    assert restored["content"] == content and restored["trashed"] is False
    assert (await read(client, ws, page))["content"] == content


async def test_restoring_while_another_live_page_holds_the_record_changes_nothing(client, pool, ws):
    acme_gid, acme = await record(pool, ws)
    token = ws.tokens["member"]
    old = await make_page(pool, ws, "record", acme, line("Old fact"))
    key = (await read(client, ws, old))["souvenirs"][0]["key"]
    await gql(client, token, DELETE, {"id": old, "key": key})
    new = await make_page(pool, ws, "record", acme, line("New fact"))
    rows_before = await page_rows(pool, ws, acme)

    response = await gql(client, token, RESTORE, {"id": old})
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    assert await page_rows(pool, ws, acme) == rows_before
    live = data(await gql(client, token, BY_RECORD, {"id": acme_gid}))["memoryPageByRecord"]
    assert (live["id"], live["content"]) == (new, line("New fact"))
    assert codes(await gql(client, token, PAGE, {"id": old})) == ["NOT_FOUND"]
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        count = await conn.fetchval(
            "SELECT count(*) FROM memory_lines WHERE page_id = $1",
            ids.decode(old, "MemoryPage", ws.id),
        )
    assert count == 0


async def test_restoring_a_live_page_is_refused(client, pool, ws):
    _, acme = await record(pool, ws)
    page = await make_page(pool, ws, "record", acme, line("Acme pays late"))
    response = await gql(client, ws.tokens["member"], RESTORE, {"id": page})
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]


# deleteSouvenir --------------------------------------------------------------------------------


async def test_delete_a_souvenir_by_page_and_key(client, pool, ws):
    _, acme = await record(pool, ws)
    first, second = line("Acme pays late"), line("Acme likes mail")
    page = await make_page(pool, ws, "record", acme, "\n".join([first, second]))
    before = await read(client, ws, page)
    token = ws.tokens["member"]
    unknown = await gql(client, token, DELETE, {"id": page, "key": "sNoSuchKey"})
    assert codes(unknown) == ["NOT_FOUND"]
    assert await read(client, ws, page) == before
    key = before["souvenirs"][0]["key"]
    deleted = data(await gql(client, token, DELETE, {"id": page, "key": key}))["deleteSouvenir"]
    assert deleted["content"] == second
    assert [s["key"] for s in deleted["souvenirs"]] == [before["souvenirs"][1]["key"]]
    assert deleted["version"] == before["version"] + 1
    again = await gql(client, token, DELETE, {"id": page, "key": key})
    assert codes(again) == ["NOT_FOUND"]
