"""The workspace's writes of memory pages (DESIGN §5) against a real PostgreSQL: creating pages
and profiles, the sizes of a name, a description and a content, one live page per record and per
actor, the caps, ✍ lines, satellites and the workspace profile's mission.

Clients go through GraphQL (``gql``); the Dreamer's writes go through the resolvers
(``make_page``/``write_page``)."""

from __future__ import annotations

import asyncio

import pytest

from db import records as db_records
from db.pool import begin_workspace
from resolvers.common import ids
from resolvers.common.errors import Code, DomainError
from resolvers.common.principals import principal_for_token
from resolvers.records.workspaces import create_object, grant_standard_roles
from resolvers.skills import writing
from tests.factories import codes, gql, make_page, write_page
from tests.memory.pages_api import (
    BY_RECORD,
    DELETE,
    MISSION,
    PROFILE,
    TODAY,
    agent_id,
    by_hand,
    data,
    edit,
    line,
    lines,
    many_sized,
    page_rows,
    problems,
    read,
    record,
    refused,
    sized,
    write_by_hand,
)

# Pages and profiles --------------------------------------------------------------------------


async def test_a_record_page_and_profiles_can_be_created(client, pool, ws):
    acme_gid, acme = await record(pool, ws)
    page = await make_page(
        pool, ws, "record", acme, line("Acme pays late"), name="Acme", description="About Acme"
    )
    by_record = data(await gql(client, ws.tokens["member"], BY_RECORD, {"id": acme_gid}))
    found = by_record["memoryPageByRecord"]
    assert found["id"] == page
    assert (found["kind"], found["aboutId"], found["name"], found["description"]) == (
        "RECORD",
        acme_gid,
        "Acme",
        "About Acme",
    )
    assert found["content"] == line("Acme pays late")
    assert found["version"] == 1 and found["trashed"] is False
    assert found["linesOnlyDeletable"] is False and found["mission"] is None

    member = ws.members["member"]
    member_page = await make_page(pool, ws, "member", member, line("Likes short mails"))
    scout = await agent_id(pool, ws)
    agent_page = await make_page(pool, ws, "agent", scout, line("Answers in French", "consigne"))
    workspace_page = await make_page(pool, ws, "workspace", None, line("Tutoie", "consigne"))

    token = ws.tokens["member"]
    mine = data(
        await gql(client, token, PROFILE, {"kind": "MEMBER", "id": ws.gid(member, "Member")})
    )["memoryProfile"]
    assert (mine["id"], mine["kind"], mine["aboutId"]) == (
        member_page,
        "MEMBER",
        ws.gid(member, "Member"),
    )
    my_memories = data(await gql(client, token, "{ myMemories { id } }"))["myMemories"]
    assert my_memories == {"id": member_page}
    agent = data(
        await gql(client, token, PROFILE, {"kind": "AGENT", "id": ws.gid(scout, "Agent")})
    )["memoryProfile"]
    assert (agent["id"], agent["kind"]) == (agent_page, "AGENT")
    assert agent["content"] == line("Answers in French", "consigne")
    workspace = data(await gql(client, token, PROFILE, {"kind": "WORKSPACE"}))["memoryProfile"]
    assert (workspace["id"], workspace["kind"], workspace["aboutId"]) == (
        workspace_page,
        "WORKSPACE",
        None,
    )


@pytest.mark.parametrize(
    "field, length, ok",
    [
        ("name", 100, True),
        ("name", 101, False),
        ("description", 160, True),
        ("description", 161, False),
    ],
)
async def test_name_and_description_lengths(client, pool, ws, field, length, ok):
    acme_gid, acme = await record(pool, ws)
    kwargs = {"name": "Acme", "description": "", field: "n" * length}
    create = make_page(pool, ws, "record", acme, line("Acme pays late"), **kwargs)
    if ok:
        page = await create
        assert (await read(client, ws, page))[field] == "n" * length
    else:
        error = await refused(create)
        assert error.code is Code.SCHEMA_VALIDATION_FAILED
        assert [p.field for p in error.problems] == [field]
        assert await page_rows(pool, ws, acme) == []


