"""The small demo workspace `make run` loads on first start, and its start-up token."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid4, uuid5

import asyncpg

from db import agents, identity, records
from db.pool import begin_workspace
from resolvers.agents.groups import CORE, tool_groups
from resolvers.catalog import approvals
from resolvers.catalog.settings import CatalogSettings
from resolvers.common import clock, ids
from resolvers.common.principals import Principal, issue_token, principal_for_token
from resolvers.memory import edits, pages, system
from resolvers.memory.cleanup.removal import remove_on
from resolvers.memory.dreamer import passes
from resolvers.memory.dreamer.messages import MessageInput, record_message
from resolvers.memory.dreamer.passes import PassSettings
from resolvers.memory.mail.checks import MailboxInput
from resolvers.memory.mail.mailboxes import create_mailbox
from resolvers.records.workspaces import create_object, create_workspace, grant_standard_roles
from resolvers.records.write import write_records
from resolvers.skills import writing
from resolvers.skills.versions import EXECUTABLE, NewFile
from resolvers.stores import dreams, memories, stores

DEMO_WORKSPACE_ID = uuid5(NAMESPACE_URL, "skillmem:demo-workspace")
DEMO_WORKSPACE_NAME = "Demo"
DEMO_MEMBER_EMAIL = "alice@demo.example"
DEMO_MAILBOX = "team-inbox"  # the shared mailbox's external id
# The demo's agent whose tool groups leave memory out (Scout has memory).
DEMO_AGENT_WITHOUT_MEMORY = "Ledger"

MEMBERS = (
    ("Alice Martin", DEMO_MEMBER_EMAIL, "admin"),
    ("Bob Durand", "bob@demo.example", "member"),
    ("Claire Morel", "claire@demo.example", "member"),
    ("Dan Petit", "dan@demo.example", "viewer"),
)

# A small CRM: contacts -> company, deals -> company and contact, tasks -> deal, notes ->
# company (so tasks and notes are satellites). The demo, the tests and the benchmark share it.
CRM_OBJECTS: list[tuple[str, str, str, list[tuple[str, str, str, str | None, int | None]]]] = [
    (
        "companies",
        "Company",
        "Companies",
        [
            ("domain", "Domain", "url", None, 1),
            ("industry", "Industry", "text", None, 2),
            ("employees", "Employees", "number", None, 3),
        ],
    ),
    (
        "contacts",
        "Contact",
        "Contacts",
        [
            ("email", "Email", "email", None, 1),
            ("title", "Job title", "text", None, 2),
            ("company", "Company", "relation", "companies", None),
        ],
    ),
    (
        "deals",
        "Deal",
        "Deals",
        [
            ("amount", "Amount", "number", None, 1),
            ("stage", "Stage", "text", None, 2),
            ("close_date", "Close date", "date", None, 3),
            ("won", "Won", "boolean", None, 4),
            ("company", "Company", "relation", "companies", None),
            ("contact", "Contact", "relation", "contacts", None),
        ],
    ),
    (
        "tasks",
        "Task",
        "Tasks",
        [
            ("due", "Due", "date", None, 1),
            ("done", "Done", "boolean", None, 2),
            ("deal", "Deal", "relation", "deals", None),
        ],
    ),
    (
        "notes",
        "Note",
        "Notes",
        [
            ("body", "Body", "text", None, 1),
            ("company", "Company", "relation", "companies", None),
        ],
    ),
]


def _company(ext: str, label: str, domain: str, industry: str, employees: int) -> dict[str, Any]:
    return {
        "object": "companies",
        "external_id": ext,
        "label": label,
        "values": {"domain": domain, "industry": industry, "employees": employees},
    }


RECORDS: list[dict[str, Any]] = [
    _company("acme", "Acme", "https://acme.example", "Manufacturing", 1200),
    _company("globex", "Globex", "https://globex.example", "Energy", 5400),
    _company("initech", "Initech", "https://initech.example", "Software", 240),
    {
        "object": "contacts",
        "external_id": "claire-acme",
        "label": "Claire Morel",
        "values": {"email": "claire.morel@acme.example", "title": "CFO"},
        "relations": {"company": {"external_id": "acme"}},
    },
    {
        "object": "contacts",
        "external_id": "hank-globex",
        "label": "Hank Scorpio",
        "values": {"email": "hank@globex.example", "title": "CEO"},
        "relations": {"company": {"external_id": "globex"}},
    },
    {
        "object": "deals",
        "external_id": "acme-renewal",
        "label": "Acme renewal 2027",
        "values": {"amount": 48000, "stage": "negotiation", "close_date": "2027-01-31"},
        "relations": {
            "company": {"external_id": "acme"},
            "contact": {"external_id": "claire-acme"},
        },
    },
    {
        "object": "deals",
        "external_id": "globex-pilot",
        "label": "Globex pilot",
        "values": {"amount": 12000, "stage": "discovery"},
        "relations": {"company": {"external_id": "globex"}},
    },
    {
        "object": "deals",
        "external_id": "initech-secret",
        "label": "Initech acquisition talks",
        "values": {"amount": 900000, "stage": "qualification"},
        "visibility": "private",
        "owner": "bob@demo.example",
        "shared_with": ["claire@demo.example"],
        "relations": {"company": {"external_id": "initech"}},
    },
    {
        "object": "notes",
        "external_id": "acme-call",
        "label": "Call with Acme",
        "values": {"body": "Acme wants every message in French, addressed to Claire Morel."},
        "relations": {"company": {"external_id": "acme"}},
    },
]


INVOICE_FOLLOWUP = """## Overview
Write a short, polite reminder for an unpaid invoice.

