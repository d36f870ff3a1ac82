"""What an agent reads each turn (DESIGN §7), through GraphQL `turnContext` as a frontend calls
it: which records a turn is about (mentions, the attached record, the person's profile; in that
order of signal; three profile records at most), cards read as the person the turn acts for
(no card for a record they cannot read, no souvenirs without memory access, a closed source
unlinked), the 120-character cut, 8 values and 5 related, the last change, the 4,000-character
budget on both sides of its limit, the replay of a message's cards, and the profiles snapshot
kept per conversation."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg
import httpx
import pytest

from db import identity
from db import records as db_records
from db.pool import begin_workspace
from resolvers.common import ids
from resolvers.common.principals import issue_token, principal_for_token
from resolvers.records import trash
from resolvers.records.workspaces import create_object, grant_standard_roles
from resolvers.turns.cards import CARD_BUDGET_CHARS, MAX_MENTIONS
from tests.factories import (
    Workspace,
    agent_id,
    codes,
    company,
    gql,
    load_records,
    local,
    make_page,
    private_deal,
    write_page,
)

CARD_FIELDS = (
    "recordId label object objectName signal values { attribute title value } "
    "related { recordId label object attribute direction } "
    "lastChange { actorName at fields } souvenirs { key line } profileSouvenirs { key line } text"
)
TURN = (
    "query($input: TurnInput!) { turnContext(input: $input) { replayed text "
    "profiles { workspace person agent } "
    "budget { limit used dropped { recordId kind key reason } } "
    "cards { " + CARD_FIELDS + " } } }"
)

# Who each token acts for in a turn (an API key acts for no one).
ACTS_FOR = {
    "admin": "admin",
    "member": "member",
    "viewer": "viewer",
    "other": "other",
    "agent": "member",
    "mcp_client": "member",
}


# Helpers -----------------------------------------------------------------------------------


async def turn(
    client: httpx.AsyncClient, token: str, message: str = "", **given: Any
) -> httpx.Response:
    """Ask for a turn's context the way a frontend does."""
    return await gql(client, token, TURN, {"input": {"message": message, **given}})


