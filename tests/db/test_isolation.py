"""Workspace isolation (DESIGN §1): the catalog says every workspace table is under forced
row-level security, the application role is powerless outside it, SQL run as that role sees and
touches one workspace only, and GraphQL never hands one workspace's rows to another."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from uuid import UUID

import asyncpg
import httpx
import pytest

from db import agents as db_agents
from db import identity
from db import mail as db_mail
from db.identity import insert_actor
from db.pool import begin_workspace, create_pool
from gateway.app import create_app
from resolvers.agents import skills as agent_skills
from resolvers.agents.skills import SkillAttachment, public_skill_id
from resolvers.catalog import approvals
from resolvers.catalog.settings import CatalogSettings
from resolvers.common import ids
from resolvers.common.principals import Principal, principal_for_token, token_hash
from resolvers.memory import proposals, settings
from resolvers.memory.dreamer import meetings, messages, runs
from resolvers.memory.mail import exchanges, mailboxes
from resolvers.memory.mail import messages as mail
from resolvers.memory.mail.checks import MailboxInput, MessageInput
from resolvers.records.workspaces import create_object, grant_standard_roles
from resolvers.skills import writing
from resolvers.skills.versions import NewFile
from resolvers.stores import dreams, memories, stores
from resolvers.turns import attachments, conversations, turns
from tests.factories import Workspace, codes, gql, load_records, make_page

APP_ROLE = "skillmem_app"
EXPECTED_TABLES = {
    "workspaces",
    "roles",
    "members",
    "agents",
    "routines",
    "api_keys",
    "mcp_clients",
    "tokens",
    "objects",
    "attributes",
    "role_permissions",
    "records",
    "record_links",
    "record_changes",
    "memory_pages",
    "memory_lines",
    "memory_words",
    "memory_versions",
    "memory_proposals",
    "member_preferences",
    "workspace_settings",
    "turn_snapshots",
    "turn_cards",
    "conversation_events",
    "conversations",
    "conversation_messages",
    "meeting_transcripts",
    "meeting_links",
    "runs",
    "memory_items",
    "memory_verdicts",
    "memory_passes",
    "memory_spend",
    "memory_cleanups",
    "memory_cleanup_changes",
    "mailboxes",
    "mail_messages",
    "mail_message_links",
    "mail_exchanges",
    "skill_polishes",
    "skill_version_withdrawals",
    "memory_stores",
    "store_memories",
    "store_memory_versions",
    "agent_skills",
    "conversation_starts",
    "conversation_memory_stores",
    "dreams",
    "catalog_approvals",
    "token_workspaces",
    "principal_generations",
}

# The documented exception: the job queue of the Dreamer's workers (migration 0012, pgqueuer's
# own tables). It holds no workspace data (a job's payload is a workspace id and a page owner's
# kind and id), is used only by the owner's connection of a worker, and the application role
# holds no right on it (test_app_role_cannot_touch_the_job_queue).
QUEUE_TABLES = {"pgqueuer", "pgqueuer_log", "pgqueuer_schedules", "pgqueuer_statistics"}
NOT_WORKSPACE_TABLES = {"schema_migrations", *QUEUE_TABLES}

WORKSPACE_TABLES_SQL = """
SELECT c.relname AS name, c.relrowsecurity AS rls, c.relforcerowsecurity AS forced
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
   AND EXISTS (SELECT 1 FROM pg_attribute a
                WHERE a.attrelid = c.oid AND a.attname = 'workspace_id' AND NOT a.attisdropped)
 ORDER BY c.relname
