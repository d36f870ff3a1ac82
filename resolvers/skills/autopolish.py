"""Automatic polish (issue 12, item 4; seed 003 "Skill polish"): a skill with
``POLISH_MIN_LESSONS`` or more waiting lessons, or whose L1 form check fails, is polished by the
reader's third operation (``resolvers/memory/dreamer/polishing.py``), once per state.

**When.** The worker's periodic job ``skills.polish`` (a pgqueuer cron schedule, every
``POLISH_CRON``; `skillmem dreamer run` runs it too) asks ``skill_polish_candidates``
(migration 0021) for the states never looked at: a skill's latest version never looked at, or
its ``POLISH_MIN_LESSONS`` or more waiting lessons as a set never looked at with that version.
So recording a lesson, a person's edit and a polish all lead to a look at the next sweep, and a
state is looked at once: every look is recorded in ``skill_polishes`` (unique by skill,
version and lesson ids), whatever came of it.

**One look**, like a consolidation run: (1) in the workspace's transaction the skill is read
again (a state that moved meanwhile is left to its own look), and nothing is asked when there is
no cause (``checked``), when a member wrote a version after its last lesson (``skipped``: a
person's change is not polished automatically; a member may still call ``polishSkill``), when
the form check alone calls for it and the latest version is polish's own (``skipped``: no loop
of rewrites), or when the payer is at its allowance or the workspace has no AI credits (nothing
recorded: looked at again at the next sweep). (2) The reader drafts the body, with no
transaction open. (3) In one transaction the skill is locked and read again; a draft equal to
the body is ``unchanged``; a draft a guard refuses (``polish_problems``: steps grown by more
than 50 %, an absolute path introduced, a reflex over 500 characters; and the body's own rules)
is ``refused`` with every reason, the body kept; a good one becomes a new version by
``POLISH_ACTOR``, its lessons marked folded into it (``polished``). The reader's cost is charged
like a pass's: to the skill's owner (a private skill's member), else the workspace.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass, replace
from datetime import datetime
from typing import cast
from uuid import UUID, uuid4

import asyncpg

from db import dreamer_pass, skill_polish, skills
from db.pool import begin_workspace
from db.skill_polish import Candidate, PolishRow
from db.skills import LessonRow, SkillRow
from resolvers.common import clock
from resolvers.memory.dreamer import guard
from resolvers.memory.dreamer.passes import PassSettings, allowance, month_of
from resolvers.memory.dreamer.polishing import (
    PolishAnswer,
    PolishBatch,
    Polisher,
    PolishLesson,
    PolishTrigger,
    polisher_of,
)
from resolvers.memory.dreamer.reader import ReaderError, Usage
from resolvers.memory.dreamer.spend import cost_usd
from resolvers.skills.fields import content_problems
from resolvers.skills.form import form_check
from resolvers.skills.lessons import Lesson
from resolvers.skills.polish import POLISH_MIN_LESSONS, polish_problems
from resolvers.skills.versions import Author, NewVersion, add_version

log = logging.getLogger("skillmem.polish")

POLISH_JOB = "skills.polish"
POLISH_CRON = "*/5 * * * *"
# The author of a polished version: its actor says it was polished.
POLISH_ACTOR: Author = ("system", None, "automatic polish")
# The most skill states one sweep looks at (the rest at the next).
MAX_LOOKS = 200
NO_POLISH = (
    "automatic polish skipped: the Dreamer reader {name!r} cannot polish (a reader that does "
    "has: async def polish(self, batch: PolishBatch) -> PolishAnswer)"
)
PERSON_CHANGED = "a person changed the skill after its last lesson"
STILL_FAILS = "the form check fails on polish's own version; left to a person"
NO_CREDITS = "the workspace has no AI credits"
OVER_ALLOWANCE = "over the allowance"
MOVED = "the skill changed meanwhile"


@dataclass(frozen=True, slots=True)
class Look:
    """One skill state as read: the skill, its waiting lessons, why polish runs, the form
    check's failures, and who pays."""

    candidate: Candidate
    skill: SkillRow
    lessons: list[LessonRow]
    trigger: PolishTrigger
    form_problems: list[str]
    payer_kind: str
    payer_id: UUID | None


@dataclass(frozen=True, slots=True)
class PolishReport:
    """What one look did: the skill, what was recorded (None: nothing, see ``note``)."""

    candidate: Candidate
    name: str = ""
    recorded: PolishRow | None = None
    note: str = ""


async def run_periodic(pool: asyncpg.Pool, now: datetime, settings: PassSettings) -> list[str]:
    """The periodic job: every skill state to look at, one line each that did something; one
    line saying so when the reader cannot polish."""
    if polisher_of(settings.reader) is None:
        return [NO_POLISH.format(name=settings.reader_name)]
    return [report_line(r) for r in await run_due(pool, now, settings) if r.recorded]