## When to use
- When asked to chase, follow up on or remind about a payment.
- Don't use when the invoice is disputed: hand it to a person instead.

## Instructions
1. Read the invoice record: number, amount, due date, contact.
2. Run `scripts/days-late.sh DUE_DATE` to know how late it is.
3. Write three sentences: the invoice, the amount and date, one clear ask.
4. Sign with the sender's first name only.

## Check
The message names the invoice number, the amount and the due date, and asks one thing.

## What to avoid
- Never threaten fees or legal action.
"""


@dataclass(frozen=True, slots=True)
class DemoStart:
    created: bool
    token: str
    member_email: str


async def ensure_demo(conn: asyncpg.Connection) -> DemoStart:
    """Load the demo workspace unless it exists; revoke the last demo token and issue a new
    one for the demo member."""
    async with conn.transaction():
        await begin_workspace(conn, DEMO_WORKSPACE_ID)
        created = await identity.workspace(conn) is None
        if created:
            await _load(conn)
        await identity.revoke_tokens_by_purpose(conn, "demo")
        member = await identity.member_by_email(conn, DEMO_MEMBER_EMAIL)
        assert member is not None
        token = await issue_token(conn, "member", member_id=member.id, purpose="demo")
    return DemoStart(created, token, DEMO_MEMBER_EMAIL)


async def _load(conn: asyncpg.Connection) -> None:
    workspace = await create_workspace(conn, DEMO_WORKSPACE_NAME, DEMO_WORKSPACE_ID)
    for slug, singular, plural, attributes in CRM_OBJECTS:
        object_id = await create_object(conn, slug, singular, plural, attributes)
        await grant_standard_roles(conn, workspace.roles, object_id)
    # A partner's role: it syncs companies, contacts and deals, and posts the shared mail.
    integration = await identity.insert_role(conn, uuid4(), "integration", can_update_settings=True)
    for obj in await records.objects(conn):
        if obj.slug in ("companies", "contacts", "deals", "mail"):
            await identity.upsert_role_permission(
                conn, integration, obj.id, read=True, create=True, update=True, delete=False
            )
    members: dict[str, UUID] = {}
    for name, email, role in MEMBERS:
        members[email] = (
            await identity.insert_member(conn, uuid4(), name, email, workspace.roles[role])
        ).id
    alice = members[DEMO_MEMBER_EMAIL]
    # Two agents, one of each kind (issue 12, item 1): Scout reads and saves memories (core
    # and memory, a new agent's default); Ledger has core only: skills and records, never a
    # souvenir, and nothing it is told feeds the Dreamer.
    scout = await identity.insert_actor(conn, "agent", uuid4(), "Scout", alice)
    await agents.insert_agent(conn, uuid4(), DEMO_AGENT_WITHOUT_MEMORY, alice, tool_groups([CORE]))
    await identity.insert_actor(conn, "routine", uuid4(), "Weekly digest", alice)
    await identity.insert_actor(conn, "api_key", uuid4(), "partner-sync", integration)
    await identity.insert_actor(
        conn, "mcp_client", uuid4(), "Claude Desktop", members["bob@demo.example"]
    )
    # The records go in through the same path as a partner's, as Alice.
    loader = await issue_token(conn, "member", member_id=alice, purpose="demo")
    principal = await principal_for_token(conn, loader)
    assert principal is not None
    written = await write_records(conn, principal, RECORDS)
    by_external = {line["external_id"]: r.id for line, r in zip(RECORDS, written, strict=True)}
    await _load_memory(conn, principal, by_external, alice, scout.id)
    await create_mailbox(conn, principal, MailboxInput(DEMO_MAILBOX, "shared", "Team inbox"))
    await _dream(conn, principal, by_external["acme"], alice)
    await _memory_store(conn, principal)
    await _approval(conn, alice, scout.id)
    await writing.create_skill(
        conn,
        principal,
        name="invoice-followup",
        description="Chase an unpaid invoice politely: use when someone asks to chase, follow "
        "up on or remind about a payment.",
        content=INVOICE_FOLLOWUP,
        files=[
            NewFile(
                "scripts/days-late.sh",
                b"#!/bin/sh\n# days-late DUE_DATE: how many days an invoice is late\n"
                b'echo $(( ($(date +%s) - $(date -d "$1" +%s)) / 86400 ))\n',
                EXECUTABLE,
            )
        ],
    )


WORKSPACE_PROFILE = """## Mission mémoire
Retenir qui décide chez nos clients, ce que chacun préfère et les règles de l'équipe.