"""


@pytest.fixture
async def owner(dsn: str) -> AsyncIterator[asyncpg.Connection]:
    """A plain connection as the login role (the tables' owner; it bypasses RLS)."""
    conn = await asyncpg.connect(dsn)
    yield conn
    await conn.close()


async def workspace_tables(conn: asyncpg.Connection) -> list[str]:
    return [row["name"] for row in await conn.fetch(WORKSPACE_TABLES_SQL)]


async def fill(pool: asyncpg.Pool, ws: Workspace, prefix: str) -> list[str]:
    """Rows in every workspace table: a routine, records with a relation, a share, changes, a
    skill with a file and a lesson, a memory page with its lines and versions, a proposal, a
    preference and the workspace's settings."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        await insert_actor(conn, "routine", uuid.uuid4(), f"{prefix} nightly", ws.members["admin"])
        admin = await principal_for_token(conn, ws.tokens["admin"])
        assert admin is not None
        await writing.create_skill(
            conn,
            admin,
            name="house-style",
            description=f"How {prefix} writes.",
            files=[NewFile("references/tone.md", f"Tone of {prefix}.".encode())],
        )
        await writing.record_skill_use(conn, admin, "house-style", "Keep it short.")
        await conn.execute(POLISH_ROW, f"{prefix} refused")
        await writing.update_skill(conn, admin, "house-style", description=f"How {prefix} says.")
        await conn.execute(WITHDRAWAL_ROW)
        await _attachment_rows(conn, ws, admin)
        await _approval_rows(conn, ws)
    loaded = await load_records(
        pool,
        ws.tokens["member"],
        [
            {"object": "companies", "external_id": "acme", "label": f"{prefix} Acme"},
            {
                "object": "contacts",
                "external_id": "claire",
                "label": f"{prefix} Claire",
                "relations": {"company": {"external_id": "acme"}},
            },
            {
                "object": "deals",
                "label": f"{prefix} Secret deal",
                "visibility": "private",
                "shared_with": [f"other@{ws.name.lower()}.example"],
            },
        ],
    )
    acme = ids.decode(loaded[0], "Record", ws.id)
    await make_page(
        pool, ws, "record", acme, f"- {prefix} Acme pays late — Claire, 2026-10-02 [relation]"
    )
    async with pool.acquire() as conn, conn.transaction():
        member = await principal_for_token(conn, ws.tokens["member"])
        admin = await principal_for_token(conn, ws.tokens["admin"])
        assert member is not None and admin is not None
        await proposals.propose(conn, member, f"{prefix} Acme prefers mail")
        await settings.set_preference(conn, member, "memory.shareWithTeam", False)
        await settings.update_allowances(conn, admin, {"memoryPersonMonthlyLimitUsd": "2"})
        message = f"How is @[Acme](record:{loaded[0]})?"
        await turns.turn_context(
            conn, member, turns.TurnInput(message, conversation_id="c1", message_id="m1")
        )
        await _store_rows(conn, member, prefix)
        await _conversation_rows(conn, member, prefix)
        await _dream_rows(conn, member, prefix)
        await conversations.compact(conn, member, "c1")
        await conversations.end(conn, member, "c1")
        await _dreamer_rows(conn, ws, loaded[0], prefix)
    return loaded


async def _attachment_rows(conn: asyncpg.Connection, ws: Workspace, admin: Principal) -> None:
    """The agent Scout's attached skills: house-style pinned at its first version, a prebuilt."""
    scout = await identity.agent_by_name(conn, "Scout")
    skill = await conn.fetchval("SELECT id FROM skills WHERE name = 'house-style'")
    assert scout is not None
    given = [
        SkillAttachment("custom", public_skill_id(ws.id, skill), "1"),
        SkillAttachment("anthropic", "pdf"),
    ]
    await agent_skills.set_agent_skills(conn, admin, ws.gid(scout.id, "Agent"), given)


async def _conversation_rows(conn: asyncpg.Connection, member: Principal, prefix: str) -> None:
    """A conversation created with a store attached read-only."""
    made = await stores.create_store(conn, member, stores.StoreInput(f"{prefix} attached"))
    attached = [
        attachments.StoreAttachment(
            attachments.public_store_id(member.workspace_id, made.id), "read_only", "Read it."
        )
    ]
    await attachments.start_conversation(
        conn, member, attachments.StartInput("c-attached", None, attached)
    )


async def _store_rows(conn: asyncpg.Connection, member: Principal, prefix: str) -> None:
    """A memory store with a memory updated once (two versions) and a deleted one."""
    made = await stores.create_store(conn, member, stores.StoreInput(f"{prefix} notes"))
    kept = await memories.create_memory(conn, member, made.id, "/a.md", f"{prefix} one")
    await memories.update_memory(
        conn, member, made.id, kept.id, memories.MemoryChange(content=f"{prefix} two")
    )
    gone = await memories.create_memory(conn, member, made.id, "/b.md", f"{prefix} gone")
    await memories.delete_memory(conn, member, made.id, gone.id)


async def _approval_rows(conn: asyncpg.Connection, ws: Workspace) -> None:
    """The agent's copy of a shipped skill, waiting for its person (no source is read)."""
    agent = await principal_for_token(conn, ws.tokens["agent"])
    assert agent is not None
    await approvals.ask_install(conn, agent, CatalogSettings(), "shipped:skillmem-move-skills")


async def _dream_rows(conn: asyncpg.Connection, member: Principal, prefix: str) -> None:
    """A dream of a store, pending (the job does not run here)."""
    made = await stores.create_store(conn, member, stores.StoreInput(f"{prefix} dreamt"))
    await dreams.create_dream(conn, member, dreams.DreamInput(made.id, "claude"))


# What a pass leaves (the pass is not built here): a pass, the conversation's first waiting
# item read with one verdict, and a month's spend.
PASS_ROWS = """
WITH p AS (INSERT INTO memory_passes (workspace_id, id, owner_kind, owner_id, payer_kind,
                                      payer_id, reader, items, started_at, finished_at)
           VALUES (app_workspace_id(), gen_random_uuid(), 'member', $1, 'member', $1, 'rules',
                   1, now(), now()) RETURNING id),
     i AS (UPDATE memory_items SET status = 'read', read_at = now(), pass_id = p.id FROM p
            WHERE memory_items.id = (SELECT id FROM memory_items
                                      WHERE workspace_id = app_workspace_id()
                                        AND kind = 'conversation' AND status = 'waiting'
                                      ORDER BY arrived_at LIMIT 1)
           RETURNING memory_items.id),
     v AS (INSERT INTO memory_verdicts (workspace_id, item_id, number, verdict, reason, text,
                                        created_at)
           SELECT app_workspace_id(), i.id, 1, 'refused', 'task', $2, now() FROM i)
INSERT INTO memory_spend (workspace_id, payer_kind, payer_id, month, cost_usd, passes)
VALUES (app_workspace_id(), 'member', $1, date_trunc('month', now())::date, 0, 1)
"""
# What automatic polish leaves: one look at the skill's state.
POLISH_ROW = """
INSERT INTO skill_polishes (workspace_id, skill_id, id, version, lessons, trigger, outcome,
                            reason, reader, payer_kind, created_at)
SELECT app_workspace_id(), s.id, gen_random_uuid(), 1, '', 'form', 'refused', $1, 'rules',
       'workspace', now()
  FROM skills s WHERE s.name = 'house-style'
"""
# A version deleted through the Anthropic SDK: the first, once a second is the latest.
WITHDRAWAL_ROW = """
INSERT INTO skill_version_withdrawals (workspace_id, skill_id, version, withdrawn_at)
SELECT app_workspace_id(), s.id, 1, now() FROM skills s WHERE s.name = 'house-style'
"""
# A Monday removal of the member's profile with one line removed.
CLEANUP_ROWS = """
WITH c AS (INSERT INTO memory_cleanups (workspace_id, id, kind, audience_kind, audience_id,
                                        trigger, reader, started_at, finished_at)
           VALUES (app_workspace_id(), gen_random_uuid(), 'removal', 'member', $1, 'monday',
                   'code', now(), now()) RETURNING id)
INSERT INTO memory_cleanup_changes (workspace_id, cleanup_id, number, page_id, change, reason,
                                    text, created_at)
SELECT app_workspace_id(), c.id, 1, gen_random_uuid(), 'removed', 'ended', $2, now() FROM c
"""


async def _dreamer_rows(conn: asyncpg.Connection, ws: Workspace, acme: str, prefix: str) -> None:
    """Through the Dreamer's intake: a conversation and its messages, a meeting with its
    transcript and link, a routine's run, a proposal from the conversation, and their items;
    then what a pass leaves (a pass, a verdict, a month's spend) in SQL."""
    member = await principal_for_token(conn, ws.tokens["member"])
    admin = await principal_for_token(conn, ws.tokens["admin"])
    assert member is not None and admin is not None
    for number, text in enumerate((f"{prefix} said", f"Remember: {prefix} Acme pays late")):
        given = messages.MessageInput("c1", "user", text, message_id=f"m{number}")
        await messages.record_message(conn, member, given)
    await proposals.propose(conn, member, f"{prefix} Acme pays late", conversation_id="c1")
    await meetings.record_meeting(
        conn,
        member,
        meetings.MeetingInput("meet-1", f"{prefix} weekly", f"{prefix} said", None, [acme]),
    )
    routine = await conn.fetchval("SELECT id FROM routines LIMIT 1")
    given_run = runs.RunInput(
        "run1", f"{prefix} said", routine_id=ws.gid(routine, "Routine"), retried=True
    )
    await runs.record_run(conn, admin, given_run)
    await _mail_rows(conn, ws, admin, acme, prefix)
    await conn.execute(PASS_ROWS, ws.members["member"], f"{prefix} said")
    await conn.execute(CLEANUP_ROWS, ws.members["member"], f"{prefix} removed")


async def _mail_rows(
    conn: asyncpg.Connection, ws: Workspace, admin: Principal, acme: str, prefix: str
) -> None:
    """A personal mailbox with an important mail linked to Acme, and the exchange the hourly
    job opens on it with its item."""
    box = await mailboxes.create_mailbox(
        conn,
        admin,
        MailboxInput("box", "personal", f"{prefix} mail", ws.gid(ws.members["member"], "Member")),
    )
    now = datetime.now(UTC)
    given = MessageInput(
        "m1",
        "t1",
        "received",
        "carol@client.example",
        now - timedelta(hours=3),
        subject=f"{prefix} renewal",
        text=f"{prefix} said",
        category="direct",
        important=True,
        record_ids=[acme],
    )
    await mail.record_mail(conn, admin, ws.gid(box.mailbox.id, "Mailbox"), [given])
    assert await db_mail.open_exchanges(conn, now, exchanges.rules_at(now)) == 1


@pytest.fixture
async def two(pool: asyncpg.Pool, ws: Workspace, ws2: Workspace) -> tuple[Workspace, Workspace]:
    """Two workspaces, both with rows in every table."""
    await fill(pool, ws, "A")
    await fill(pool, ws2, "B")
    return ws, ws2


async def rows_by_workspace(owner: asyncpg.Connection, table: str, workspace_id: UUID) -> int:
    value: int = await owner.fetchval(
        f'SELECT count(*) FROM "{table}" WHERE workspace_id = $1',  # noqa: S608
        workspace_id,
    )
    return value


# --- the catalog -------------------------------------------------------------------------------


async def test_every_workspace_table_has_forced_row_level_security(owner):
    rows = await owner.fetch(WORKSPACE_TABLES_SQL)
    names = {row["name"] for row in rows}
    assert names, "no table has a workspace_id column"
    assert {"records", "tokens", "members"} <= names
    assert EXPECTED_TABLES <= names
    unprotected = [row["name"] for row in rows if not (row["rls"] and row["forced"])]
    assert unprotected == []


async def test_every_table_but_migrations_carries_workspace_id(owner):
    every = {
        row["relname"]
        for row in await owner.fetch(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')"
        )
    }
    assert every - set(await workspace_tables(owner)) == NOT_WORKSPACE_TABLES


async def test_workspace_id_leads_every_primary_key(owner):
    rows = await owner.fetch(
        """
        SELECT c.relname AS name, a.attname AS first_column
          FROM pg_class c
          JOIN pg_namespace n ON n.oid = c.relnamespace
          LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
          LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
         WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
           AND c.relname <> ALL($1::text[])
        """,
        # token_workspaces is keyed by a token's hash: the lookup that finds the workspace
        # (migration 0031; the allow-list of tests/db/test_workspace_keys.py says why).
        [*NOT_WORKSPACE_TABLES, "token_workspaces"],
    )
    assert {row["name"] for row in rows} >= EXPECTED_TABLES - {"token_workspaces"}
    wrong = {
        row["name"]: row["first_column"] for row in rows if row["first_column"] != "workspace_id"
    }
    assert wrong == {}


async def test_workspace_id_leads_every_foreign_key(owner):
    rows = await owner.fetch(
        """
        SELECT con.conname, src.attname AS local_first, dst.attname AS remote_first
          FROM pg_constraint con
          JOIN pg_namespace n ON n.oid = con.connamespace
          JOIN pg_attribute src ON src.attrelid = con.conrelid AND src.attnum = con.conkey[1]
          JOIN pg_attribute dst ON dst.attrelid = con.confrelid AND dst.attnum = con.confkey[1]
         WHERE n.nspname = 'public' AND con.contype = 'f'
        """
    )
    assert len(rows) > 10
    wrong = [
        row["conname"]
        for row in rows
        if (row["local_first"], row["remote_first"]) != ("workspace_id", "workspace_id")
    ]
    assert wrong == []


# The policies that let the tables' owner alone read across workspaces end with these.
OWNER_POLICY_SUFFIXES = ("_schedule", "_directory")


async def test_every_policy_pins_the_workspace_for_every_command(owner):
    rows = await owner.fetch(
        "SELECT tablename, policyname, cmd, roles::text[] AS roles, qual, with_check"
        " FROM pg_policies WHERE schemaname = 'public'"
    )
    # The exceptions: the schedules let the tables' owner (never the application role) read
    # every workspace's rows of the tables they read: the Dreamer's items for dreamer_due
    # (migration 0011), what mail_due reads (0015), the Monday removal's pages and cleanup runs
    # for memory_removal_due (0016), and consolidation's pages, versions, runs, spend and
    # settings for consolidation_due (0017), and the skills, their lessons and the looks
    # recorded for skill_polish_candidates (0021); and the operators' directory of workspaces,
    # their ids and names for `skillmem workspace list` and a workspace named by its name (0024).
    schedules = {
        ("workspace_directory", "workspaces"),
        ("dreamer_schedule", "memory_items"),
        *(
            ("mail_schedule", table)
            for table in (
                "mailboxes",
                "mail_messages",
                "mail_exchanges",
                "members",
                "member_preferences",
            )
        ),
        ("memory_removal_schedule", "memory_cleanups"),
        ("memory_removal_schedule", "memory_pages"),
        *(
            ("consolidation_schedule", table)
            for table in (
                "memory_pages",
                "memory_versions",
                "memory_cleanups",
                "memory_spend",
                "workspace_settings",
            )
        ),
        *(
            ("skill_polish_schedule", table)
            for table in ("skills", "skill_lessons", "skill_polishes")
        ),
        # The dreams to run, for the workers' dreams_due (0028).
        ("dreams_schedule", "dreams"),
    }
    found = [row for row in rows if row["policyname"].endswith(OWNER_POLICY_SUFFIXES)]
    assert {(row["policyname"], row["tablename"]) for row in found} == schedules
    assert len(found) == len(schedules)
    for schedule in found:
        assert schedule["cmd"] == "SELECT" and schedule["qual"] == "true"
        assert APP_ROLE not in schedule["roles"] and "public" not in schedule["roles"]
    rows = [row for row in rows if not row["policyname"].endswith(OWNER_POLICY_SUFFIXES)]
    by_table = {row["tablename"]: row for row in rows}
    assert len(by_table) == len(rows)
    assert set(by_table) == set(await workspace_tables(owner))
    for table, row in by_table.items():
        assert row["cmd"] == "ALL", table
        assert "app_workspace_id()" in row["qual"], table
        assert row["with_check"] is not None and "app_workspace_id()" in row["with_check"], table


async def test_app_role_has_no_power_beyond_its_grants(owner):
    role = await owner.fetchrow(
        "SELECT rolsuper, rolbypassrls, rolcanlogin, rolcreaterole, rolcreatedb"
        " FROM pg_roles WHERE rolname = $1",
        APP_ROLE,
    )
    assert role is not None
    assert dict(role) == {
        "rolsuper": False,
        "rolbypassrls": False,
        "rolcanlogin": False,
        "rolcreaterole": False,
        "rolcreatedb": False,
    }
    # It inherits from no other role.
    assert (
        await owner.fetchval(
            "SELECT count(*) FROM pg_auth_members WHERE member = (SELECT oid FROM pg_roles"
            " WHERE rolname = $1)",
            APP_ROLE,
        )
        == 0
    )


async def test_app_role_owns_no_table_and_no_function(owner):
    assert (
        await owner.fetchval("SELECT count(*) FROM pg_tables WHERE tableowner = $1", APP_ROLE) == 0
    )
    assert (
        await owner.fetchval(
            "SELECT count(*) FROM pg_class WHERE relowner = (SELECT oid FROM pg_roles"
            " WHERE rolname = $1)",
            APP_ROLE,
        )
        == 0
    )
    owned = await owner.fetch(
        "SELECT proname, prosecdef FROM pg_proc WHERE proowner = (SELECT oid FROM pg_roles"
        " WHERE rolname = $1)",
        APP_ROLE,
    )
    assert [row["proname"] for row in owned if row["prosecdef"]] == []
    assert owned == []


async def test_no_function_of_the_schema_is_security_definer_but_the_listed_ones(owner):
    # A SECURITY DEFINER function runs past every policy. These are on purpose: the full-text
    # match (no index serves @@ under row-level security), which filters the workspace itself;
    # the Dreamer's and the mail job's schedules, which answer ids, times and counts across
    # workspaces, never a text; the Monday removal's, which answers workspace ids; and
    # consolidation's, which answers ids, times and a trigger word; the queue's counts for the
    # metrics, which answer entrypoints, states and counts; automatic polish's, which answers
    # ids, version numbers and lesson ids. Each pins its search_path,
    # and only the application role may call them.
    found = await owner.fetch(
        "SELECT p.proname, p.proconfig, pg_get_functiondef(p.oid) AS body,"
        " has_function_privilege('public', p.oid, 'EXECUTE') AS public_may"
        " FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
        " WHERE n.nspname = 'public' AND p.prosecdef"
    )
    assert sorted(row["proname"] for row in found) == [
        "consolidation_due",
        "dreamer_due",
        "dreams_due",
        "mail_due",
        "memory_line_matches",
        "memory_removal_due",
        "queue_job_counts",
        "skill_polish_candidates",
    ]
    by_name = {row["proname"]: row for row in found}
    # The match reads the lines of the transaction's workspace only (the setting read once,
    # migration 0037), and looks up each line's page and record in the line's workspace.
    body = by_name["memory_line_matches"]["body"]
    assert "l.workspace_id = (SELECT app_workspace_id())" in body
    assert "p.workspace_id = m.workspace_id" in body
    assert "s.workspace_id = p.workspace_id" in body
    due = await owner.prepare("SELECT * FROM dreamer_due(now(), '1 hour', '5 minutes', 20)")
    assert [a.name for a in due.get_attributes()] == [
        "workspace_id",
        "owner_kind",
        "owner_id",
        "due_at",
        "waiting",
    ]
    consolidation = await owner.prepare(
        "SELECT * FROM consolidation_due(now(), 1, 4000, '6 hours', '7 days', 1, 5)"
    )
    assert [a.name for a in consolidation.get_attributes()] == [
        "workspace_id",
        "audience_kind",
        "audience_id",
        "trigger",
        "last_run_at",
        "consolidated_at",
    ]
    removal = await owner.prepare("SELECT * FROM memory_removal_due(now(), now())")
    assert [a.name for a in removal.get_attributes()] == ["workspace_id"]
    mail_due = await owner.prepare(
        "SELECT * FROM mail_due(now(), '2 hours', '30 days', now(), now(), 50, 300)"
    )
    assert [a.name for a in mail_due.get_attributes()] == [
        "workspace_id",
        "openable",
        "quiet_since",
    ]
    due_dreams = await owner.prepare("SELECT * FROM dreams_due()")
    assert [a.name for a in due_dreams.get_attributes()] == [
        "workspace_id",
        "dream_id",
        "created_at",
    ]
    queue = await owner.prepare("SELECT * FROM queue_job_counts()")
    assert [a.name for a in queue.get_attributes()] == ["entrypoint", "state", "jobs"]
    polish = await owner.prepare("SELECT * FROM skill_polish_candidates(3, 10, NULL)")
    assert [a.name for a in polish.get_attributes()] == [
        "workspace_id",
        "skill_id",
        "version",
        "lessons",
        "waiting",
    ]
    for row in found:
        # The search path pinned; other settings may be set (memory_line_matches: migration 0042).
        paths = [c for c in row["proconfig"] if c.startswith("search_path=")]
        assert paths == ["search_path=public, pg_temp"], row["proname"]
        assert row["public_may"] is False
    names = {
        row["proname"]
        for row in await owner.fetch(
            "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
            " WHERE n.nspname = 'public'"
        )
    }
    assert {"app_begin_request", "app_begin_workspace", "record_readable"} <= names


async def test_the_removal_schedule_answers_workspace_ids_only(pool, two):
    a, b = two
    async with pool.acquire() as conn, conn.transaction():
        # The application role, in no workspace: it sees no page itself.
        await conn.execute("SELECT set_config('role', 'skillmem_app', true)")
        assert await conn.fetchval("SELECT count(*) FROM memory_pages") == 0
        assert await conn.fetchval("SELECT count(*) FROM memory_cleanups") == 0
        # Both hold pages; both had a removal run now (see fill), none a week ago.
        week_ago = await conn.fetch(
            "SELECT * FROM memory_removal_due(now() - interval '8 days', now() - interval '7 days')"
        )
        today = await conn.fetch(
            "SELECT * FROM memory_removal_due(now() - interval '1 hour', now() + interval '1 hour')"
        )
    assert {a.id, b.id} <= {row["workspace_id"] for row in week_ago}
    assert [list(row.keys()) for row in week_ago[:1]] == [["workspace_id"]]
    assert not {a.id, b.id} & {row["workspace_id"] for row in today}


async def test_the_dreams_schedule_answers_ids_only(pool, two):
    a, b = two
    async with pool.acquire() as conn, conn.transaction():
        # The application role, in no workspace: it sees no dream itself.
        await conn.execute("SELECT set_config('role', 'skillmem_app', true)")
        assert await conn.fetchval("SELECT count(*) FROM dreams") == 0
        due = await conn.fetch("SELECT * FROM dreams_due()")
    assert {a.id, b.id} <= {row["workspace_id"] for row in due}
    assert [list(row.keys()) for row in due[:1]] == [["workspace_id", "dream_id", "created_at"]]


async def test_the_search_match_sees_one_workspace_only(pool, two):
    a, b = two
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SELECT app_begin_workspace($1)", a.id)
        readable = await conn.fetchval("SELECT array_agg(id) FROM objects")
        texts = [
            row["text"]
            for row in await conn.fetch(
                "SELECT l.text FROM memory_line_matches(search_query('acme'), $1, NULL, 100) m"
                " JOIN memory_lines l ON l.workspace_id = app_workspace_id()"
                " AND l.page_id = m.page_id AND l.position = m.position",
                readable,
            )
        ]
    # Both workspaces hold "Acme pays late" souvenirs (see fill): only A's are found.
    assert texts == ["A Acme pays late"]


async def test_an_agents_tool_groups_are_read_and_set_in_its_workspace_only(pool, owner, two):
    a, b = two
    theirs = await owner.fetchval(
        "SELECT id FROM agents WHERE workspace_id = $1 AND name = 'Scout'", b.id
    )
    async with pool.acquire() as conn:
        tx = conn.transaction()
        await tx.start()
        try:
            await conn.execute("SELECT app_begin_workspace($1)", b.id)
            assert await db_agents.memory_on(conn, theirs) is True
            await conn.execute("SELECT set_config('app.workspace_id', $1, true)", str(a.id))
            # B's agent is unknown in A: its groups are neither changed nor read from there.
            assert await db_agents.set_tool_groups(conn, theirs, ["core"]) is None
            assert await db_agents.memory_on(conn, theirs) is False
            assert [row.name for row in await db_agents.agents(conn)] == ["Scout"]
            assert theirs not in [row.id for row in await db_agents.agents(conn)]
            # Nor are its attached skills read, cleared or added to from there.
            assert await db_agents.agent_skills(conn, [theirs]) == []
            assert await db_agents.lock_agent(conn, theirs) is False
            await db_agents.replace_agent_skills(conn, theirs, [], datetime.now(UTC))
        finally:
            await tx.rollback()
    assert await owner.fetchval("SELECT tool_groups FROM agents WHERE id = $1", theirs) == [
        "core",
        "memory",
    ]
    assert await rows_by_workspace(owner, "agent_skills", b.id) == 2


async def test_app_role_cannot_truncate_nor_touch_migrations_nor_create(owner):
    # TRUNCATE is not subject to row-level security: the app role must not have it.
    tables = await workspace_tables(owner)
    truncatable = [
        t
        for t in tables
        if await owner.fetchval("SELECT has_table_privilege($1, $2, 'TRUNCATE')", APP_ROLE, t)
    ]
    assert truncatable == []
    for privilege in ("INSERT", "UPDATE", "DELETE", "TRUNCATE"):
        assert not await owner.fetchval(
            "SELECT has_table_privilege($1, 'schema_migrations', $2)", APP_ROLE, privilege
        ), privilege
    assert not await owner.fetchval("SELECT has_schema_privilege($1, 'public', 'CREATE')", APP_ROLE)


async def test_app_role_cannot_touch_the_job_queue(owner):
    # Neither the application role nor the login role requests run as may read or change the
    # queue: only a worker's connection as the tables' owner uses it.
    privileges = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE")
    granted = [
        (role, table, privilege)
        for role in (APP_ROLE, "skillmem_api")
        for table in sorted(QUEUE_TABLES)
        for privilege in privileges
        if await owner.fetchval("SELECT has_table_privilege($1, $2, $3)", role, table, privilege)
    ]
    assert granted == []


# --- SQL as the application role ------------------------------------------------------------


async def test_acting_as_a_workspace_sees_only_its_rows(pool, owner, two):
    a, b = two
    tables = await workspace_tables(owner)
    for table in tables:
        # Both workspaces really have rows in this table, so an empty answer means something.
        assert await rows_by_workspace(owner, table, a.id) > 0, table
        assert await rows_by_workspace(owner, table, b.id) > 0, table
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SELECT app_begin_workspace($1)", a.id)
        for table in tables:
            row = await conn.fetchrow(
                f"SELECT count(*) AS every, count(*) FILTER (WHERE workspace_id = $1) AS own,"  # noqa: S608
                f' count(*) FILTER (WHERE workspace_id = $2) AS theirs FROM "{table}"',
                a.id,
                b.id,
            )
            assert row["theirs"] == 0, table
            assert row["every"] == row["own"] == await rows_by_workspace(owner, table, a.id), table


VIEWS_SQL = """
SELECT c.relname AS name, COALESCE(c.reloptions, '{}') AS options FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'public' AND c.relkind = 'v'
 ORDER BY c.relname
"""


async def test_every_view_runs_as_its_caller_and_shows_one_workspace(pool, owner, two):
    """A view runs as its owner unless security_invoker is set: then it would read every
    workspace. Each view is security_invoker, and acting as one workspace it shows only it."""
    a, b = two
    views = await owner.fetch(VIEWS_SQL)
    assert [v["name"] for v in views] == ["skill_rows"]
    for view in views:
        assert "security_invoker=true" in view["options"], view["name"]
        assert await rows_by_workspace(owner, view["name"], a.id) > 0, view["name"]
        assert await rows_by_workspace(owner, view["name"], b.id) > 0, view["name"]
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SELECT app_begin_workspace($1)", a.id)
        for view in views:
            theirs = await conn.fetchval(
                f'SELECT count(*) FROM "{view["name"]}" WHERE workspace_id = $1',  # noqa: S608
                b.id,
            )
            assert theirs == 0, view["name"]


async def test_without_a_workspace_every_table_is_empty(pool, owner, two):
    tables = await workspace_tables(owner)
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SELECT set_config('role', $1, true)", APP_ROLE)
        assert await conn.fetchval("SELECT current_user") == APP_ROLE
        for table in tables:
            assert await conn.fetchval(f'SELECT count(*) FROM "{table}"') == 0, table  # noqa: S608


async def test_an_unknown_token_hash_opens_no_workspace(pool, owner, two):
    tables = await workspace_tables(owner)
    async with pool.acquire() as conn, conn.transaction():
        assert await conn.fetch("SELECT * FROM app_begin_request($1)", "0" * 64) == []
        assert await conn.fetchval("SELECT app_workspace_id()") is None
        for table in tables:
            assert await conn.fetchval(f'SELECT count(*) FROM "{table}"') == 0, table  # noqa: S608


async def test_a_token_hash_names_its_own_token_only(pool, two):
    a, b = two
    async with pool.acquire() as conn, conn.transaction():
        found = await conn.fetch(
            "SELECT * FROM app_begin_request($1)", token_hash(a.tokens["admin"])
        )
        assert [row["workspace_id"] for row in found] == [a.id]
        # The hash was only for the lookup: no other token is visible, B's least of all.
        assert await conn.fetchval("SELECT current_setting('app.token_hash', true)") == ""
        hashes = {row["token_hash"] for row in await conn.fetch("SELECT token_hash FROM tokens")}
        assert token_hash(b.tokens["admin"]) not in hashes
        assert (
            await conn.fetchval("SELECT count(*) FROM tokens WHERE workspace_id <> $1", a.id) == 0
        )


# A row of the target workspace for each table: its SQL and its arguments.
INSERTS = {
    "dreams": (
        "INSERT INTO dreams (workspace_id, id, input_store_id, model, behavior, actor_kind,"
        " actor_id, actor_name, payer_kind, created_at)"
        " VALUES ($1, gen_random_uuid(), gen_random_uuid(), 'm', 'create_new', 'member', $2,"
        " 'Intruder', 'workspace', now())",
        lambda w: [w.id, w.members["member"]],
    ),
    "records": (
        "INSERT INTO records (workspace_id, id, object_id, label)"
        " VALUES ($1, gen_random_uuid(), $2, 'intruder')",
        lambda w: [w.id, w.objects["companies"]],
    ),
    "members": (
        "INSERT INTO members (workspace_id, id, name, email, role_id)"
        " VALUES ($1, gen_random_uuid(), 'Intruder', 'intruder@example.com', $2)",
        lambda w: [w.id, w.roles["admin"]],
    ),
    "tokens": (
        "INSERT INTO tokens (workspace_id, id, token_hash, kind, member_id)"
        " VALUES ($1, gen_random_uuid(), repeat('a', 64), 'member', $2)",
        lambda w: [w.id, w.members["viewer"]],
    ),
    "conversation_events": (
        "INSERT INTO conversation_events (workspace_id, id, person_id, conversation_id, kind,"
        " actor_kind, actor_id, at)"
        " VALUES ($1, gen_random_uuid(), $2, 'c1', 'compacted', 'member', $2, now())",
        lambda w: [w.id, w.members["member"]],
    ),
    "role_permissions": (
        "INSERT INTO role_permissions (workspace_id, role_id, object_id, can_read, can_create)"
        " VALUES ($1, $2, $3, true, true)"
        " ON CONFLICT (workspace_id, role_id, object_id) DO UPDATE SET can_create = true",
        lambda w: [w.id, w.roles["viewer"], w.objects["companies"]],
    ),
}


def insert(table: str, target: Workspace) -> tuple[str, list[object]]:
    sql, args = INSERTS[table]
    return sql, args(target)


@pytest.mark.parametrize("table", sorted(INSERTS))
async def test_inserting_into_another_workspace_is_refused(pool, owner, two, table):
    a, b = two
    before = await rows_by_workspace(owner, table, b.id)
    sql, args = insert(table, b)
    with pytest.raises(asyncpg.InsufficientPrivilegeError, match="row-level security"):
        async with pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT app_begin_workspace($1)", a.id)
            await conn.execute(sql, *args)
    assert await rows_by_workspace(owner, table, b.id) == before


async def test_inserting_without_a_workspace_is_refused(pool, two):
    a, _ = two
    sql, args = insert("records", a)
    with pytest.raises(asyncpg.InsufficientPrivilegeError, match="row-level security"):
        async with pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT set_config('role', $1, true)", APP_ROLE)
            await conn.execute(sql, *args)


async def test_creating_a_second_workspace_while_in_one_is_refused(pool, two):
    a, _ = two
    with pytest.raises(asyncpg.InsufficientPrivilegeError, match="row-level security"):
        async with pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT app_begin_workspace($1)", a.id)
            await conn.execute("INSERT INTO workspaces VALUES (gen_random_uuid(), 'Squatter')")


async def test_updating_and_deleting_another_workspace_touch_nothing(pool, owner, two):
    a, b = two
    tables = await workspace_tables(owner)
    before = {t: await rows_by_workspace(owner, t, b.id) for t in tables}
    labels = await owner.fetch("SELECT id, label FROM records WHERE workspace_id = $1", b.id)
    async with pool.acquire() as conn:
        tx = conn.transaction()
        await tx.start()
        try:
            await conn.execute("SELECT app_begin_workspace($1)", a.id)
            for table in tables:
                if table in IMMUTABLE_TABLES:
                    continue  # the app may not update or delete these at all (tested below)
                if table in REPLACED_TABLES:
                    continue  # the app deletes and inserts these, never updates them (below)
                assert (
                    await conn.execute(
                        f'UPDATE "{table}" SET workspace_id = workspace_id'  # noqa: S608
                        " WHERE workspace_id = $1",
                        b.id,
                    )
                    == "UPDATE 0"
                ), table
                if table in UNDELETABLE_TABLES:
                    continue  # the app may trash these, never delete them (tested below)
                assert (
                    await conn.execute(
                        f'DELETE FROM "{table}" WHERE workspace_id = $1',  # noqa: S608
                        b.id,
                    )
                    == "DELETE 0"
                ), table
            assert await conn.execute("UPDATE records SET label = 'pwned'") != "UPDATE 0"
            assert (
                await conn.execute(
                    "UPDATE records SET label = 'pwned' WHERE id = ANY($1::uuid[])",
                    [row["id"] for row in labels],
                )
                == "UPDATE 0"
            )
        finally:
            await tx.rollback()
    assert {t: await rows_by_workspace(owner, t, b.id) for t in tables} == before
    assert (
        await owner.fetch("SELECT id, label FROM records WHERE workspace_id = $1", b.id) == labels
    )


async def test_moving_a_row_into_another_workspace_is_refused(pool, two):
    a, b = two
    with pytest.raises(asyncpg.InsufficientPrivilegeError, match="row-level security"):
        async with pool.acquire() as conn, conn.transaction():
            await conn.execute("SELECT app_begin_workspace($1)", a.id)
            await conn.execute("UPDATE record_changes SET workspace_id = $1", b.id)


@pytest.mark.parametrize("outcome", ["commit", "rollback"])
async def test_the_workspace_setting_does_not_outlive_its_transaction(pool, ws, outcome):
    async with pool.acquire() as conn:
        login = await conn.fetchval("SELECT current_user")
        assert login != APP_ROLE
        try:
            async with conn.transaction():
                await conn.execute("SELECT app_begin_workspace($1)", ws.id)
                assert await conn.fetchval("SELECT current_user") == APP_ROLE
                assert await conn.fetchval("SELECT app_workspace_id()") == ws.id
                if outcome == "rollback":
                    raise RuntimeError("roll back")
        except RuntimeError:
            pass
        assert await conn.fetchval("SELECT current_user") == login
        assert await conn.fetchval("SELECT current_setting('app.workspace_id', true)") in (None, "")
        assert await conn.fetchval("SELECT app_workspace_id()") is None
        # The next transaction on this connection, as the app role, sees no workspace at all.
        async with conn.transaction():
            await conn.execute("SELECT set_config('role', $1, true)", APP_ROLE)
            assert await conn.fetchval("SELECT count(*) FROM records") == 0
            assert await conn.fetchval("SELECT count(*) FROM members") == 0


async def test_a_request_leaves_nothing_on_its_pooled_connection(dsn, settings, ws, ws2):
    """With a pool of one connection, requests of two workspaces take turns on the same
    connection; each sees only its own, and the connection ends with no role nor workspace."""
    pool = await create_pool(dsn, min_size=1, max_size=1)
    try:
        await load_records(pool, ws.tokens["admin"], [{"object": "companies", "label": "Mine"}])
        await load_records(pool, ws2.tokens["admin"], [{"object": "companies", "label": "Theirs"}])
        app = create_app(settings, pool=pool)
        transport = httpx.ASGITransport(app=app)
        query = '{ me { workspace { name } } records(object: "companies") { nodes { label } } }'
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            for token, name, label in (
                (ws.tokens["admin"], "Acmecorp", "Mine"),
                (ws2.tokens["admin"], "Rival", "Theirs"),
                (ws.tokens["viewer"], "Acmecorp", "Mine"),
            ):
                body = (await gql(client, token, query)).json()
                assert body["data"]["me"]["workspace"]["name"] == name
                assert body["data"]["records"]["nodes"] == [{"label": label}]
            # A refused token on the same connection leaves nothing either.
            assert (await gql(client, "smk_" + "x" * 43, "{ me { name } }")).status_code == 401
        async with pool.acquire() as conn:
            assert await conn.fetchval("SELECT current_user") != APP_ROLE
            assert await conn.fetchval("SELECT app_workspace_id()") is None
            assert await conn.fetchval("SELECT current_setting('app.token_hash', true)") in (
                None,
                "",
            )
    finally:
        await pool.close()


# --- GraphQL --------------------------------------------------------------------------------


LIST = '{ records(object: "%s") { nodes { id label } } }'
ONE = "query($id: ID!) { record(id: $id) { label } }"


async def test_records_list_only_the_callers_workspace(client, two):
    a, b = two
    for object_slug, expected in (
        ("companies", ["A Acme"]),
        ("contacts", ["A Claire"]),
        ("deals", ["A Secret deal"]),
    ):
        nodes = (await gql(client, a.tokens["member"], LIST % object_slug)).json()["data"][
            "records"
        ]["nodes"]
        assert [n["label"] for n in nodes] == expected
    nodes = (await gql(client, b.tokens["admin"], LIST % "companies")).json()["data"]["records"][
        "nodes"
    ]
    assert [n["label"] for n in nodes] == ["B Acme"]


async def b_ids(client: httpx.AsyncClient, b: Workspace) -> dict[str, str]:
    body = (await gql(client, b.tokens["admin"], LIST % "companies")).json()
    return {n["label"]: n["id"] for n in body["data"]["records"]["nodes"]}


def local_id(global_id: str) -> UUID:
    import base64

    raw = base64.urlsafe_b64decode(global_id + "=" * (-len(global_id) % 4)).decode()
    return UUID(hex=raw.split(":")[2])


async def assert_not_found(response: httpx.Response) -> None:
    body = response.json()
    assert response.status_code == 200
    assert codes(response) == ["NOT_FOUND"]
    assert body["data"] == {"record": None}
    assert "Acme" not in response.text


async def test_record_of_another_workspace_is_not_found(client, two):
    a, b = two
    theirs = (await b_ids(client, b))["B Acme"]
    # B's own token reads it: the id is good.
    body = (await gql(client, b.tokens["admin"], ONE, {"id": theirs})).json()
    assert body["data"]["record"] == {"label": "B Acme"}
    await assert_not_found(await gql(client, a.tokens["admin"], ONE, {"id": theirs}))


async def test_forged_id_naming_another_workspaces_record_is_not_found(client, two):
    a, b = two
    theirs = (await b_ids(client, b))["B Acme"]
    forged = a.gid(local_id(theirs))
    assert forged != theirs
    missing = a.gid(uuid.uuid4())
    response = await gql(client, a.tokens["admin"], ONE, {"id": forged})
    await assert_not_found(response)
    # Indistinguishable from an id that names nothing at all.
    absent = await gql(client, a.tokens["admin"], ONE, {"id": missing})
    assert response.json() == absent.json()


async def test_related_to_another_workspaces_record(client, two):
    a, b = two
    theirs = (await b_ids(client, b))["B Acme"]
    query = (
        'query($id: ID!) { records(object: "contacts", filter: {relatedTo: $id}) '
        "{ nodes { label } } }"
    )
    ok = (await gql(client, b.tokens["admin"], query, {"id": theirs})).json()
    assert ok["data"]["records"]["nodes"] == [{"label": "B Claire"}]
    response = await gql(client, a.tokens["admin"], query, {"id": theirs})
    # Answered as for a record that does not exist (the isolation sweep's rule): nothing.
    assert response.json() == {"data": {"records": {"nodes": []}}}
    assert "Claire" not in response.text
    # The same uuid under A's workspace names nothing A can see.
    forged = await gql(client, a.tokens["admin"], query, {"id": a.gid(local_id(theirs))})
    assert forged.json() == {"data": {"records": {"nodes": []}}}


async def test_objects_list_only_the_callers_workspace(pool, client, two):
    a, b = two
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, b.id)
        rivals = await create_object(conn, "rival_only", "Rival thing", "Rival things", [])
        await grant_standard_roles(conn, b.roles, rivals)
    query = "{ objects { slug } }"
    mine = {
        o["slug"] for o in (await gql(client, a.tokens["admin"], query)).json()["data"]["objects"]
    }
    theirs = {
        o["slug"] for o in (await gql(client, b.tokens["admin"], query)).json()["data"]["objects"]
    }
    assert "rival_only" in theirs
    assert "rival_only" not in mine
    assert mine == theirs - {"rival_only"}
    empty = (await gql(client, a.tokens["admin"], LIST % "rival_only")).json()
    assert empty == {"data": {"records": {"nodes": []}}}