def context(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    assert "errors" not in body, body
    found: dict[str, Any] = body["data"]["turnContext"]
    return found


async def ask(client: httpx.AsyncClient, token: str, message: str = "", **given: Any) -> Any:
    """The turn's context (the request must succeed)."""
    return context(await turn(client, token, message, **given))


def mention(gid: str, label: str = "Rec") -> str:
    return f"@[{label}](record:{gid})"


def souvenir(text: str, day: str = "2026-10-02", author: str = "Claire", source: str = "") -> str:
    """A souvenir line in stored form (``source``: record:<id> or conversation:<id>)."""
    arrow = f" → {source}" if source else ""
    return f"- {text}{arrow} — {author}, {day} [relation]"


def about(gid: str, label: str, text: str, day: str = "2026-10-02", source: str = "") -> str:
    """A souvenir of a member's profile about a record, in stored form."""
    arrow = f" → {source}" if source else ""
    return f"- @[{label}](record:{gid}) {text}{arrow} — Member, {day} [relation]"


async def companies(pool: asyncpg.Pool, ws: Workspace, *labels: str, who: str = "admin") -> list:
    return await load_records(
        pool, ws.tokens[who], [{"object": "companies", "label": label} for label in labels]
    )


async def record_page(pool: asyncpg.Pool, ws: Workspace, gid: str, *lines: str) -> str:
    return await make_page(pool, ws, "record", local(ws, gid), "\n".join(lines), name="Page")


async def profile(pool: asyncpg.Pool, ws: Workspace, who: str, *lines: str) -> str:
    """``who``'s member profile, written by the workspace."""
    content = "\n".join(lines)
    return await make_page(pool, ws, "member", ws.members[who], content, name=who.title())


def labels(found: dict[str, Any]) -> list[str]:
    return [card["label"] for card in found["cards"]]


def card_ids(found: dict[str, Any]) -> list[str]:
    return [card["recordId"] for card in found["cards"]]


def lines_of(card: dict[str, Any], field: str = "souvenirs") -> list[str]:
    return [s["line"] for s in card[field]]


def assert_consistent(found: dict[str, Any]) -> None:
    """The turn's text is its cards' texts, and the budget counts it."""
    assert found["text"] == "\n\n".join(card["text"] for card in found["cards"])
    assert found["budget"]["used"] == len(found["text"]) <= found["budget"]["limit"]
    assert found["budget"]["limit"] == CARD_BUDGET_CHARS


# Which records a turn is about -------------------------------------------------------------


async def test_a_mention_makes_a_card(pool, client, ws):
    acme = await company(pool, ws, "Acme", domain="https://acme.example", employees=1200)
    await record_page(pool, ws, acme, souvenir("Pays late"))
    found = await ask(client, ws.tokens["member"], f"How is {mention(acme, 'Acme')} doing?")
    [card] = found["cards"]
    assert card["recordId"] == acme
    assert card["label"] == "Acme"
    assert card["object"] == "companies"
    assert card["objectName"] == "Company"
    assert card["signal"] == "MENTION"
    assert card["values"] == [
        {"attribute": "domain", "title": "Domain", "value": "https://acme.example"},
        {"attribute": "employees", "title": "Employees", "value": "1200"},
    ]
    assert lines_of(card) == [souvenir("Pays late")]
    assert card["profileSouvenirs"] == []
    assert found["replayed"] is False
    assert found["budget"]["dropped"] == []
    assert card["text"].startswith(
        "## Acme (company)\n- Domain: https://acme.example\n- Employees: 1200\nLast change: Admin, "
    )
    assert card["text"].endswith("\nSouvenirs:\n" + souvenir("Pays late"))
    assert_consistent(found)


async def test_a_message_about_nothing_has_no_card(pool, client, ws):
    await company(pool, ws, "Acme")
    found = await ask(client, ws.tokens["member"], "How is Acme doing?")
    assert found["cards"] == []
    assert found["text"] == ""
    assert found["budget"] == {"limit": CARD_BUDGET_CHARS, "used": 0, "dropped": []}


async def test_the_attached_record_makes_a_card(pool, client, ws):
    acme = await company(pool, ws, "Acme")
    found = await ask(client, ws.tokens["member"], "And this one?", attachedRecordId=acme)
    [card] = found["cards"]
    assert (card["recordId"], card["signal"]) == (acme, "ATTACHED")


async def test_profile_souvenirs_about_a_record_make_a_card(pool, client, ws):
    acme = await company(pool, ws, "Acme")
    await record_page(pool, ws, acme, souvenir("Pays late"))
    await profile(
        pool,
        ws,
        "member",
        souvenir("I like tea", author="Member"),
        about(acme, "Acme", "I call them on Mondays"),
    )
    found = await ask(client, ws.tokens["member"], "Anything new?")
    [card] = found["cards"]
    assert (card["recordId"], card["signal"]) == (acme, "PROFILE")
    assert lines_of(card) == [souvenir("Pays late")]
    # On the record's own card the reference would only repeat it: left out.
    assert lines_of(card, "profileSouvenirs") == [
        "- I call them on Mondays — Member, 2026-10-02 [relation]"
    ]
    assert card["text"].endswith(
        "Your souvenirs:\n- I call them on Mondays — Member, 2026-10-02 [relation]"
    )
    # Another person's profile makes no card for them.
    assert (await ask(client, ws.tokens["other"], "Anything new?"))["cards"] == []


async def test_the_order_of_signal(pool, client, ws):
    acme, globex, initech, umbrella = await companies(
        pool, ws, "Acme", "Globex", "Initech", "Umbrella"
    )
    await profile(pool, ws, "member", about(umbrella, "Umbrella", "Merging", day="2026-10-09"))
    message = f"Compare {mention(globex)} with {mention(acme)}"
    found = await ask(client, ws.tokens["member"], message, attachedRecordId=initech)
    assert labels(found) == ["Globex", "Acme", "Initech", "Umbrella"]
    assert [c["signal"] for c in found["cards"]] == ["MENTION", "MENTION", "ATTACHED", "PROFILE"]
    assert_consistent(found)


async def test_three_profile_records_at_most_newest_souvenir_day_first(pool, client, ws):
    one, two, three, four = await companies(pool, ws, "One", "Two", "Three", "Four")
    await profile(
        pool,
        ws,
        "member",
        about(one, "One", "First", day="2026-10-01"),
        about(two, "Two", "Second", day="2026-10-04"),
        about(three, "Three", "Old news", day="2026-09-01"),
        about(three, "Three", "Third", day="2026-10-02"),
        about(four, "Four", "Fourth", day="2026-10-03"),
    )
    found = await ask(client, ws.tokens["member"], "Hello")
    # A record's newest souvenir day ranks it: Three (2026-10-02) before One (2026-10-01).
    assert labels(found) == ["Two", "Four", "Three"]
    assert {c["signal"] for c in found["cards"]} == {"PROFILE"}
    three_card = found["cards"][2]
    assert lines_of(three_card, "profileSouvenirs") == [
        "- Old news — Member, 2026-09-01 [relation]",
        "- Third — Member, 2026-10-02 [relation]",
    ]
    # A mentioned record is no profile record: three others still come.
    found = await ask(client, ws.tokens["member"], f"And {mention(two)}?")
    assert labels(found) == ["Two", "Four", "Three", "One"]
    assert [c["signal"] for c in found["cards"]] == ["MENTION", "PROFILE", "PROFILE", "PROFILE"]
    # Its card still carries the person's souvenirs about it.
    assert lines_of(found["cards"][0], "profileSouvenirs") == [
        "- Second — Member, 2026-10-04 [relation]"
    ]


async def test_the_profile_records_are_those_the_person_reads(pool, client, ws):
    """A reference to a record the person cannot read takes no place among the three."""
    one, two, three = await companies(pool, ws, "One", "Two", "Three")
    secret = await private_deal(pool, ws, "admin", "Secret deal")
    await profile(
        pool,
        ws,
        "member",
        about(one, "One", "First", day="2026-10-01"),
        about(two, "Two", "Second", day="2026-10-02"),
        about(three, "Three", "Third", day="2026-10-03"),
        about(secret, "Secret deal", "Hush", day="2026-10-09"),
    )
    found = await ask(client, ws.tokens["member"], "Hello")
    assert labels(found) == ["Three", "Two", "One"]
    assert "Secret" not in str(found) and "Hush" not in str(found)


async def test_a_record_named_several_ways_gives_one_card(pool, client, ws):
    acme, globex = await companies(pool, ws, "Acme", "Globex")
    await profile(pool, ws, "member", about(acme, "Acme", "I call them on Mondays"))
    message = f"{mention(acme, 'Acme')} and {mention(globex)}, again {mention(acme, 'ACME')}"
    found = await ask(client, ws.tokens["member"], message, attachedRecordId=acme)
    assert card_ids(found) == [acme, globex]
    assert [c["signal"] for c in found["cards"]] == ["MENTION", "MENTION"]
    assert lines_of(found["cards"][0], "profileSouvenirs") == [
        "- I call them on Mondays — Member, 2026-10-02 [relation]"
    ]
    found = await ask(client, ws.tokens["member"], "", attachedRecordId=acme)
    assert card_ids(found) == [acme]
    assert found["cards"][0]["signal"] == "ATTACHED"


async def test_a_mention_that_names_no_readable_record_is_ignored(pool, client, ws, ws2):
    acme = await company(pool, ws, "Acme")
    secret = await private_deal(pool, ws, "admin", "Secret deal")
    trashed = await company(pool, ws, "Trashed Co")
    async with pool.acquire() as conn, conn.transaction():
        admin = await principal_for_token(conn, ws.tokens["admin"])
        assert admin is not None
        await trash.set_trashed(conn, admin, local(ws, trashed), True)
    [rival] = await companies(pool, ws2, "Rival Co")
    page = await record_page(pool, ws, acme, souvenir("Pays late"))
    page_record = ws.gid(ids.decode(page, "MemoryPage", ws.id))
    missing = ws.gid(uuid.uuid4())
    unreadable = [
        mention(secret, "Secret"),  # admin's private deal
        mention(missing, "Missing"),  # no such record
        mention("bm90LWFuLWlk", "Malformed"),  # base64 of "not-an-id"
        mention("!!!", "Broken"),  # not even the markup's shape
        mention(rival, "Rival"),  # another workspace's record
        mention(ws.gid(local(ws2, rival)), "Rival here"),  # its id, as if in this workspace
        mention(ws.gid(ws.members["admin"], "Member"), "Admin"),  # a member, not a record
        mention(page, "Page"),  # a memory page's id
        mention(page_record, "Memory"),  # a memory record: no record API reads it
        mention(trashed, "Trashed"),  # in the trash
    ]
    found = await ask(client, ws.tokens["member"], " ".join(unreadable))
    assert found["cards"] == []
    assert found["budget"] == {"limit": CARD_BUDGET_CHARS, "used": 0, "dropped": []}
    message = " ".join([*unreadable[:5], mention(acme, "Acme"), *unreadable[5:]])
    response = await turn(client, ws.tokens["member"], message)
    assert card_ids(context(response)) == [acme]
    for text in ("Secret", "Rival", "Trashed"):
        assert text not in response.text


async def test_an_attached_record_the_person_cannot_read_gives_no_card(pool, client, ws):
    secret = await private_deal(pool, ws, "admin", "Secret deal")
    found = await ask(client, ws.tokens["member"], "This one?", attachedRecordId=secret)
    assert found["cards"] == []
    missing = ws.gid(uuid.uuid4())
    found = await ask(client, ws.tokens["member"], "This one?", attachedRecordId=missing)
    assert found["cards"] == []


async def test_a_malformed_attached_record_id_is_refused(pool, client, ws):
    response = await turn(client, ws.tokens["member"], "Hi", attachedRecordId="nope")
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]


