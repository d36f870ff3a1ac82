"""Spend through the pass on the real database (issue 10, item 7; DESIGN §5 "Allowances"):
who pays each pass, the pass that crosses the allowance, the raised allowance, "0", and a
workspace without AI credits. The reader reports its tokens; the prices are the settings'."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from db.pool import begin_workspace
from resolvers.memory.dreamer.passes import PassSettings, Prices
from resolvers.memory.dreamer.reader import Usage
from tests.factories import agent_id, company, data, gql
from tests.memory.dreamer import intake_api
from tests.memory.dreamer.dreaming import FixedReader, items_of, said
from tests.memory.dreamer.intake_api import PROPOSE, admin_key, meeting, run
from tests.memory.dreamer.rulebook import HOUR, SOON, T0, dream_at

DECEMBER = datetime(2026, 12, 1, tzinfo=UTC)


def priced(tokens: int) -> PassSettings:
    """A reader that spends ``tokens`` input tokens a pass, at 1 USD a million."""
    reader = FixedReader(usage=Usage(input_tokens=tokens, output_tokens=0))
    return PassSettings(reader=reader, reader_name="test", prices=Prices(Decimal(1), Decimal(0)))


async def spend(pool, ws) -> dict[tuple[str, object], tuple[Decimal, int]]:
    """This month's spend by payer: (cost, passes)."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        rows = await conn.fetch(
            "SELECT payer_kind, payer_id, cost_usd, passes FROM memory_spend WHERE month = $1",
            T0.date().replace(day=1),
        )
    return {(r["payer_kind"], r["payer_id"]): (Decimal(r["cost_usd"]), r["passes"]) for r in rows}


async def patch_settings(client, ws, **changes) -> None:
    response = await client.patch(
        "/tenant/settings",
        json=changes,
        headers={"authorization": f"Bearer {ws.tokens['admin']}"},
    )
    assert response.status_code == 200, response.text


async def test_each_pass_is_charged_to_its_payer(pool, ws, client, stand):
    acme = await company(pool, ws, "Acme")
    scout = await agent_id(pool, ws)
    stand(T0)
    # A person's conversation and a proposal for them; Scout's run (Scout acts for the member
    # but is the admin's); a workspace meeting; an API key's proposal.
    await said(pool, ws, "member", "Remember: I prefer calls", T0)
    data(await gql(client, ws.tokens["agent"], PROPOSE, {"t": "Acme likes calls", "r": acme}))
    data(await run(client, ws.tokens["agent"], retried=True))
    data(await meeting(client, ws.tokens["admin"], scope="WORKSPACE", recordIds=[acme]))
    data(await gql(client, await admin_key(pool, ws), PROPOSE, {"t": "Quotes go in EUR"}))
    reports = await dream_at(pool, ws, T0 + 2 * HOUR, settings=priced(100_000))
    owners = sorted((r.owner.owner_kind, r.owner.owner_id, r.read) for r in reports)
    assert owners == sorted(
        [("member", ws.members["member"], 2), ("agent", scout, 1), ("workspace", None, 2)]
    )
    assert await spend(pool, ws) == {
        ("member", ws.members["member"]): (Decimal("0.1"), 1),
        ("member", ws.members["admin"]): (Decimal("0.1"), 1),
        ("workspace", None): (Decimal("0.1"), 1),
    }
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        passes = await conn.fetch(
            "SELECT owner_kind, payer_kind, payer_id, reader, items, input_tokens, cost_usd"
            " FROM memory_passes ORDER BY owner_kind"
        )
    assert [tuple(p) for p in passes] == [
        ("agent", "member", ws.members["admin"], "test", 1, 100_000, Decimal("0.1")),
        ("member", "member", ws.members["member"], "test", 2, 100_000, Decimal("0.1")),
        ("workspace", "workspace", None, "test", 2, 100_000, Decimal("0.1")),
    ]


async def test_the_crossing_pass_reads_all_its_items(pool, ws, stand):
    # $0.90 spent of the person's $1.00: the next pass starts, reads its three items, and is
    # charged its whole cost.
    stand(T0)
    await said(pool, ws, "member", "Remember: first", T0)
    await dream_at(pool, ws, T0 + SOON, settings=priced(900_000))
    later = T0 + HOUR
    stand(later)
    made = [await said(pool, ws, "member", f"Remember: note {n}", later) for n in range(3)]
    [report] = await dream_at(pool, ws, later + SOON, settings=priced(600_000))
    assert (report.read, report.waiting, report.cost_usd) == (3, 0, Decimal("0.6"))
    assert [row["status"] for row in await items_of(pool, ws, made)] == ["read"] * 3
    assert await spend(pool, ws) == {("member", ws.members["member"]): (Decimal("1.5"), 2)}