async def run_due(
    pool: asyncpg.Pool,
    now: datetime,
    settings: PassSettings,
    workspaces: Collection[UUID] | None = None,
) -> list[PolishReport]:
    """Look at every skill state due (only those of ``workspaces`` when given), one after the
    other; nothing when the reader cannot polish."""
    polisher = polisher_of(settings.reader)
    if polisher is None:
        return []
    async with pool.acquire() as proxy:
        chosen = None if workspaces is None else list(workspaces)
        conn = cast(asyncpg.Connection, proxy)
        found = await skill_polish.candidates(conn, POLISH_MIN_LESSONS, MAX_LOOKS, chosen)
    return [await _isolated(pool, c, settings, polisher) for c in found]


async def _isolated(
    pool: asyncpg.Pool, candidate: Candidate, settings: PassSettings, polisher: Polisher
) -> PolishReport:
    """``polish_skill``, whose failure is logged and keeps no other skill waiting."""
    try:
        return await polish_skill(pool, candidate, settings, polisher)
    except Exception as error:  # noqa: BLE001 - one skill's failure never stops the others
        log.exception("polish of %s failed", skill_key(candidate))
        return PolishReport(candidate, note=f"failed ({type(error).__name__})")


def skill_key(candidate: Candidate) -> str:
    """The name of one skill's polish: its lock's (ids only)."""
    return f"polish:{candidate.workspace_id}:{candidate.skill_id}"


async def polish_skill(
    pool: asyncpg.Pool, candidate: Candidate, settings: PassSettings, polisher: Polisher
) -> PolishReport:
    """One look at a skill's state, under the skill's lock (another look at the same skill
    anywhere: this one does nothing)."""
    async with guard.named_lock(pool, skill_key(candidate)) as taken:
        if not taken:
            return PolishReport(candidate, note="running elsewhere")
        async with pool.acquire() as proxy:
            conn = cast(asyncpg.Connection, proxy)
            return await _polish(conn, candidate, settings, polisher)


async def _polish(
    conn: asyncpg.Connection, candidate: Candidate, settings: PassSettings, polisher: Polisher
) -> PolishReport:
    started = clock.now()
    async with conn.transaction():
        await begin_workspace(conn, candidate.workspace_id)
        look = await _look(conn, candidate, settings, started)
    if not isinstance(look, Look):
        return look
    try:
        answer: PolishAnswer | None = await polisher.polish(_batch(look, started))
        usage, failure = answer.usage if answer else Usage(), ""
    except ReaderError as error:
        log.warning("polish of %s failed: %s", skill_key(candidate), error)
        answer, usage, failure = None, error.usage, f"the reader failed: {error}"
    base = _row(look, settings, started, "failed", failure, usage)
    try:
        async with conn.transaction():
            await begin_workspace(conn, candidate.workspace_id)
            return await _write(conn, look, base, answer)
    except Exception as error:  # noqa: BLE001 - the reader was paid: the look is recorded
        log.exception("polish of %s failed writing", skill_key(candidate))
        why = f"writing failed ({type(error).__name__}), nothing applied"
        async with conn.transaction():
            await begin_workspace(conn, candidate.workspace_id)
            return await _record(conn, look, replace(base, reason=why))


async def _look(
    conn: asyncpg.Connection, candidate: Candidate, settings: PassSettings, started: datetime
) -> Look | PolishReport:
    """The skill's state read again and what it calls for; a report when nothing is asked
    (recorded when it is final for this state)."""
    skill = await skill_polish.latest(conn, candidate.skill_id)
    waiting = await skills.waiting_lessons(conn, candidate.skill_id)
    if skill is None or _state(skill.latest_version, waiting) != _state(
        candidate.version, candidate.lessons
    ):
        return PolishReport(candidate, note=MOVED)
    failed = [f"{c.name}: {c.why}" for c in form_check(skill.name, skill.content) if not c.passed]
    trigger: PolishTrigger = "lessons" if len(waiting) >= POLISH_MIN_LESSONS else "form"
    payer_kind = "member" if skill.owner_member_id is not None else "workspace"
    look = Look(candidate, skill, waiting, trigger, failed, payer_kind, skill.owner_member_id)
    if trigger == "form" and not failed:
        return await _record(conn, look, _row(look, settings, started, "checked"), "none")
    if await skill_polish.changed_by_person(conn, skill.id):
        return await _record(conn, look, _row(look, settings, started, "skipped", PERSON_CHANGED))
    if trigger == "form" and (skill.author_kind, None, skill.author_name) == POLISH_ACTOR:
        return await _record(conn, look, _row(look, settings, started, "skipped", STILL_FAILS))
    facts = await dreamer_pass.workspace_facts(conn)
    if not facts.ai_credits:
        return PolishReport(candidate, skill.name, note=NO_CREDITS)
    spent = await dreamer_pass.spent(conn, payer_kind, look.payer_id, month_of(started))
    if spent >= allowance(facts, payer_kind):
        return PolishReport(candidate, skill.name, note=OVER_ALLOWANCE)
    return look