# A card for a record the person cannot read never appears -----------------------------------


@pytest.mark.parametrize("who", ["admin", "member", "agent", "mcp_client", "other", "viewer"])
async def test_no_card_for_a_record_the_person_cannot_read(pool, client, ws, who):
    """Admin's private deal on Acme, shared with nobody: a card for it only for Admin, by any
    way a turn may name it, and never among Acme's related records for anyone else."""
    acme = await company(pool, ws, "Acme")
    secret = await private_deal(
        pool, ws, "admin", "Secret deal", relations={"company": {"id": acme}}
    )
    for person in ("member", "other", "viewer", "admin"):
        await profile(pool, ws, person, about(secret, "Secret deal", "Hush"))
    message = f"{mention(secret, 'Secret deal')} {mention(acme, 'Acme')}"
    response = await turn(client, ws.tokens[who], message, attachedRecordId=secret)
    found = context(response)
    if ACTS_FOR[who] == "admin":
        assert card_ids(found) == [secret, acme]
        assert found["cards"][0]["signal"] == "MENTION"
        assert [r["recordId"] for r in found["cards"][1]["related"]] == [secret]
        return
    assert card_ids(found) == [acme]
    assert found["cards"][0]["related"] == []
    assert "Secret" not in response.text
    assert "Hush" not in response.text
    assert secret not in response.text
    # Attached alone, or only on the profile: still nothing.
    assert (await ask(client, ws.tokens[who], "", attachedRecordId=secret))["cards"] == []
    assert (await ask(client, ws.tokens[who], "Hello"))["cards"] == []


async def test_an_api_key_has_no_turn(pool, client, ws):
    acme = await company(pool, ws, "Acme")
    response = await turn(client, ws.tokens["api_key"], mention(acme), attachedRecordId=acme)
    assert codes(response) == ["FORBIDDEN"]
    assert "Acme" not in response.text


async def test_a_turn_acts_for_the_tokens_person(pool, client, ws):
    member = ws.gid(ws.members["member"], "Member")
    other = ws.gid(ws.members["other"], "Member")
    assert codes(await turn(client, ws.tokens["member"], "Hi", personId=other)) == ["FORBIDDEN"]
    assert codes(await turn(client, ws.tokens["agent"], "Hi", personId=other)) == ["FORBIDDEN"]
    for who in ("member", "agent", "mcp_client"):
        await ask(client, ws.tokens[who], "Hi", personId=member)


async def test_an_agent_reads_its_own_turns(pool, client, ws):
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        helper = await identity.insert_actor(
            conn, "agent", uuid.uuid4(), "Helper", ws.members["member"]
        )
    response = await turn(client, ws.tokens["agent"], "Hi", agentId=ws.gid(helper.id, "Agent"))
    assert codes(response) == ["FORBIDDEN"]
    scout = ws.gid(await agent_id(pool, ws), "Agent")
    await ask(client, ws.tokens["agent"], "Hi", agentId=scout)