async def test_bulk_writes_cannot_reach_another_workspace(client, owner, two):
    a, b = two
    theirs = (await b_ids(client, b))["B Acme"]
    before = await owner.fetch(
        "SELECT id, label, workspace_id FROM records WHERE workspace_id = $1 ORDER BY id", b.id
    )

    async def post(lines: list[dict[str, object]]) -> httpx.Response:
        return await client.post(
            "/v1/records",
            json={"records": lines},
            headers={"authorization": f"Bearer {a.tokens['admin']}"},
        )

    # Update B's record by its id, by a forged id, or point a relation at it: all refused.
    for line in (
        {"object": "companies", "id": theirs, "label": "pwned"},
        {"object": "companies", "id": a.gid(local_id(theirs)), "label": "pwned"},
        {"object": "contacts", "label": "Spy", "relations": {"company": {"id": theirs}}},
        {
            "object": "contacts",
            "label": "Spy",
            "relations": {"company": {"id": a.gid(local_id(theirs))}},
        },
    ):
        response = await post([line])
        assert response.status_code in (400, 404), line
        assert response.json()["error"]["problems"][0]["line"] == 1
    # The same external id in A names A's record, never B's.
    response = await post([{"object": "companies", "external_id": "acme", "label": "A renamed"}])
    assert response.status_code == 200
    assert response.json()["updated"] == 1
    after = await owner.fetch(
        "SELECT id, label, workspace_id FROM records WHERE workspace_id = $1 ORDER BY id", b.id
    )
    assert after == before
    assert (
        await owner.fetchval(
            "SELECT count(*) FROM records WHERE workspace_id = $1 AND label = 'A renamed'", a.id
        )
        == 1
    )