## Règles
- Un devis part toujours relu par deux personnes — Alice Martin, 2026-09-14 [consigne]"""


# Acme's page: one souvenir's source is a private deal Alice cannot open.
ACME_PAGE = """\
- Acme veut tous ses messages en français, adressés à Claire Morel — Alice Martin, 2026-10-02 \
[préférence]
- Préférence de Claire Morel : un appel le mardi plutôt qu'un mail — Claire Morel, 2026-10-20 \
[préférence]
- Le DAF d'Acme signe seul sous 50 000 € → record:{private_deal} — Bob Durand, 2026-10-23 \
[décision]
- Acme gèle ses achats jusqu'au budget 2027 — Claire Morel, 2026-11-05 [contexte] \
(revoir 2027-05-05)"""


async def _load_memory(
    conn: asyncpg.Connection,
    alice_session: Principal,
    by_external: dict[str, str],
    alice: UUID,
    scout: UUID,
) -> None:
    """The demo's memory: the workspace profile with its mission, Acme's page (one souvenir
    from a private deal Alice cannot open), Alice's profile and Scout's."""
    workspace_id = alice_session.workspace_id

    def local(external_id: str) -> UUID:
        return ids.decode(by_external[external_id], "Record", workspace_id)

    await system.create_page(
        conn, workspace_id, "workspace", None, name="Demo", content=WORKSPACE_PROFILE
    )
    await system.create_page(
        conn,
        workspace_id,
        "record",
        local("acme"),
        name="Acme",
        description="What Acme's people said about how to work with them.",
        content=ACME_PAGE.format(private_deal=by_external["initech-secret"]),
    )
    profile = await system.create_page(
        conn,
        workspace_id,
        "member",
        alice,
        name="Alice Martin",
        content=f"- @[Acme](record:{by_external['acme']}) Alice suit le compte en personne"
        " — Alice Martin, 2026-10-02 [relation]",
    )
    # A line only a person writes (✍): Alice's own, through her session.
    page = await pages.page(conn, alice_session, profile)
    await edits.edit_page(
        conn,
        alice_session,
        profile,
        "- Préfère des réponses courtes, en listes [préférence]\n" + page.content,
    )
    await system.create_page(
        conn,
        workspace_id,
        "agent",
        scout,
        name="Scout",
        content="- Scout résume en trois points au plus — Alice Martin, 2026-10-05 [consigne]",
    )


async def _dream(
    conn: asyncpg.Connection, alice_session: Principal, acme: str, alice: UUID
) -> None:
    """What memory did before the demo starts: Alice asked to remember something in a
    conversation and the Dreamer's pass (the rules reader, free) read it; the Monday removal
    of this week ran. So `memoryItems`, `memorySpend` and `memoryCleanups` show something."""
    workspace_id = alice_session.workspace_id
    said = f"Remember: @[Acme](record:{acme}) wants every quote in euros."
    await record_message(
        conn, alice_session, MessageInput("demo-onboarding", "user", said, message_id="m-1")
    )
    await passes.run_on(conn, passes.owner_of(workspace_id, "member", alice), PassSettings())
    await remove_on(conn, workspace_id, last_monday(clock.now()))


async def _memory_store(conn: asyncpg.Connection, alice_session: Principal) -> None:
    """A memory store of Alice's with a line written twice, and a dream of it she asked for
    (the worker runs it): so `/v1/memory_stores` and `/v1/dreams` show something."""
    store = await stores.create_store(
        conn,
        alice_session,
        stores.StoreInput("Team preferences", "How the team likes its reports."),
    )
    await memories.create_memory(
        conn,
        alice_session,
        store.id,
        "/formatting.md",
        "- Dates are ISO-8601\n- dates are ISO-8601.\n- Reports use GAAP formatting",
    )
    await dreams.create_dream(conn, alice_session, dreams.DreamInput(store.id, "claude-opus-4-1"))


async def _approval(conn: asyncpg.Connection, alice: UUID, scout: UUID) -> None:
    """Scout asked Alice to approve its copy of a skill the product ships (no source is read):
    so `approvals` shows a card waiting for her decision."""
    token = await issue_token(conn, "agent", member_id=alice, agent_id=scout, purpose="demo")
    agent = await principal_for_token(conn, token)
    assert agent is not None
    await approvals.ask_install(conn, agent, CatalogSettings(), "shipped:skillmem-move-skills")


def last_monday(now: datetime) -> datetime:
    """The latest Monday hour the weekly removal may have run at by ``now`` (UTC)."""
    today = now.astimezone(UTC).date()
    monday = datetime.combine(today - timedelta(days=today.weekday()), time(0, 5), UTC)
    return monday if monday <= now else monday - timedelta(days=7)