# Values, related records, the last change ---------------------------------------------------


async def test_principal_values_are_cut_to_120_characters(pool, client, ws):
    domain = "https://" + "d" * 112
    industry = "Heavy " + "i" * 115
    assert (len(domain), len(industry)) == (120, 121)
    acme = await company(pool, ws, "Acme", domain=domain, industry=industry, employees=12.0)
    found = await ask(client, ws.tokens["member"], mention(acme))
    assert found["cards"][0]["values"] == [
        {"attribute": "domain", "title": "Domain", "value": domain},
        {"attribute": "industry", "title": "Industry", "value": industry[:119] + "…"},
        {"attribute": "employees", "title": "Employees", "value": "12"},
    ]
    assert len(found["cards"][0]["values"][1]["value"]) == 120
    assert f"\n- Industry: {industry[:119]}…\n" in found["text"]


async def test_a_value_is_flattened_to_one_line(pool, client, ws):
    acme = await company(pool, ws, "Acme", industry="  Heavy\n\tindustry  ")
    found = await ask(client, ws.tokens["member"], mention(acme))
    assert found["cards"][0]["values"] == [
        {"attribute": "industry", "title": "Industry", "value": "Heavy industry"}
    ]


async def make_projects(pool: asyncpg.Pool, ws: Workspace) -> None:
    """A `projects` object with ten principal text attributes (p01 to p10, ranked in that
    order) and one that is not principal; the standard roles' rights on it."""
    attributes: list[tuple[str, str, str, str | None, int | None]] = [
        (f"p{n:02d}", f"P{n:02d}", "text", None, n) for n in range(10, 0, -1)
    ]
    attributes.append(("remark", "Remark", "text", None, None))
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        projects = await create_object(conn, "projects", "Project", "Projects", attributes)
        await grant_standard_roles(conn, ws.roles, projects)


async def project(pool: asyncpg.Pool, ws: Workspace, label: str, values: dict[str, Any]) -> str:
    [made] = await load_records(
        pool, ws.tokens["admin"], [{"object": "projects", "label": label, "values": values}]
    )
    return made


async def test_eight_principal_values_at_most_in_rank_order(pool, client, ws):
    await make_projects(pool, ws)
    values = {f"p{n:02d}": f"value {n} " + "v" * 150 for n in range(1, 11)}
    made = await project(pool, ws, "Apollo", {**values, "remark": "not principal"})
    [card] = (await ask(client, ws.tokens["member"], mention(made)))["cards"]
    assert [v["attribute"] for v in card["values"]] == [f"p{n:02d}" for n in range(1, 9)]
    assert [v["title"] for v in card["values"]] == [f"P{n:02d}" for n in range(1, 9)]
    for n, value in enumerate(card["values"], start=1):
        assert value["value"] == (f"value {n} " + "v" * 150)[:119] + "…"
    assert "not principal" not in card["text"]


async def test_eight_principal_values_when_the_first_ones_are_empty(pool, client, ws):
    """The first two principal attributes are empty: the card shows the eight principal
    values the record has (p03 to p10), not six."""
    await make_projects(pool, ws)
    made = await project(pool, ws, "Gemini", {f"p{n:02d}": f"v{n}" for n in range(3, 11)})
    [card] = (await ask(client, ws.tokens["member"], mention(made)))["cards"]
    assert [v["attribute"] for v in card["values"]] == [f"p{n:02d}" for n in range(3, 11)]


async def test_five_related_records_at_most_newest_first(pool, client, ws):
    acme = await company(pool, ws, "Acme")
    contacts = []
    for n in range(1, 8):
        [made] = await load_records(
            pool,
            ws.tokens["admin"],
            [
                {
                    "object": "contacts",
                    "label": f"Contact {n}",
                    "relations": {"company": {"id": acme}},
                }
            ],
        )
        contacts.append(made)
    [card] = (await ask(client, ws.tokens["member"], mention(acme)))["cards"]
    assert card["related"] == [
        {
            "recordId": contacts[n - 1],
            "label": f"Contact {n}",
            "object": "contact",
            "attribute": "company",
            "direction": "from",
        }
        for n in (7, 6, 5, 4, 3)
    ]
    assert (
        "\nRelated: Contact 7 (contact, company), Contact 6 (contact, company), Contact 5"
        " (contact, company), Contact 4 (contact, company), Contact 3 (contact, company)\n"
        in card["text"]
    )


async def test_related_records_it_points_to_come_first(pool, client, ws):
    acme = await company(pool, ws, "Acme")
    [claire] = await load_records(
        pool,
        ws.tokens["admin"],
        [{"object": "contacts", "label": "Claire", "relations": {"company": {"id": acme}}}],
    )
    [deal] = await load_records(
        pool,
        ws.tokens["admin"],
        [
            {
                "object": "deals",
                "label": "Renewal",
                "relations": {"contact": {"id": claire}, "company": {"id": acme}},
            }
        ],
    )
    [task] = await load_records(
        pool,
        ws.tokens["admin"],
        [{"object": "tasks", "label": "Call back", "relations": {"deal": {"id": deal}}}],
    )
    [card] = (await ask(client, ws.tokens["member"], mention(deal)))["cards"]
    assert [
        (r["recordId"], r["object"], r["attribute"], r["direction"]) for r in card["related"]
    ] == [
        (acme, "company", "company", "to"),
        (claire, "contact", "contact", "to"),
        (task, "task", "deal", "from"),
    ]