@pytest.mark.parametrize("length, ok", [(4000, True), (4001, False)])
async def test_the_dreamers_content_holds_at_most_4000_characters(client, pool, ws, length, ok):
    _, acme = await record(pool, ws)
    page = await make_page(pool, ws, "record", acme, line("Acme pays late"))
    content = many_sized(length)
    if ok:
        await write_page(pool, ws, page, content)
        assert (await read(client, ws, page))["content"] == content
    else:
        error = await refused(write_page(pool, ws, page, content))
        assert error.code is Code.SCHEMA_VALIDATION_FAILED
        assert any("4001" in p.message for p in error.problems)
        assert (await read(client, ws, page))["content"] == line("Acme pays late")


@pytest.mark.parametrize("length, ok", [(4000, True), (4001, False)])
async def test_a_creation_holds_at_most_4000_characters(client, pool, ws, length, ok):
    _, acme = await record(pool, ws)
    create = make_page(pool, ws, "record", acme, many_sized(length))
    if ok:
        assert len((await read(client, ws, await create))["content"]) == 4000
    else:
        assert (await refused(create)).code is Code.SCHEMA_VALIDATION_FAILED
        assert await page_rows(pool, ws, acme) == []


@pytest.mark.parametrize("length, ok", [(4000, True), (4001, False)])
async def test_a_persons_edit_holds_at_most_4000_characters(client, pool, ws, today, length, ok):
    """A line the person writes in full (their name, today, ✍) is stored as written."""
    _, acme = await record(pool, ws)
    first = line("Acme pays late")
    page = await make_page(pool, ws, "record", acme, first)
    content = sized(length, head=[first], tail=f" — Member, {TODAY} [relation] ✍")
    response = await edit(client, ws, page, content)
    if ok:
        edited = data(response)["editMemoryPage"]
        assert edited["content"] == content and len(edited["content"]) == 4000
        assert edited["souvenirs"][1]["human"] is True
    else:
        assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
        assert any("4001" in p["message"] for p in problems(response))
        assert (await read(client, ws, page))["content"] == first


@pytest.mark.parametrize("length, ok", [(3977, True), (3978, False)])
async def test_a_persons_edit_counts_the_author_and_day_it_fills_in(
    client, pool, ws, today, length, ok
):
    """'- yyy [relation]' gains ' — Member, 2026-12-15' and ' ✍': 23 characters."""
    _, acme = await record(pool, ws)
    first = line("Acme pays late")
    page = await make_page(pool, ws, "record", acme, first)
    content = sized(length, head=[first], tail=" [relation]")
    response = await edit(client, ws, page, content)
    if ok:
        edited = data(response)["editMemoryPage"]
        assert len(edited["content"]) == 4000
        assert edited["content"].endswith(f" — Member, {TODAY} [relation] ✍")
    else:
        assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
        messages = [p["message"] for p in problems(response)]
        assert any("would hold 4001 characters" in m for m in messages), messages
        after = await read(client, ws, page)
        assert (after["content"], after["version"]) == (first, 1)


# One live page per record and per actor ------------------------------------------------------


async def test_a_second_page_about_the_same_record_or_actor_is_refused(client, pool, ws):
    _, acme = await record(pool, ws)
    await make_page(pool, ws, "record", acme, line("Acme pays late"))
    error = await refused(make_page(pool, ws, "record", acme, line("Acme pays on time")))
    assert error.code is Code.SCHEMA_VALIDATION_FAILED
    assert len(await page_rows(pool, ws, acme)) == 1
    for kind, about in (("member", ws.members["member"]), ("workspace", None)):
        await make_page(pool, ws, kind, about, line("First"))
        again = await refused(make_page(pool, ws, kind, about, line("Second")))
        assert again.code is Code.SCHEMA_VALIDATION_FAILED


async def test_two_concurrent_creators_leave_one_page(client, pool, ws):
    acme_gid, acme = await record(pool, ws)
    answers = await asyncio.gather(
        make_page(pool, ws, "record", acme, line("From the first writer")),
        make_page(pool, ws, "record", acme, line("From the second writer")),
        return_exceptions=True,
    )
    made = [a for a in answers if isinstance(a, str)]
    failed = [a for a in answers if not isinstance(a, str)]
    assert len(made) == 1 and len(failed) == 1, answers
    assert isinstance(failed[0], DomainError), failed
    assert failed[0].code is Code.SCHEMA_VALIDATION_FAILED
    rows = await page_rows(pool, ws, acme)
    assert len(rows) == 1 and ws.gid(rows[0]["id"], "MemoryPage") == made[0]
    found = data(await gql(client, ws.tokens["member"], BY_RECORD, {"id": acme_gid}))
    assert found["memoryPageByRecord"]["id"] == made[0]