async def test_a_raised_allowance_reads_what_waited_once_something_new_arrives(
    pool, ws, client, stand
):
    settings = priced(1_200_000)
    stand(T0)
    await said(pool, ws, "member", "Remember: note 0", T0)
    await dream_at(pool, ws, T0 + SOON, settings=settings)
    # Over the allowance: what arrives is kept for the first day of next month.
    kept = []
    for n in (1, 2):
        at = T0 + n * HOUR
        stand(at)
        kept.append(await said(pool, ws, "member", f"Remember: note {n}", at))
        [report] = await dream_at(pool, ws, at + SOON, settings=settings)
        assert (report.read, report.waiting, report.note) == (0, n, "over the allowance")
    rows = await items_of(pool, ws, kept)
    assert [(r["status"], r["deferred_until"]) for r in rows] == [("waiting", DECEMBER)] * 2
    # Raised: nothing is due by itself ...
    stand(T0 + 3 * HOUR)
    await patch_settings(client, ws, memoryPersonMonthlyLimitUsd="3")
    assert await dream_at(pool, ws, T0 + 3 * HOUR + SOON, settings=settings) == []
    # ... until something new arrives: its pass reads what waited too.
    at = T0 + 4 * HOUR
    stand(at)
    kept.append(await said(pool, ws, "member", "Remember: note 3", at))
    [report] = await dream_at(pool, ws, at + SOON, settings=settings)
    assert (report.read, report.waiting) == (3, 0)
    assert [r["status"] for r in await items_of(pool, ws, kept)] == ["read"] * 3
    assert await spend(pool, ws) == {("member", ws.members["member"]): (Decimal("2.4"), 2)}


async def test_a_zero_allowance_stops_every_pass_but_proposals(pool, ws, client, stand):
    stand(T0)
    await patch_settings(client, ws, memoryPersonMonthlyLimitUsd="0")
    message = await said(pool, ws, "member", "Remember: I prefer calls", T0)
    settings = priced(100_000)
    [report] = await dream_at(pool, ws, T0 + SOON, settings=settings)
    assert (report.read, report.waiting, report.note) == (0, 1, "over the allowance")
    # A proposal is still read within minutes; the message keeps waiting.
    at = T0 + HOUR
    stand(at)
    proposal = data(await gql(client, ws.tokens["agent"], PROPOSE, {"t": "I prefer calls"}))
    [report] = await dream_at(pool, ws, at + SOON, settings=settings)
    assert (report.read, report.waiting, report.note) == (1, 1, "over the allowance")
    [row] = await intake_api.items(pool, ws, "proposal")
    assert row["status"] == "read"
    assert (await items_of(pool, ws, [message]))[0]["status"] == "waiting"
    assert proposal["proposeMemory"]["status"] == "WAITING"


async def test_without_ai_credits_nothing_runs_not_even_proposals(pool, ws, client, stand):
    stand(T0)
    await patch_settings(client, ws, aiCredits=False)
    message = await said(pool, ws, "member", "Remember: I prefer calls", T0)
    data(await gql(client, ws.tokens["agent"], PROPOSE, {"t": "I prefer calls"}))
    settings = priced(100_000)
    [report] = await dream_at(pool, ws, T0 + SOON, settings=settings)
    assert (report.read, report.waiting) == (0, 2)
    assert report.note == "the workspace has no AI credits"
    assert settings.reader.calls == []  # type: ignore[attr-defined]
    found = await intake_api.items(pool, ws)
    assert [r["status"] for r in found] == ["waiting", "waiting"]
    assert await spend(pool, ws) == {}
    # They wait, and are read once the workspace has credits again.
    stand(T0 + HOUR)
    await patch_settings(client, ws, aiCredits=True)
    [report] = await dream_at(pool, ws, T0 + 2 * HOUR, settings=settings)
    assert report.read == 2
    assert (await items_of(pool, ws, [message]))[0]["status"] == "read"


@pytest.mark.parametrize("limit", ["0.5", None])
async def test_a_workspace_meeting_is_paid_by_the_workspaces_allowance(
    pool, ws, client, stand, limit
):
    # The workspace's own $5.00 (or what it sets) pays; a person's allowance does not.
    acme = await company(pool, ws, "Acme")
    stand(T0)
    await patch_settings(client, ws, memoryPersonMonthlyLimitUsd="0")
    if limit is not None:
        await patch_settings(client, ws, memoryTenantMonthlyLimitUsd=limit)
    for n in range(2):
        at = T0 + 2 * n * HOUR
        stand(at)
        given = {"scope": "WORKSPACE", "recordIds": [acme], "externalId": f"m{n}"}
        data(await meeting(client, ws.tokens["admin"], **given))
        [report] = await dream_at(pool, ws, at + HOUR + SOON, settings=priced(600_000))
        over = limit is not None and n == 1
        assert (report.read, report.note) == ((0, "over the allowance") if over else (1, ""))
