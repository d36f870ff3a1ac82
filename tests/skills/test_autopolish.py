"""Automatic polish (resolvers/skills/autopolish.py, issue 12 item 4): the periodic job's
sweep on the real database, with the rules reader or a drafting reader of the tests' own."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from gateway.worker.periodic import periodic_jobs
from resolvers.memory.dreamer.reader import Usage
from resolvers.memory.dreamer.rules import RulesReader
from resolvers.skills import autopolish, writing
from resolvers.skills.autopolish import PERSON_CHANGED, POLISH_ACTOR, STILL_FAILS
from tests.factories import data, gql
from tests.skills.bodies import body
from tests.skills.polishing import (
    NAME,
    Drafting,
    add_lessons,
    as_principal,
    fetch,
    lessons,
    looks,
    make_skill,
    settings_of,
    sweep,
    versions,
)

THREE = ("Check the migrations first.", "Warn the on-call person.", "Tag the release.")


async def test_two_lessons_call_for_no_polish(pool, ws):
    await make_skill(pool, ws)
    await add_lessons(pool, ws, *THREE[:2])
    drafting = Drafting()
    await sweep(pool, ws, drafting)
    assert drafting.batches == []
    [look] = await looks(pool, ws)
    assert (look["version"], look["trigger"], look["outcome"]) == (1, "none", "checked")
    assert [v["version"] for v in await versions(pool, ws)] == [1]
    assert await lessons(pool, ws) == [(THREE[0], None), (THREE[1], None)]


async def test_three_lessons_make_a_polished_version_with_its_lessons_folded(pool, ws):
    await make_skill(pool, ws)
    await add_lessons(pool, ws, *THREE[:2])
    await sweep(pool, ws)
    await add_lessons(pool, ws, THREE[2])
    [report] = await sweep(pool, ws)
    assert report.recorded is not None and report.recorded.outcome == "polished"
    first, polished = await versions(pool, ws)
    assert (polished["version"], polished["author_kind"], polished["author_name"]) == (
        2,
        "system",
        "automatic polish",
    )
    assert POLISH_ACTOR == ("system", None, "automatic polish")
    assert all(text in polished["content"] for text in THREE)
    assert first["content"] == body()
    assert await lessons(pool, ws) == [(text, 2) for text in THREE]
    *_, look = await looks(pool, ws)
    assert (look["trigger"], look["outcome"], look["new_version"]) == ("lessons", "polished", 2)
    # Version 2 passes the form and has no lesson waiting: looked at, nothing to do.
    await sweep(pool, ws)
    *_, last = await looks(pool, ws)
    assert (last["version"], last["outcome"]) == (2, "checked")
    assert len(await versions(pool, ws)) == 2


async def test_a_failing_form_check_calls_for_polish_once(pool, ws):
    await make_skill(pool, ws, content=body(check=None))  # no Check section
    await add_lessons(pool, ws, THREE[0])
    drafting = Drafting()
    await sweep(pool, ws, drafting)
    [batch] = drafting.batches
    assert batch.trigger == "form" and any(p.startswith("check") for p in batch.form_problems)
    [look] = await looks(pool, ws)
    assert (look["trigger"], look["outcome"], look["new_version"]) == ("form", "polished", 2)
    assert await lessons(pool, ws) == [(THREE[0], 2)]
    # Polish's own version still fails the form: left to a person, never rewritten in a loop.
    await sweep(pool, ws, drafting)
    assert len(drafting.batches) == 1
    *_, last = await looks(pool, ws)
    assert (last["version"], last["outcome"], last["reason"]) == (2, "skipped", STILL_FAILS)
    await sweep(pool, ws, drafting)
    assert len(await looks(pool, ws)) == 2


def _grown_steps(batch: Any) -> str:
    return body(steps="\n".join(f"{n}. Step {n}" for n in range(1, 6)))


def _absolute_path(batch: Any) -> str:
    return body(steps="1. Run the tests\n2. Build in /srv/app/build\n3. Deploy")


def _long_reflex(batch: Any) -> str:
    return body(reflex="Stop and ask. " * 40)


@pytest.mark.parametrize(
    "draft, why",
    [
        (_grown_steps, "steps grew from 3 to 5"),
        (_absolute_path, "introduces the absolute path /srv/app/build"),
        (_long_reflex, "reflex has 559 characters"),
    ],
)
async def test_each_guard_refuses_a_bad_draft_and_keeps_the_original(pool, ws, draft, why):
    await make_skill(pool, ws)
    await add_lessons(pool, ws, *THREE)
    await sweep(pool, ws, Drafting(draft))
    [look] = await looks(pool, ws)
    assert (look["trigger"], look["outcome"], look["new_version"]) == ("lessons", "refused", None)
    assert why in look["reason"]
    [only] = await versions(pool, ws)
    assert only["content"] == body()
    assert await lessons(pool, ws) == [(text, None) for text in THREE]


async def test_a_state_is_looked_at_once(pool, ws):
    await make_skill(pool, ws)
    await add_lessons(pool, ws, *THREE)
    drafting = Drafting(_grown_steps)
    await sweep(pool, ws, drafting)
    await sweep(pool, ws, drafting)
    assert len(drafting.batches) == 1
    assert [look["outcome"] for look in await looks(pool, ws)] == ["refused"]
    # A new lesson is a new state: looked at again.
    await add_lessons(pool, ws, "Announce it in the channel.")
    await sweep(pool, ws, drafting)
    assert len(drafting.batches) == 2


async def test_a_skill_a_person_changed_after_its_last_lesson_is_not_polished(pool, ws):
    await make_skill(pool, ws)
    await add_lessons(pool, ws, *THREE)

    async def edit(conn: Any, principal: Any) -> Any:
        return await writing.update_skill(conn, principal, NAME, description="Deploy, safely.")

    await as_principal(pool, ws, "member", edit)
    drafting = Drafting()
    await sweep(pool, ws, drafting)
    assert drafting.batches == []
    [look] = await looks(pool, ws)
    assert (look["version"], look["outcome"], look["reason"]) == (2, "skipped", PERSON_CHANGED)
    assert [v["author_kind"] for v in await versions(pool, ws)] == ["member", "member"]
    # A lesson after the person's change: polished again.
    await add_lessons(pool, ws, "Announce it in the channel.")
    await sweep(pool, ws, drafting)
    *_, last = await looks(pool, ws)
    assert (last["outcome"], last["new_version"]) == ("polished", 3)


@pytest.mark.parametrize("private", [False, True])
async def test_polish_is_charged_to_the_owner_else_the_workspace(pool, ws, private):
    await make_skill(pool, ws, visibility="private" if private else None)
    await add_lessons(pool, ws, *THREE)
    # 2,000,000 input tokens at 1.5 USD a million.
    drafting = Drafting(usage=Usage(input_tokens=2_000_000))
    await sweep(pool, ws, drafting, per_mtok="1.5")
    [look] = await looks(pool, ws)
    assert look["outcome"] == "polished" and look["cost_usd"] == Decimal("3")
    spend = await fetch(pool, ws, "SELECT payer_kind, payer_id, cost_usd, passes FROM memory_spend")
    payer = ("member", ws.members["member"]) if private else ("workspace", None)
    assert [tuple(row) for row in spend] == [(*payer, Decimal("3"), 1)]
    assert (look["payer_kind"], look["payer_id"]) == payer


NO_CREDITS = """INSERT INTO workspace_settings (workspace_id, ai_credits)
VALUES (app_workspace_id(), false)
ON CONFLICT (workspace_id) DO UPDATE SET ai_credits = false"""
# The workspace has spent a thousand dollars this month: over any default allowance.
SPENT = """INSERT INTO memory_spend (workspace_id, payer_kind, payer_id, month, cost_usd, passes)
VALUES (app_workspace_id(), 'workspace', NULL, date_trunc('month', now())::date, 1000, 1)"""


@pytest.mark.parametrize(
    "statement, note",
    [(NO_CREDITS, autopolish.NO_CREDITS), (SPENT, autopolish.OVER_ALLOWANCE)],
)
async def test_without_credits_or_allowance_nothing_is_asked_nor_recorded(
    pool, ws, statement, note
):
    await make_skill(pool, ws)
    await add_lessons(pool, ws, *THREE)
    await fetch(pool, ws, statement)
    drafting = Drafting()
    [report] = await sweep(pool, ws, drafting)
    assert report.note == note and drafting.batches == []
    assert await looks(pool, ws) == []


async def test_the_rules_reader_polishes_as_polish_skill_does(pool, ws):
    await make_skill(pool, ws)
    await add_lessons(pool, ws, *THREE)
    reports = await autopolish.run_due(pool, _now(), settings_of(), {ws.id})
    [report] = reports
    assert report.recorded is not None and report.recorded.reader == "rules"
    polished = (await versions(pool, ws))[-1]["content"]
    assert polished.endswith(
        "## Lessons\n\n" + "\n".join(f"- {_today()}: {text}" for text in THREE) + "\n"
    )
    assert "polish of skill deploy-workflow" in autopolish.report_line(report)


async def test_the_job_is_periodic_and_says_when_the_reader_cannot_polish(pool):
    [job] = [job for job in periodic_jobs() if job.name == autopolish.POLISH_JOB]
    assert job.cron == autopolish.POLISH_CRON

    class ReadsOnly:
        async def read(self, batch: Any) -> Any:
            raise AssertionError

    lines = await job.run(pool, _now(), settings_of(ReadsOnly()))
    assert lines == [autopolish.NO_POLISH.format(name="test")]
    assert callable(RulesReader().polish)


def _now() -> Any:
    from resolvers.common import clock

    return clock.now()


def _today() -> str:
    return _now().date().isoformat()


async def test_the_looks_are_read_on_the_skill(pool, ws, client):
    await make_skill(pool, ws)
    await add_lessons(pool, ws, *THREE)
    await sweep(pool, ws, Drafting(_grown_steps))
    query = (
        '{ skill(name: "deploy-workflow") { version polishes'
        " { version trigger outcome newVersion reason reader costUsd } } }"
    )
    found = data(await gql(client, ws.tokens["viewer"], query), "skill")
    [look] = found["polishes"]
    assert found["version"] == 1
    assert look == {
        "version": 1,
        "trigger": "lessons",
        "outcome": "refused",
        "newVersion": None,
        "reason": look["reason"],
        "reader": "test",
        "costUsd": "0",
    }
    assert "steps grew from 3 to 5" in look["reason"]