# Caps ----------------------------------------------------------------------------------------


async def test_a_record_page_holds_20_souvenirs(client, pool, ws):
    _, acme = await record(pool, ws)
    page = await make_page(pool, ws, "record", acme, line("Acme pays late"))
    await write_page(pool, ws, page, "\n".join(lines(20)))
    assert len((await read(client, ws, page))["souvenirs"]) == 20
    error = await refused(write_page(pool, ws, page, "\n".join(lines(21))))
    assert error.code is Code.SCHEMA_VALIDATION_FAILED
    assert any("at most 20" in p.message for p in error.problems)
    assert len((await read(client, ws, page))["souvenirs"]) == 20
    _, globex = await record(pool, ws, "Globex")
    created = await refused(make_page(pool, ws, "record", globex, "\n".join(lines(21))))
    assert created.code is Code.SCHEMA_VALIDATION_FAILED


@pytest.mark.parametrize("kind", ["member", "agent", "workspace"])
async def test_a_profile_holds_15_souvenirs_about_no_record(client, pool, ws, kind):
    about = {"member": ws.members["member"], "workspace": None}.get(kind)
    if kind == "agent":
        about = await agent_id(pool, ws)
    page = await make_page(pool, ws, kind, about, "\n".join(lines(15)))
    error = await refused(write_page(pool, ws, page, "\n".join(lines(16))))
    assert error.code is Code.SCHEMA_VALIDATION_FAILED
    assert any("at most 15" in p.message for p in error.problems)
    assert len((await read(client, ws, page))["souvenirs"]) == 15


async def test_a_member_profile_holds_20_souvenirs_per_record_it_mentions(client, pool, ws):
    acme_gid, _ = await record(pool, ws)
    member = ws.members["member"]
    plain = lines(15, "Plain")
    about = [
        f"- @[Acme](record:{acme_gid}) Acme fact {n} — Claire, 2026-10-02 [relation]"
        for n in range(21)
    ]
    page = await make_page(pool, ws, "member", member, "\n".join(plain + about[:20]))
    shown = await read(client, ws, page)
    assert len(shown["souvenirs"]) == 35
    assert [s["aboutRecordId"] for s in shown["souvenirs"][15:]] == [acme_gid] * 20
    assert shown["content"] == "\n".join(plain + about[:20])
    error = await refused(write_page(pool, ws, page, "\n".join(plain + about)))
    assert error.code is Code.SCHEMA_VALIDATION_FAILED
    assert any("at most 20" in p.message for p in error.problems)
    assert len((await read(client, ws, page))["souvenirs"]) == 35


async def test_a_reference_to_a_record_only_on_a_member_profile(pool, ws):
    acme_gid, acme = await record(pool, ws)
    referenced = f"- @[Acme](record:{acme_gid}) Acme fact — Claire, 2026-10-02 [relation]"
    error = await refused(make_page(pool, ws, "record", acme, referenced))
    assert error.code is Code.SCHEMA_VALIDATION_FAILED
    assert [p.line for p in error.problems] == [1]


async def test_hand_written_lines_are_not_counted(client, pool, ws, today):
    _, acme = await record(pool, ws)
    page = await make_page(pool, ws, "record", acme, line("Acme pays late"))
    human = [by_hand(f"Said by hand {n}") for n in range(20)]
    await write_by_hand(client, ws, page, "\n".join([*human, line("Acme pays late")]))
    await write_page(pool, ws, page, "\n".join(human + lines(20)))
    shown = await read(client, ws, page)
    assert [s["human"] for s in shown["souvenirs"]] == [True] * 20 + [False] * 20
    error = await refused(write_page(pool, ws, page, "\n".join(human + lines(21))))
    assert error.code is Code.SCHEMA_VALIDATION_FAILED


