"""Approvals (issue 15, item 7; DESIGN §4; seed 000 "Add a skill from the catalogue"): an
agent's install from the catalogue (its copy from ``catalog:<source>``) and an agent's search
of the community directory never run directly. Each becomes an approval for the person the
agent works for, with a card: for an install, the source pinned to its commit, who will see the
skill, how many files land and which are scripts; for a search, the exact texts that would
leave. Only that person decides, from their own session; an approved install runs as them (their
rights, their name on the version), an approved search sends exactly the card's texts and keeps
what came back for the agent to read. A pending approval expires after the catalogue's
``approval_seconds``: it can no longer be decided."""

from __future__ import annotations

from dataclasses import asdict, replace
from datetime import timedelta
from typing import Any
from uuid import UUID, uuid4

import asyncpg

from db import catalog_approvals as approvals_db
from db.catalog_approvals import ApprovalRow, NewApproval
from db.skills import SkillRow
from resolvers.catalog import install, shipped
from resolvers.catalog.preview import SHIPPED_PREFIX, Preview, preview
from resolvers.catalog.search import ask_directory, check_text, directory_texts, merged, ranked
from resolvers.catalog.settings import CatalogSettings
from resolvers.common import clock, ids
from resolvers.common.errors import Code, DomainError, Problem, invalid, not_found
from resolvers.common.pages import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE
from resolvers.common.principals import Principal
from resolvers.skills.fields import NAME_TAKEN

ID_TYPE = "CatalogApproval"
STATUSES = ("pending", "approved", "declined", "expired")
NOT_AN_AGENT = "only an agent asks for an approval: a person {what} directly"
NO_PERSON = "this agent works for no person who could approve it"
DECIDER_ONLY = (
    "An approval is decided by the person it is for, from their own session: not by an agent, "
    "an API key or an MCP client."
)
EXPIRED = "this approval expired at {at}: the agent must ask again"
DECIDED = "this approval was already {status}"
WHO_SEES = {"private": "only {person}", "workspace": "everyone in the workspace"}


def _asker(principal: Principal, what: str) -> tuple[UUID, UUID]:
    """The agent asking and the person it works for; FORBIDDEN for anyone else."""
    if principal.kind != "agent":
        raise DomainError(Code.FORBIDDEN, NOT_AN_AGENT.format(what=what))
    if principal.person_id is None:
        raise DomainError(Code.FORBIDDEN, NO_PERSON)
    return principal.row.actor_id, principal.person_id


async def _ask(
    conn: asyncpg.Connection,
    principal: Principal,
    settings: CatalogSettings,
    kind: str,
    card: dict[str, Any],
) -> ApprovalRow:
    agent, person = _asker(principal, "adds" if kind == "install" else "searches")
    now = clock.now()
    new = NewApproval(
        uuid4(), kind, agent, person, card, now, now + timedelta(seconds=settings.approval_seconds)
    )
    return await approvals_db.insert_approval(conn, new)


def install_card(found: Preview, person: str) -> dict[str, Any]:
    """What the person reads before an install: the source pinned to its commit, who will see
    the skill, how many files land and which are scripts."""
    scripts = [f.path for f in found.files if f.script is not None]
    return {
        "source": found.source,
        "shipped": found.shipped,
        "name": found.name,
        "description": found.description,
        "repository": found.repository,
        "path": found.path,
        "commit": found.commit,
        "visibility": found.visibility,
        "whoWillSee": WHO_SEES[found.visibility].format(person=person),
        "files": len(found.files),
        "scripts": scripts,
    }


async def ask_install(
    conn: asyncpg.Connection,
    principal: Principal,
    settings: CatalogSettings,
    source: str,
    commit: str | None = None,
) -> ApprovalRow:
    """An agent's install of ``source`` (pinned to ``commit``, or to the commit its ref names
    now) as an approval for its person. Refused at once, with every problem, when the folder
    would be refused or its name is taken: no card is made for an install that cannot run."""
    _asker(principal, "adds")
    if source.strip().startswith(SHIPPED_PREFIX) and commit is not None:
        raise invalid([Problem(install.SHIPPED_COMMIT, "commit")])
    found = await preview(conn, principal, settings, source, commit)
    problems = list(found.problems)
    if found.name_taken:
        problems.append(Problem(NAME_TAKEN, "name"))
    if problems:
        raise invalid(problems, "The install cannot be asked for: it would be refused.")
    person = principal.row.member_name or "the person who approves"
    return await _ask(conn, principal, settings, "install", install_card(found, person))