async def test_the_last_change(pool, client, ws):
    acme = await company(pool, ws, "Acme", industry="Energy")
    [card] = (await ask(client, ws.tokens["member"], mention(acme)))["cards"]
    assert card["lastChange"]["actorName"] == "Admin"
    assert card["lastChange"]["fields"] == ["label", "industry"]
    await load_records(
        pool,
        ws.tokens["member"],
        [{"object": "companies", "id": acme, "label": "Acme Corp", "values": {"industry": "Oil"}}],
    )
    [card] = (await ask(client, ws.tokens["member"], mention(acme)))["cards"]
    change = card["lastChange"]
    assert change["actorName"] == "Member"
    assert change["fields"] == ["label", "industry"]
    assert card["label"] == "Acme Corp"
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        changed_at = await conn.fetchval(
            "SELECT changed_at FROM record_changes WHERE record_id = $1 ORDER BY id DESC LIMIT 1",
            local(ws, acme),
        )
    assert datetime.fromisoformat(change["at"]) == changed_at
    day = changed_at.date().isoformat()
    assert f"\nLast change: Member, {day} (label, industry)" in card["text"]


# Souvenirs need memory access ---------------------------------------------------------------


async def companies_reader(pool: asyncpg.Pool, ws: Workspace) -> tuple[UUID, str]:
    """A member whose role reads companies only (no memory, no contacts); their token."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        role = await identity.insert_role(conn, uuid.uuid4(), "companies reader")
        await identity.upsert_role_permission(
            conn,
            role,
            ws.objects["companies"],
            read=True,
            create=False,
            update=False,
            delete=False,
        )
        row = await identity.insert_member(conn, uuid.uuid4(), "Reader", "reader@x.example", role)
        token = await issue_token(conn, "member", member_id=row.id, purpose="test")
    return row.id, token


async def test_a_role_without_memory_read_gets_cards_without_souvenirs(pool, client, ws):
    acme, globex = await companies(pool, ws, "Acme", "Globex")
    await load_records(
        pool,
        ws.tokens["admin"],
        [{"object": "contacts", "label": "Claire", "relations": {"company": {"id": acme}}}],
    )
    await record_page(pool, ws, acme, souvenir("Pays late"))
    reader, token = await companies_reader(pool, ws)
    await make_page(
        pool,
        ws,
        "member",
        reader,
        "\n".join(
            [
                souvenir("I like tea", author="Reader"),
                about(acme, "Acme", "I call them").replace("Member", "Reader"),
                about(globex, "Globex", "Merging").replace("Member", "Reader"),
            ]
        ),
        name="Reader",
    )
    await make_page(pool, ws, "workspace", None, souvenir("Be polite"), name="Workspace")
    response = await turn(client, token, mention(acme, "Acme"), conversationId="c-reader")
    found = context(response)
    [card] = found["cards"]
    assert card["recordId"] == acme
    assert card["souvenirs"] == []
    assert card["profileSouvenirs"] == []
    assert card["related"] == []  # contacts are closed to this role
    assert "Souvenirs" not in card["text"]
    assert found["profiles"] == {"workspace": None, "person": None, "agent": None}
    for text in ("Pays late", "I call them", "Merging", "tea", "polite", "Globex"):
        assert text not in response.text
    # An agent acting for that person reads the same cards.
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        scout = await conn.fetchval("SELECT id FROM agents WHERE name = 'Scout'")
        agent_token = await issue_token(
            conn, "agent", member_id=reader, agent_id=scout, purpose="test"
        )
    by_agent = await ask(client, agent_token, mention(acme, "Acme"))
    assert by_agent["cards"] == found["cards"]
    assert by_agent["profiles"] == {"workspace": None, "person": None, "agent": None}
    # The same turn for a member whose role reads memory has them.
    found = await ask(client, ws.tokens["member"], mention(acme, "Acme"))
    assert lines_of(found["cards"][0]) == [souvenir("Pays late")]


# The source-link rule ------------------------------------------------------------------------


async def test_a_source_the_person_cannot_open_shows_without_its_link(pool, client, ws):
    acme = await company(pool, ws, "Acme")
    deal = await private_deal(pool, ws, "admin", "Quiet deal")
    other = ws.gid(ws.members["other"], "Member")
    await record_page(
        pool,
        ws,
        acme,
        souvenir("Wants a discount", day="2026-10-24", author="Admin", source=f"record:{deal}"),
        souvenir("Prefers calls", day="2026-10-25", author="Other", source=f"conversation:{other}"),
    )
    for who in ("member", "agent", "mcp_client", "viewer"):
        response = await turn(client, ws.tokens[who], mention(acme, "Acme"))
        [card] = context(response)["cards"]
        assert lines_of(card) == [
            "- Wants a discount → deal from Admin, 2026-10-24 — Admin, 2026-10-24 [relation]",
            "- Prefers calls → conversation from Other, 2026-10-25 — Other, 2026-10-25 [relation]",
        ]
        for hidden in (deal, other, local(ws, deal).hex, "record:", "conversation:"):
            assert hidden not in response.text, (who, hidden)
    [card] = (await ask(client, ws.tokens["admin"], mention(acme, "Acme")))["cards"]
    assert lines_of(card)[0] == (
        f"- Wants a discount → record:{deal} — Admin, 2026-10-24 [relation]"
    )
    assert lines_of(card)[1] == (
        "- Prefers calls → conversation from Other, 2026-10-25 — Other, 2026-10-25 [relation]"
    )
    [card] = (await ask(client, ws.tokens["other"], mention(acme, "Acme")))["cards"]
    assert lines_of(card) == [
        "- Wants a discount → deal from Admin, 2026-10-24 — Admin, 2026-10-24 [relation]",
        f"- Prefers calls → conversation:{other} — Other, 2026-10-25 [relation]",
    ]


async def test_the_link_rule_holds_on_the_persons_own_souvenirs(pool, client, ws):
    acme = await company(pool, ws, "Acme")
    deal = await private_deal(pool, ws, "admin", "Quiet deal")
    await profile(
        pool,
        ws,
        "member",
        about(acme, "Acme", "Budget frozen", day="2026-10-24", source=f"record:{deal}"),
    )
    response = await turn(client, ws.tokens["member"], mention(acme, "Acme"))
    [card] = context(response)["cards"]
    assert lines_of(card, "profileSouvenirs") == [
        "- Budget frozen → deal from Admin, 2026-10-24 — Member, 2026-10-24 [relation]"
    ]
    assert deal not in response.text


# The budget ----------------------------------------------------------------------------------


FILLER = "Filler "


async def budget_setup(pool: asyncpg.Pool, ws: Workspace) -> dict[str, Any]:
    """Three cards: Initech (mentioned; a page of 15 souvenirs after a filler line whose length
    the test sets), Acme (mentioned; one page souvenir, one of the person's) and Globex
    (attached; the same)."""
    initech, acme, globex = await companies(pool, ws, "Initech", "Acme", "Globex")
    bulk = [souvenir(f"Fact {n:02d} " + "f" * 120) for n in range(15)]
    made: dict[str, Any] = {"initech": initech, "acme": acme, "globex": globex, "bulk": bulk}
    made["page"] = await record_page(pool, ws, initech, souvenir(FILLER + "x"), *bulk)
    await record_page(pool, ws, acme, souvenir("Acme pays late"))
    await record_page(pool, ws, globex, souvenir("Globex pays early"))
    await profile(
        pool,
        ws,
        "member",
        about(acme, "Acme", "I call Acme on Mondays"),
        about(globex, "Globex", "I mail Globex on Fridays"),
    )
    made["message"] = f"{mention(initech, 'Initech')} and {mention(acme, 'Acme')}"
    return made


async def with_filler(
    pool: asyncpg.Pool, client: httpx.AsyncClient, ws: Workspace, made: dict[str, Any], n: int
) -> dict[str, Any]:
    """The turn once the filler line holds ``n`` x's."""
    lines = [souvenir(FILLER + "x" * n), *made["bulk"]]
    await write_page(pool, ws, made["page"], "\n".join(lines))
    return await ask(client, ws.tokens["member"], made["message"], attachedRecordId=made["globex"])


def dropped(found: dict[str, Any]) -> list[tuple[str, str, str | None, str]]:
    return [(d["recordId"], d["kind"], d["key"], d["reason"]) for d in found["budget"]["dropped"]]


async def test_the_budget_at_4000_characters_and_one_past(pool, client, ws):
    made = await budget_setup(pool, ws)
    first = await with_filler(pool, client, ws, made, 1)
    assert first["budget"]["dropped"] == []
    assert labels(first) == ["Initech", "Acme", "Globex"]
    short = CARD_BUDGET_CHARS - first["budget"]["used"]
    assert short > 0
    _, acme, globex = first["cards"]
    [acme_mine] = acme["profileSouvenirs"]
    [globex_page] = globex["souvenirs"]
    [globex_mine] = globex["profileSouvenirs"]

    # Exactly 4,000: everything kept.
    full = await with_filler(pool, client, ws, made, 1 + short)
    assert full["budget"] == {"limit": CARD_BUDGET_CHARS, "used": CARD_BUDGET_CHARS, "dropped": []}
    assert len(full["text"]) == CARD_BUDGET_CHARS
    assert full["cards"][1:] == first["cards"][1:]
    assert_consistent(full)

    # One past: the last signal's own souvenir goes, whole.
    past = await with_filler(pool, client, ws, made, 2 + short)
    assert dropped(past) == [(made["globex"], "souvenir", globex_mine["key"], "budget")]
    assert past["cards"][2]["profileSouvenirs"] == []
    assert past["cards"][2]["souvenirs"] == [globex_page]
    assert past["cards"][1] == full["cards"][1]
    assert lines_of(past["cards"][0])[1:] == lines_of(full["cards"][0])[1:] == made["bulk"]
    assert past["text"] == full["text"].replace(
        "\nYour souvenirs:\n" + globex_mine["line"], ""
    ).replace(souvenir(FILLER + "x" * (1 + short)), souvenir(FILLER + "x" * (2 + short)))
    assert past["budget"]["used"] == len(past["text"]) < CARD_BUDGET_CHARS
    assert_consistent(past)

    # Further past: the last card would not fit even without its souvenirs, so it goes whole
    # (its souvenirs with it) before the card before it loses anything.
    further = len("\nYour souvenirs:\n" + globex_mine["line"])
    further += len("\nSouvenirs:\n" + globex_page["line"])
    beyond = await with_filler(pool, client, ws, made, 2 + short + further)
    assert dropped(beyond) == [(made["globex"], "card", None, "budget")]
    kept_initech, kept_acme = beyond["cards"]
    assert kept_acme["souvenirs"] == acme["souvenirs"]
    assert kept_acme["profileSouvenirs"] == [acme_mine]
    assert lines_of(kept_initech)[1:] == made["bulk"]
    for card in beyond["cards"]:
        for line in lines_of(card) + lines_of(card, "profileSouvenirs"):
            assert line in beyond["text"].split("\n")
    assert_consistent(beyond)


async def test_whole_cards_go_from_the_last(pool, client, ws):
    await make_projects(pool, ws)
    values = {f"p{n:02d}": "v" * 200 for n in range(1, 11)}
    made = [await project(pool, ws, f"Project {n}", values) for n in range(1, 6)]
    message = " ".join(mention(gid) for gid in made)
    found = await ask(client, ws.tokens["member"], message)
    assert len("\n\n".join(c["text"] for c in found["cards"][:3])) <= CARD_BUDGET_CHARS
    assert labels(found) == ["Project 1", "Project 2", "Project 3"]
    assert dropped(found) == [
        (made[4], "card", None, "budget"),
        (made[3], "card", None, "budget"),
    ]
    assert_consistent(found)


# Replay --------------------------------------------------------------------------------------


async def test_a_message_is_replayed_as_first_written(pool, client, ws):
    acme = await company(pool, ws, "Acme", industry="Energy")
    page = await record_page(pool, ws, acme, souvenir("Pays late"))
    await profile(pool, ws, "member", about(acme, "Acme", "I call them"))
    message = f"How is {mention(acme, 'Acme')}?"
    first = await ask(client, ws.tokens["member"], message, messageId="m1")
    assert first["replayed"] is False
    assert labels(first) == ["Acme"]

    await load_records(
        pool,
        ws.tokens["admin"],
        [{"object": "companies", "id": acme, "label": "Acme Corp", "values": {"industry": "Oil"}}],
    )
    await write_page(pool, ws, page, souvenir("Pays on time now", day="2026-11-02"))
    fresh = await ask(client, ws.tokens["member"], message)
    assert labels(fresh) == ["Acme Corp"]
    assert lines_of(fresh["cards"][0]) == [souvenir("Pays on time now", day="2026-11-02")]

    again = await ask(client, ws.tokens["member"], message, messageId="m1")
    assert again["replayed"] is True
    assert {k: v for k, v in again.items() if k != "replayed"} == {
        k: v for k, v in first.items() if k != "replayed"
    }
    # The stored turn is the message's, whatever is sent with it now, and whoever acts for
    # the same person.
    for who in ("agent", "mcp_client"):
        same = await ask(client, ws.tokens[who], "", messageId="m1")
        assert same["replayed"] is True
        assert same["cards"] == first["cards"]
        assert same["text"] == first["text"]
        assert same["budget"] == first["budget"]


async def test_a_dropped_list_is_replayed_too(pool, client, ws):
    await make_projects(pool, ws)
    values = {f"p{n:02d}": "v" * 200 for n in range(1, 11)}
    made = [await project(pool, ws, f"Project {n}", values) for n in range(1, 5)]
    message = " ".join(mention(gid) for gid in made)
    first = await ask(client, ws.tokens["member"], message, messageId="m-budget")
    assert dropped(first) == [(made[3], "card", None, "budget")]
    await load_records(
        pool,
        ws.tokens["admin"],
        [
            {"object": "projects", "id": gid, "values": {f"p{n:02d}": None for n in range(1, 11)}}
            for gid in made
        ],
    )
    assert dropped(await ask(client, ws.tokens["member"], message)) == []
    again = await ask(client, ws.tokens["member"], message, messageId="m-budget")
    assert again["replayed"] is True
    assert again["budget"] == first["budget"]
    assert again["cards"] == first["cards"]
    assert again["text"] == first["text"]


async def test_message_ids_are_each_persons_own(pool, client, ws):
    """Another member's message id is simply another message: nothing tells it exists, and
    nobody takes it from its person."""
    acme = await company(pool, ws, "Acme")
    await record_page(pool, ws, acme, souvenir("Pays late"))
    first = await ask(client, ws.tokens["member"], mention(acme, "Acme"), messageId="m1")
    for who in ("other", "admin", "viewer"):
        response = await turn(client, ws.tokens[who], "Hello", messageId="m1")
        found = context(response)
        assert found["replayed"] is False
        assert found["cards"] == []
        assert "Acme" not in response.text
        assert "Pays late" not in response.text
        # Their own message, replayed to them as they first read it.
        assert (await ask(client, ws.tokens[who], "", messageId="m1"))["replayed"] is True
    response = await turn(client, ws.tokens["api_key"], "Hello", messageId="m1")
    assert codes(response) == ["FORBIDDEN"]
    # The message is still Member's, replayed as stored.
    again = await ask(client, ws.tokens["member"], "", messageId="m1")
    assert again["replayed"] is True
    assert again["cards"] == first["cards"]


async def test_message_ids_are_per_workspace(pool, client, ws, ws2):
    acme = await company(pool, ws, "Acme")
    await ask(client, ws.tokens["member"], mention(acme, "Acme"), messageId="m1")
    found = await ask(client, ws2.tokens["member"], "Hello", messageId="m1")
    assert found["replayed"] is False
    assert found["cards"] == []


# The profiles snapshot ------------------------------------------------------------------------


async def test_the_profiles_snapshot(pool, client, ws):
    acme = await company(pool, ws, "Acme")
    deal = await private_deal(pool, ws, "admin", "Quiet deal")
    scout = await agent_id(pool, ws)
    await make_page(
        pool,
        ws,
        "workspace",
        None,
        "## Mission mémoire\nKeep it short.\n\n"
        + souvenir("Be polite", author="Admin", source=f"record:{deal}"),
        name="Workspace",
    )
    await profile(
        pool,
        ws,
        "member",
        souvenir("I like tea", author="Member"),
        about(acme, "Acme", "I call them on Mondays"),
        souvenir("I work from Lyon", author="Member", day="2026-10-03"),
    )
    await profile(pool, ws, "other", souvenir("Other likes coffee", author="Other"))
    await make_page(pool, ws, "agent", scout, souvenir("Scout answers in French"), name="Scout")
    expected = {
        "workspace": "## Mission mémoire\nKeep it short.\n\n"
        + "- Be polite → deal from Admin, 2026-10-02 — Admin, 2026-10-02 [relation]",
        "person": souvenir("I like tea", author="Member")
        + "\n"
        + souvenir("I work from Lyon", author="Member", day="2026-10-03"),
        "agent": souvenir("Scout answers in French"),
    }
    found = await ask(client, ws.tokens["agent"], "Hello", conversationId="c1")
    assert found["profiles"] == expected
    # A member's token names the agent; without one there is no agent profile.
    found = await ask(
        client, ws.tokens["member"], "Hello", agentId=ws.gid(scout, "Agent"), conversationId="c2"
    )
    assert found["profiles"] == expected
    found = await ask(client, ws.tokens["mcp_client"], "Hello")
    assert found["profiles"] == {**expected, "agent": None}
    # Another person reads their own profile, and the workspace's as they may read it.
    found = await ask(client, ws.tokens["other"], "Hello")
    assert found["profiles"]["person"] == souvenir("Other likes coffee", author="Other")
    assert found["profiles"]["workspace"] == expected["workspace"]
    found = await ask(client, ws.tokens["admin"], "Hello")
    assert found["profiles"]["person"] is None
    assert found["profiles"]["workspace"] == (
        "## Mission mémoire\nKeep it short.\n\n"
        + souvenir("Be polite", author="Admin", source=f"record:{deal}")
    )


async def test_the_profiles_are_kept_for_the_conversation(pool, client, ws):
    acme = await company(pool, ws, "Acme")
    acme_page = await record_page(pool, ws, acme, souvenir("Pays late"))
    mine = await profile(pool, ws, "member", souvenir("I like tea", author="Member"))
    shared = await make_page(pool, ws, "workspace", None, souvenir("Be polite"), name="Workspace")
    first = await ask(client, ws.tokens["member"], mention(acme), conversationId="c1")
    before = {"workspace": souvenir("Be polite"), "person": souvenir("I like tea", author="Member")}
    assert first["profiles"] == {**before, "agent": None}

    await write_page(pool, ws, mine, souvenir("I like coffee now", author="Member"))
    await write_page(pool, ws, shared, souvenir("Be brief"))
    await write_page(pool, ws, acme_page, souvenir("Pays on time"))

    later = await ask(client, ws.tokens["member"], mention(acme), conversationId="c1")
    assert later["replayed"] is False
    assert later["profiles"] == first["profiles"]
    # The cards are read again each turn.
    assert lines_of(later["cards"][0]) == [souvenir("Pays on time")]
    # Another conversation sees the change.
    after = {
        "workspace": souvenir("Be brief"),
        "person": souvenir("I like coffee now", author="Member"),
    }
    new = await ask(client, ws.tokens["member"], mention(acme), conversationId="c2")
    assert new["profiles"] == {**after, "agent": None}
    # The snapshot is the conversation's, with its person and its agent: another agent (even
    # for the same person) does not read it; another person's "c1" is their own conversation.
    response = await turn(client, ws.tokens["agent"], "", conversationId="c1")
    assert codes(response) == ["FORBIDDEN"]
    assert "tea" not in response.text
    response = await turn(client, ws.tokens["other"], "Hello", conversationId="c1")
    assert context(response)["profiles"]["person"] is None
    assert "tea" not in response.text
    assert (await ask(client, ws.tokens["member"], "", conversationId="c1"))["profiles"] == (
        first["profiles"]
    )


async def test_a_turn_keeps_the_first_twenty_mentions_that_name_a_record(pool, client, ws):
    """At most MAX_MENTIONS mentioned records a turn; malformed or foreign mentions before them
    do not take their places."""
    made = await load_records(
        pool,
        ws.tokens["admin"],
        [{"object": "companies", "label": f"C{n}"} for n in range(MAX_MENTIONS + 3)],
    )
    noise = " ".join(f"@[x](record:not-an-id-{n})" for n in range(5))
    message = noise + " " + " ".join(mention(gid, f"C{n}") for n, gid in enumerate(made))
    found = await ask(client, ws.tokens["member"], message)
    assert MAX_MENTIONS == 20
    assert [c["label"] for c in found["cards"]] == [f"C{n}" for n in range(MAX_MENTIONS)]
    assert found["budget"]["dropped"] == []


async def test_a_page_written_before_its_object_became_a_satellite_is_kept_out_of_cards(
    pool, client, ws
):
    # Seed 000 "Where a souvenir goes": such a page stays readable but is no longer loaded into
    # an agent's record cards; the record's own card stays.
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        projects = await create_object(
            conn, "projects", "Project", "Projects", [("code", "Code", "text", None, 1)]
        )
        await grant_standard_roles(conn, ws.roles, projects)
    [apollo] = await load_records(
        pool, ws.tokens["admin"], [{"object": "projects", "label": "Apollo"}]
    )
    await record_page(pool, ws, apollo, souvenir("Apollo ships in March"))
    before = await ask(client, ws.tokens["member"], mention(apollo, "Apollo"))
    [card] = before["cards"]
    assert [s["line"].split(" — ")[0] for s in card["souvenirs"]] == ["- Apollo ships in March"]

    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        await db_records.insert_attribute(
            conn, projects, "company", "Company", "relation", target="companies", position=1
        )
    after = await ask(client, ws.tokens["member"], mention(apollo, "Apollo"))
    [card] = after["cards"]
    assert card["recordId"] == apollo and card["label"] == "Apollo"
    assert card["souvenirs"] == []
    assert "Apollo ships in March" not in after["text"]