async def test_past_a_cap_only_a_rewrite_or_a_delete(client, pool, ws):
    """A page over its cap (here written straight into the table) may be reworded or shrunk,
    never grown."""
    _, acme = await record(pool, ws)
    twenty = lines(20)
    page = await make_page(pool, ws, "record", acme, "\n".join(twenty))
    # At the cap: a rewrite and a delete are accepted, an addition is not.
    reworded = ["- Reworded — Claire, 2026-10-03 [relation]", *twenty[1:]]
    await write_page(pool, ws, page, "\n".join(reworded))
    added = await refused(write_page(pool, ws, page, "\n".join([*reworded, line("One more")])))
    assert added.code is Code.SCHEMA_VALIDATION_FAILED
    # Over the cap.
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        await conn.execute(
            "INSERT INTO memory_lines (workspace_id, page_id, position, kind, key, text, type,"
            " author, day) VALUES (app_workspace_id(), $1, 20, 'souvenir', 'sExtra', 'Extra',"
            " 'relation', 'Claire', '2026-10-02')",
            ids.decode(page, "MemoryPage", ws.id),
        )
    over = [*reworded, line("Extra")]
    assert len((await read(client, ws, page))["souvenirs"]) == 21
    rewrite = ["- Reworded again — Claire, 2026-10-04 [relation]", *over[1:]]
    await write_page(pool, ws, page, "\n".join(rewrite))
    assert len((await read(client, ws, page))["souvenirs"]) == 21
    grown = await refused(write_page(pool, ws, page, "\n".join([*rewrite, line("Yet more")])))
    assert grown.code is Code.SCHEMA_VALIDATION_FAILED
    await write_page(pool, ws, page, "\n".join(rewrite[:-1]))
    assert len((await read(client, ws, page))["souvenirs"]) == 20


# ✍ lines ---------------------------------------------------------------------------------------


async def test_only_a_person_writes_a_hand_written_line(pool, ws):
    """The workspace's writer (the Dreamer) never writes a new ✍ line: it would escape the
    caps."""
    _, acme = await record(pool, ws)
    error = await refused(make_page(pool, ws, "record", acme, line("By hand?", human=True)))
    assert error.code is Code.SCHEMA_VALIDATION_FAILED
    assert [p.message for p in error.problems] == ["only a person writes a ✍ line"]
    page = await make_page(pool, ws, "record", acme, line("Kept"))
    error = await refused(
        write_page(pool, ws, page, "\n".join([line("Kept"), line("Sneaky", human=True)]))
    )
    assert [p.message for p in error.problems] == ["only a person writes a ✍ line"]


async def test_the_dreamer_never_removes_a_hand_written_line(client, pool, ws, today):
    _, acme = await record(pool, ws)
    kept, human, gone = line("Kept"), by_hand("Said by hand"), line("Gone")
    page = await make_page(pool, ws, "record", acme, "\n".join([kept, gone]))
    await write_by_hand(client, ws, page, "\n".join([kept, human, gone]))
    before = await read(client, ws, page)
    human_key = before["souvenirs"][1]["key"]
    await write_page(pool, ws, page, "\n".join([kept, line("New")]))
    after = await read(client, ws, page)
    assert after["content"] == "\n".join([kept, human, line("New")])
    assert after["souvenirs"][1]["key"] == human_key
    assert after["souvenirs"][0]["key"] == before["souvenirs"][0]["key"]


async def test_a_person_can_remove_a_hand_written_line(client, pool, ws, today):
    _, acme = await record(pool, ws)
    kept, human = line("Kept"), by_hand("Said by hand")
    page = await make_page(pool, ws, "record", acme, kept)
    await write_by_hand(client, ws, page, "\n".join([kept, human]))
    edited = data(await edit(client, ws, page, kept))["editMemoryPage"]
    assert edited["content"] == kept
    assert [s["human"] for s in edited["souvenirs"]] == [False]


async def test_the_dreamers_rewrite_with_a_hand_written_line_put_back_holds_4000_characters(
    client, pool, ws, today
):
    """A rewrite of 4,000 characters that drops a ✍ line would hold more than 4,000 once the
    line is put back: it is refused and nothing changes."""
    _, acme = await record(pool, ws)
    human = by_hand("Said by hand")
    page = await make_page(pool, ws, "record", acme, line("Kept"))
    await write_by_hand(client, ws, page, "\n".join([line("Kept"), human]))
    before = await read(client, ws, page)
    error = await refused(write_page(pool, ws, page, many_sized(4000)))
    assert error.code is Code.SCHEMA_VALIDATION_FAILED
    after = await read(client, ws, page)
    assert len(after["content"]) <= 4000, f"the page holds {len(after['content'])} characters"
    assert after == before