async def ask_search(
    conn: asyncpg.Connection, principal: Principal, settings: CatalogSettings, text: str
) -> ApprovalRow:
    """An agent's search of the community directory as an approval: the card holds the exact
    texts that would leave (the whole text, then up to three words)."""
    check_text(text)
    card = {"text": text, "sent": directory_texts(text)}
    return await _ask(conn, principal, settings, "search", card)


async def approvals(
    conn: asyncpg.Connection,
    principal: Principal,
    statuses: list[str] | None = None,
    first: int = DEFAULT_PAGE_SIZE,
    approval_id: UUID | None = None,
) -> list[ApprovalRow]:
    """For an agent, the approvals it asked for; for a person, those asked of them; newest
    first. None for a caller acting for no person."""
    problems = (
        [Problem(f"among {', '.join(STATUSES)}", "statuses")]
        if statuses and any(s not in STATUSES for s in statuses)
        else []
    )
    if not 1 <= first <= MAX_PAGE_SIZE:
        problems.append(Problem(f"must be between 1 and {MAX_PAGE_SIZE}", "first"))
    if problems:
        raise invalid(problems)
    agent = principal.row.actor_id if principal.kind == "agent" else None
    person = principal.person_id if agent is None else None
    if agent is None and person is None:
        return []
    now = clock.now()
    return await approvals_db.approvals(conn, person, agent, statuses, now, first, approval_id)


async def approval(conn: asyncpg.Connection, principal: Principal, global_id: str) -> ApprovalRow:
    """One approval the caller may see (``approvals``); NOT_FOUND otherwise."""
    local = ids.decode(global_id, ID_TYPE, principal.workspace_id)
    found = await approvals(conn, principal, None, 1, local)
    if not found:
        raise not_found("catalog approval")
    return found[0]


async def decide(
    conn: asyncpg.Connection,
    principal: Principal,
    settings: CatalogSettings,
    global_id: str,
    approve: bool,
) -> ApprovalRow:
    """The person's decision: a declined approval only changes its status; an approved one
    runs as the person first (all or nothing: when it is refused, the approval stays
    pending). NOT_FOUND for an approval not asked of the caller; FORBIDDEN for a caller who is
    not a person in their own session; MEMORY_PRECONDITION_FAILED once expired or decided."""
    if not principal.is_own_session or principal.person_id is None:
        raise DomainError(Code.FORBIDDEN, DECIDER_ONLY)
    local = ids.decode(global_id, ID_TYPE, principal.workspace_id)
    now = clock.now()
    row = await approvals_db.approval_for_update(conn, local, principal.person_id, now)
    if row is None:
        raise not_found("catalog approval")
    if row.status == "expired":
        message = EXPIRED.format(at=row.expires_at.isoformat())
        raise DomainError(Code.MEMORY_PRECONDITION_FAILED, message)
    if row.status != "pending":
        message = DECIDED.format(status=row.status)
        raise DomainError(Code.MEMORY_PRECONDITION_FAILED, message)
    outcome = await _run(conn, principal, settings, row) if approve else None
    status = "approved" if approve else "declined"
    await approvals_db.decide_approval(conn, row.id, status, now, outcome)
    return replace(row, status=status, outcome=outcome, decided_at=now)


async def _run(
    conn: asyncpg.Connection, principal: Principal, settings: CatalogSettings, row: ApprovalRow
) -> dict[str, Any]:
    """What the approved card asked, as the person deciding."""
    card = row.card
    if row.kind == "search":
        texts = [str(t) for t in card["sent"]]
        answers, status = await ask_directory(settings, texts)
        hits = ranked(merged(answers, {t.lower() for t in texts}))
        return {"communityStatus": status, "results": [asdict(h) for h in hits]}
    added = await _install(conn, principal, settings, card)
    return {"skill": added.name, "version": added.version}


async def _install(
    conn: asyncpg.Connection, principal: Principal, settings: CatalogSettings, card: dict[str, Any]
) -> SkillRow:
    source = str(card["source"])
    if card.get("shipped"):
        return await shipped.add_shipped_skill(conn, principal, source.removeprefix(SHIPPED_PREFIX))
    return await install.install(conn, principal, settings, source, str(card["commit"]))