def _state(version: int, lessons: list[LessonRow] | str) -> tuple[int, str]:
    if isinstance(lessons, str):
        return version, lessons
    return version, ",".join(str(row.id) for row in sorted(lessons, key=lambda row: row.id))


def _batch(look: Look, started: datetime) -> PolishBatch:
    return PolishBatch(
        name=look.skill.name,
        description=look.skill.description,
        body=look.skill.content,
        lessons=tuple(PolishLesson(day=row.day, text=row.text) for row in look.lessons),
        form_problems=tuple(look.form_problems),
        trigger=look.trigger,
        today=clock.utc_day(started),
    )


async def _write(
    conn: asyncpg.Connection, look: Look, base: PolishRow, answer: PolishAnswer | None
) -> PolishReport:
    """What the draft becomes, on the skill locked and read again."""
    skill = look.skill
    latest = await skill_polish.lock(conn, skill.id)
    waiting = await skills.waiting_lessons(conn, skill.id)
    if latest is None or _state(latest, waiting) != _state(skill.latest_version, look.lessons):
        return PolishReport(look.candidate, skill.name, note=MOVED)
    if answer is None:
        return await _record(conn, look, base)
    draft = answer.body
    if draft == skill.content:
        return await _record(conn, look, replace(base, outcome="unchanged", reason=""))
    problems = refusals(skill.content, draft, look.lessons)
    if problems:
        return await _record(conn, look, replace(base, outcome="refused", reason=problems))
    version = NewVersion.after(skill, body=draft)
    await add_version(conn, POLISH_ACTOR, version)
    await skills.fold_lessons(conn, skill.id, version.number, [row.id for row in waiting])
    polished = replace(base, outcome="polished", reason="", new_version=version.number)
    return await _record(conn, look, polished)


def refusals(old_body: str, draft: str, lessons: list[LessonRow]) -> str:
    """Why a draft may not replace ``old_body`` ('' when it may): the polish guards but the
    count of lessons (what called for polish was decided already), and the body's own rules."""
    found = [Lesson(row.day, row.text) for row in lessons]
    problems = [p for p in polish_problems(old_body, draft, found) if p.field != "lessons"]
    problems += content_problems(draft)
    return "; ".join(problem.message for problem in problems)


def _row(
    look: Look,
    settings: PassSettings,
    started: datetime,
    outcome: str,
    reason: str = "",
    usage: Usage | None = None,
) -> PolishRow:
    spent = usage or Usage()
    return PolishRow(
        id=uuid4(),
        version=look.candidate.version,
        lessons=look.candidate.lessons,
        trigger=look.trigger,
        outcome=outcome,
        new_version=None,
        reason=reason,
        reader=settings.reader_name,
        payer_kind=look.payer_kind,
        payer_id=look.payer_id,
        input_tokens=spent.input_tokens,
        output_tokens=spent.output_tokens,
        cost_usd=cost_usd(spent, settings.prices),
        created_at=clock.now(),
    )


async def _record(
    conn: asyncpg.Connection, look: Look, row: PolishRow, trigger: str | None = None
) -> PolishReport:
    """Record the look (once per state: another worker's record wins) and charge what the
    reader spent to the payer, like a pass."""
    row = replace(row, trigger=trigger or row.trigger)
    if not await skill_polish.insert_polish(conn, look.skill.id, row):
        return PolishReport(look.candidate, look.skill.name, note="recorded elsewhere")
    if row.outcome not in ("checked", "skipped"):
        month = month_of(row.created_at)
        await dreamer_pass.charge(conn, row.payer_kind, row.payer_id, month, row.cost_usd)
    return PolishReport(look.candidate, look.skill.name, recorded=row)


def report_line(report: PolishReport) -> str:
    """How one look is told on the command line and in the log."""
    c, row = report.candidate, report.recorded
    head = f"polish of skill {report.name} in workspace {c.workspace_id}"
    if row is None:
        return f"{head}: {report.note}"
    done = f"version {row.new_version}" if row.new_version is not None else row.outcome
    if row.outcome == "polished":
        done = f"polished into {done}"
    line = f"{head} ({row.trigger}): {done}; cost ${row.cost_usd}"
    return f"{line} ({row.reason})" if row.reason else line
