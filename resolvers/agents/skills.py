"""The skills an agent attaches (issue 14, item 6; seed 001 "Skills — domain expertise on
demand"): at most 20, each `custom` (one of the workspace's skills by its id, at a version or
`latest`) or `anthropic` (a prebuilt skill by name, kept as a reference the agent's runtime
resolves). Admins replace an agent's list as a whole. An agent with attachments is offered only
its attached custom skills, at their versions, in its catalog and recall (the SQL function
agent_skill_offered); one with none is offered every skill it may read."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

import asyncpg

from db import agents
from db.agents import AgentSkillRow, NewAgentSkill
from resolvers.agents.agents import admin
from resolvers.common import clock, ids
from resolvers.common.errors import Code, DomainError, Problem, invalid, not_found
from resolvers.common.principals import Principal

MAX_AGENT_SKILLS = 20
ANTHROPIC_SKILLS = ("xlsx", "docx", "pptx", "pdf")
SKILL_KINDS = ("custom", "anthropic")
LATEST = "latest"
# A custom skill's id as the Anthropic SDK's routes spell it: `skill_` and its global id.
SKILL_ID_PREFIX = "skill_"


@dataclass(frozen=True, slots=True)
class SkillAttachment:
    """One skill to attach, as given: its type, its id (a custom skill's `skill_…` id or
    GraphQL id, a prebuilt skill's name) and, for a custom one, a version number or `latest`
    (None: `latest`)."""

    type: str
    skill_id: str
    version: str | None = None


@dataclass(frozen=True, slots=True)
class AttachedSkill:
    """An attachment as read: ``skill_id`` the `skill_…` id of a custom skill or the prebuilt
    name; ``version`` a number or `latest`; ``name`` the skill's name."""

    type: str
    skill_id: str
    version: str
    name: str


def public_skill_id(workspace_id: UUID, skill_id: UUID) -> str:
    """A custom skill's id as the SDK's routes spell it."""
    return SKILL_ID_PREFIX + ids.encode("Skill", workspace_id, skill_id)


def custom_skill_id(text: str, workspace_id: UUID, field: str) -> UUID:
    """The skill a custom attachment names: its `skill_…` id or its GraphQL (record) id. A
    malformed id is a validation error; another workspace's answers NOT_FOUND."""
    if text.startswith(SKILL_ID_PREFIX):
        return ids.decode(text.removeprefix(SKILL_ID_PREFIX), "Skill", workspace_id, field)
    return ids.decode(text, "Record", workspace_id, field)


def version_number(text: str | None, field: str) -> tuple[int | None, list[Problem]]:
    """A version as given: None for `latest` (or none given), else a number 1 or more."""
    if text is None or text == LATEST:
        return None, []
    if text.isascii() and text.isdigit() and int(text) >= 1:
        return int(text), []
    return None, [Problem(f"a version is {LATEST!r} or a number 1 or more", field)]


def _anthropic(given: SkillAttachment, field: str) -> tuple[NewAgentSkill, list[Problem]]:
    problems = []
    if given.skill_id not in ANTHROPIC_SKILLS:
        known = ", ".join(ANTHROPIC_SKILLS)
        problems.append(Problem(f"a prebuilt skill is one of {known}", f"{field}.skillId"))
    if given.version not in (None, LATEST):
        problems.append(Problem("a prebuilt skill is attached at 'latest'", f"{field}.version"))
    return NewAgentSkill("anthropic", None, None, given.skill_id), problems


def _custom(
    given: SkillAttachment, workspace_id: UUID, field: str, missing: list[str]
) -> tuple[NewAgentSkill, list[Problem]]:
    version, problems = version_number(given.version, f"{field}.version")
    skill_id = None
    try:
        skill_id = custom_skill_id(given.skill_id, workspace_id, f"{field}.skillId")
    except DomainError as error:
        if error.code is not Code.NOT_FOUND:
            problems = error.problems + problems
        missing.append(given.skill_id)
    return NewAgentSkill("custom", skill_id, version, None), problems


def parse_attachments(
    given: Sequence[SkillAttachment], workspace_id: UUID
) -> tuple[list[NewAgentSkill], list[str], list[Problem]]:
    """The attachments to store, the ids naming no skill of the workspace, and every problem
    of the list (pure: what exists is checked against the database afterwards)."""
    problems: list[Problem] = []
    if len(given) > MAX_AGENT_SKILLS:
        problems.append(Problem(f"an agent attaches at most {MAX_AGENT_SKILLS} skills", "skills"))
    parsed: list[NewAgentSkill] = []
    missing: list[str] = []
    seen: set[tuple[str, UUID | None, str | None]] = set()
    for index, item in enumerate(given):
        field = f"skills[{index}]"
        if item.type == "anthropic":
            made, found = _anthropic(item, field)
        elif item.type == "custom":
            made, found = _custom(item, workspace_id, field, missing)
        else:
            made, found = None, [Problem("a type is 'custom' or 'anthropic'", f"{field}.type")]
        problems += found
        if made is None:
            continue
        key = (made.kind, made.skill_id, made.anthropic_name)
        if key in seen and key[1:] != (None, None):
            problems.append(Problem("a skill is attached once", f"{field}.skillId"))
        seen.add(key)
        parsed.append(made)
    return parsed, missing, problems


async def _checked(
    conn: asyncpg.Connection, principal: Principal, parsed: list[NewAgentSkill]
) -> list[Problem]:
    """NOT_FOUND for a custom skill the caller may not read; the problems of pinned versions
    the skill does not have."""
    wanted = [p.skill_id for p in parsed if p.skill_id is not None]
    found = {
        s.id: s
        for s in await agents.attachable_skills(
            conn, wanted, principal.readable_objects, principal.person_id
        )
    }
    if any(skill_id not in found for skill_id in wanted):
        raise not_found("skill")
    problems = []
    for index, item in enumerate(parsed):
        if item.skill_id is not None and item.version is not None:
            if item.version not in found[item.skill_id].versions:
                text = f"the skill {found[item.skill_id].name!r} has no version {item.version}"
                problems.append(Problem(text, f"skills[{index}].version"))
    return problems


def _agent_id(agent_gid: str, workspace_id: UUID) -> tuple[UUID | None, list[Problem]]:
    """The agent an id names (None: another workspace's or type's), or its problem."""
    try:
        return ids.decode(agent_gid, "Agent", workspace_id), []
    except DomainError as error:
        if error.code is not Code.SCHEMA_VALIDATION_FAILED:
            return None, []
        return None, error.problems


async def set_agent_skills(
    conn: asyncpg.Connection,
    principal: Principal,
    agent_gid: str,
    given: Sequence[SkillAttachment],
) -> list[AttachedSkill]:
    """Replace the agent's attached skills (admins only); every problem listed, nothing
    changed when any is found; an agent or a skill the admin may not read is NOT_FOUND."""
    admin(principal)
    agent_id, problems = _agent_id(agent_gid, principal.workspace_id)
    parsed, missing, found = parse_attachments(given, principal.workspace_id)
    if all_problems := [*problems, *found]:
        raise invalid(all_problems)
    if agent_id is None or not await agents.lock_agent(conn, agent_id):
        raise not_found("agent")
    if missing:
        raise not_found("skill")
    if version_problems := await _checked(conn, principal, parsed):
        raise invalid(version_problems)
    await agents.replace_agent_skills(conn, agent_id, parsed, clock.now())
    return (await attached_skills(conn, principal.workspace_id, [agent_id]))[agent_id]


def _attached(row: AgentSkillRow, workspace_id: UUID) -> AttachedSkill:
    if row.kind == "anthropic":
        assert row.anthropic_name is not None
        return AttachedSkill("anthropic", row.anthropic_name, LATEST, row.anthropic_name)
    assert row.skill_id is not None and row.skill_name is not None
    version = LATEST if row.version is None else str(row.version)
    return AttachedSkill(
        "custom", public_skill_id(workspace_id, row.skill_id), version, row.skill_name
    )


async def attached_skills(
    conn: asyncpg.Connection, workspace_id: UUID, agent_ids: Sequence[UUID]
) -> dict[UUID, list[AttachedSkill]]:
    """Each agent's attached skills, in order (callers are admins: checked by the caller)."""
    found: dict[UUID, list[AttachedSkill]] = {agent_id: [] for agent_id in agent_ids}
    for row in await agents.agent_skills(conn, agent_ids):
        found[row.agent_id].append(_attached(row, workspace_id))
    return found