# Satellites and documents ----------------------------------------------------------------------


@pytest.mark.parametrize("obj", ["notes", "tasks", "meeting", "skill"])
async def test_no_page_on_a_satellite_a_document_or_a_skill(client, pool, ws, obj):
    if obj == "skill":
        async with pool.acquire() as conn, conn.transaction():
            member = await principal_for_token(conn, ws.tokens["member"])
            assert member is not None
            row = await writing.create_skill(
                conn, member, name="chase-invoices", description="Chase an unpaid invoice."
            )
        gid, local = ws.gid(row.id), row.id
    else:
        gid, local = await record(pool, ws, "Something", obj)
    error = await refused(make_page(pool, ws, "record", local, line("A fact about it")))
    assert error.code is Code.SCHEMA_VALIDATION_FAILED
    assert [p.field for p in error.problems] == ["id"]
    assert await page_rows(pool, ws, local) == []
    found = data(await gql(client, ws.tokens["member"], BY_RECORD, {"id": gid}))
    assert found["memoryPageByRecord"] is None


@pytest.mark.parametrize("obj", ["companies", "contacts", "deals"])
async def test_pages_on_records_that_are_no_satellite(client, pool, ws, obj):
    gid, local = await record(pool, ws, "Something", obj)
    page = await make_page(pool, ws, "record", local, line("A fact about it"))
    found = data(await gql(client, ws.tokens["member"], BY_RECORD, {"id": gid}))
    assert found["memoryPageByRecord"]["id"] == page


async def test_a_page_written_before_its_object_became_a_satellite(client, pool, ws, today):
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        projects = await create_object(
            conn, "projects", "Project", "Projects", [("code", "Code", "text", None, 1)]
        )
        await grant_standard_roles(conn, ws.roles, projects)
    apollo_gid, apollo = await record(pool, ws, "Apollo", "projects")
    three = [line("Apollo ships in March"), line("Apollo has two sponsors"), line("Apollo is big")]
    page = await make_page(pool, ws, "record", apollo, "\n".join(three))
    assert (await read(client, ws, page))["linesOnlyDeletable"] is False
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        await db_records.insert_attribute(
            conn, projects, "company", "Company", "relation", target="companies", position=1
        )

    shown = await read(client, ws, page)
    assert shown["content"] == "\n".join(three)
    assert shown["linesOnlyDeletable"] is True and shown["canEdit"] is True
    by_record = data(await gql(client, ws.tokens["member"], BY_RECORD, {"id": apollo_gid}))
    assert by_record["memoryPageByRecord"]["id"] == page

    # Adding or rewording a line by hand is refused and changes nothing.
    added = await edit(client, ws, page, "\n".join([*three, "- Apollo moved [relation]"]))
    assert codes(added) == ["SCHEMA_VALIDATION_FAILED"]
    assert [p["line"] for p in problems(added)] == [4]
    reworded = await edit(
        client, ws, page, "\n".join(["- Apollo ships in May [relation]", *three[1:]])
    )
    assert codes(reworded) == ["SCHEMA_VALIDATION_FAILED"]
    # Nor may the Dreamer add one.
    dreamt = await refused(write_page(pool, ws, page, "\n".join([*three, line("Dreamt")])))
    assert dreamt.code is Code.SCHEMA_VALIDATION_FAILED
    assert await read(client, ws, page) == shown

    # Deleting lines works, by key or by an edit that only drops lines.
    key = shown["souvenirs"][2]["key"]
    deleted = data(await gql(client, ws.tokens["member"], DELETE, {"id": page, "key": key}))
    assert deleted["deleteSouvenir"]["content"] == "\n".join(three[:2])
    dropped = data(await edit(client, ws, page, three[0]))["editMemoryPage"]
    assert dropped["content"] == three[0]
    assert dropped["souvenirs"][0]["key"] == shown["souvenirs"][0]["key"]
    # And no new page can be made on it once the old one is gone.
    await gql(
        client, ws.tokens["member"], DELETE, {"id": page, "key": dropped["souvenirs"][0]["key"]}
    )
    again = await refused(make_page(pool, ws, "record", apollo, line("Apollo again")))
    assert again.code is Code.SCHEMA_VALIDATION_FAILED