async def test_concurrent_requests_of_two_workspaces_stay_apart(client, two):
    a, b = two
    query = '{ me { workspace { name } } records(object: "companies") { nodes { label } } }'
    calls = [(a, "Acmecorp", "A Acme"), (b, "Rival", "B Acme")] * 6
    responses = await asyncio.gather(*(gql(client, w.tokens["admin"], query) for w, _, _ in calls))
    for (_, name, label), response in zip(calls, responses, strict=True):
        data = response.json()["data"]
        assert data["me"]["workspace"]["name"] == name
        assert data["records"]["nodes"] == [{"label": label}]


async def test_the_login_role_holds_nothing_until_a_request_begins(owner, api_pool, ws):
    role = await owner.fetchrow(
        "SELECT rolcanlogin, rolinherit, rolsuper, rolbypassrls FROM pg_roles"
        " WHERE rolname = 'skillmem_api'"
    )
    assert dict(role) == {
        "rolcanlogin": True,
        "rolinherit": False,
        "rolsuper": False,
        "rolbypassrls": False,
    }
    assert (
        await owner.fetchval("SELECT count(*) FROM pg_tables WHERE tableowner = 'skillmem_api'")
        == 0
    )
    async with api_pool.acquire() as conn:
        assert await conn.fetchval("SELECT current_user") == "skillmem_api"
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.fetchval("SELECT count(*) FROM records")
        async with conn.transaction():
            row = await conn.fetchrow(
                "SELECT * FROM app_begin_request($1)", token_hash(ws.tokens["member"])
            )
            assert row["workspace_id"] == ws.id
            assert await conn.fetchval("SELECT current_user") == "skillmem_app"
            assert await conn.fetchval("SELECT count(*) FROM members") == 4
        assert await conn.fetchval("SELECT current_user") == "skillmem_api"