# The workspace profile's mission ---------------------------------------------------------------

MISSION_TEXT = "Retenir ce que les clients décident.\nJamais la vie privée."


async def test_memory_mission_returns_the_mission_section(client, pool, ws):
    token = ws.tokens["member"]
    assert data(await gql(client, token, MISSION))["memoryMission"] is None
    content = "\n".join(
        ["## Mission mémoire", MISSION_TEXT, "", "## Règles", line("Tutoyer", "consigne")]
    )
    page = await make_page(pool, ws, "workspace", None, content)
    assert data(await gql(client, token, MISSION))["memoryMission"] == MISSION_TEXT
    shown = await read(client, ws, page)
    assert shown["mission"] == MISSION_TEXT and shown["content"] == content
    # An API key whose role does not read memory reads no mission.
    assert data(await gql(client, ws.tokens["api_key"], MISSION))["memoryMission"] is None


async def test_free_text_only_inside_the_workspace_profiles_mission(pool, ws):
    _, acme = await record(pool, ws)
    mission = ["## Mission mémoire", MISSION_TEXT]
    outside = [*mission, "", "Free text after the blank line", line("Tutoyer", "consigne")]
    error = await refused(make_page(pool, ws, "workspace", None, "\n".join(outside)))
    assert error.code is Code.SCHEMA_VALIDATION_FAILED
    assert [p.line for p in error.problems] == [5]
    under = ["## Règles", "Free text under another heading", line("Tutoyer", "consigne")]
    error = await refused(make_page(pool, ws, "workspace", None, "\n".join(under)))
    assert [p.line for p in error.problems] == [2]
    for kind, about in (("record", acme), ("member", ws.members["member"])):
        error = await refused(
            make_page(pool, ws, kind, about, "\n".join([*mission, "", line("A fact")]))
        )
        assert error.code is Code.SCHEMA_VALIDATION_FAILED
        # The two lines of the mission's text.
        assert sorted({p.line for p in error.problems}) == [2, 3]


async def test_a_deeper_heading_in_the_mission_is_the_missions_and_never_rewritten(
    client, pool, ws
):
    """DESIGN §6: the section runs to the first blank line or the next '##' heading; a '###'
    line and the text under it belong to it, are kept as written and never rewritten."""
    mission = ["## Mission mémoire", "Retenir les décisions.", "### Priorités", "Les clients."]
    content = "\n".join([*mission, "", line("Tutoyer", "consigne")])
    page = await make_page(pool, ws, "workspace", None, content)
    shown = await read(client, ws, page)
    assert shown["mission"] == "Retenir les décisions.\n### Priorités\nLes clients."
    assert shown["content"] == content
    rewritten = content.replace("Les clients.", "Les fournisseurs.")
    error = await refused(write_page(pool, ws, page, rewritten))
    assert error.code is Code.SCHEMA_VALIDATION_FAILED
    assert "never rewrites it" in error.problems[0].message


async def test_an_admin_edits_the_mission_by_hand(client, pool, ws, today):
    content = "\n".join(["## Mission mémoire", MISSION_TEXT, "", line("Tutoyer", "consigne")])
    page = await make_page(pool, ws, "workspace", None, content)
    key = (await read(client, ws, page))["souvenirs"][0]["key"]
    changed = content.replace("Jamais la vie privée.", "Jamais la santé.")
    edited = data(await edit(client, ws, page, changed, who="admin"))["editMemoryPage"]
    assert edited["mission"] == "Retenir ce que les clients décident.\nJamais la santé."
    assert edited["souvenirs"][0]["key"] == key
    assert data(await gql(client, ws.tokens["member"], MISSION))["memoryMission"] == (
        "Retenir ce que les clients décident.\nJamais la santé."
    )
    # The section ends at the next heading too.
    short = "\n".join(["## Mission mémoire", "Court.", "## Règles", line("Tutoyer", "consigne")])
    edited = data(await edit(client, ws, page, short, who="admin"))["editMemoryPage"]
    assert edited["mission"] == "Court." and edited["souvenirs"][0]["key"] == key
    refused_member = await edit(client, ws, page, changed, who="member")
    assert codes(refused_member) == ["FORBIDDEN"]