IMMUTABLE_TABLES = (
    "skill_versions",
    "skill_files",
    "skill_blobs",
    "memory_versions",
    "turn_snapshots",
    "turn_cards",
    "conversation_events",
    "skill_polishes",
    "conversation_starts",
    "conversation_memory_stores",
    "skill_version_withdrawals",
    "store_memory_versions",
    "token_workspaces",
)
# principal_generations: the app moves a workspace's counter (migration 0034), never deletes it;
# memory_words: a word's lines are counted down to zero, its rows kept (migration 0040).
UNDELETABLE_TABLES = (
    "memory_pages",
    "dreams",
    "catalog_approvals",
    "principal_generations",
    "memory_words",
)
# Replaced as a whole (deleted, then inserted), never updated: an agent's attached skills.
REPLACED_TABLES = ("agent_skills",)


@pytest.mark.parametrize("table", UNDELETABLE_TABLES)
async def test_pages_dreams_and_approvals_are_never_deleted_by_the_application(
    pool, owner, two, table
):
    a, _ = two
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SELECT app_begin_workspace($1)", a.id)
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.execute(f'DELETE FROM "{table}"')  # noqa: S608
    assert await rows_by_workspace(owner, table, a.id) > 0


@pytest.mark.parametrize("table", REPLACED_TABLES)
async def test_replaced_tables_are_never_updated_and_delete_in_one_workspace(
    pool, owner, two, table
):
    a, b = two
    async with pool.acquire() as conn:
        async with conn.transaction():
            await conn.execute("SELECT app_begin_workspace($1)", a.id)
            with pytest.raises(asyncpg.InsufficientPrivilegeError):
                await conn.execute(f'UPDATE "{table}" SET workspace_id = workspace_id')  # noqa: S608
        tx = conn.transaction()
        await tx.start()
        try:
            await conn.execute("SELECT app_begin_workspace($1)", a.id)
            delete = f'DELETE FROM "{table}" WHERE workspace_id = $1'  # noqa: S608
            assert await conn.execute(delete, b.id) == "DELETE 0"
        finally:
            await tx.rollback()
    assert await rows_by_workspace(owner, table, b.id) > 0


@pytest.mark.parametrize("table", IMMUTABLE_TABLES)
async def test_versions_files_and_contents_cannot_be_changed(pool, owner, two, table):
    a, _ = two
    async with pool.acquire() as conn:
        for statement in (
            f'UPDATE "{table}" SET workspace_id = workspace_id',  # noqa: S608
            f'DELETE FROM "{table}"',  # noqa: S608
        ):
            async with conn.transaction():
                await conn.execute("SELECT app_begin_workspace($1)", a.id)
                with pytest.raises(asyncpg.InsufficientPrivilegeError):
                    await conn.execute(statement)
    assert await rows_by_workspace(owner, table, a.id) > 0
