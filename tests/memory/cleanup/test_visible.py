"""memoryCleanups: a person sees their own audience's runs, an admin with `workspace: true`
every run, removals and consolidations alike; a change's page and text only to a reader of its
page; bad arguments listed together; one workspace only; a few statements whatever the runs."""

from __future__ import annotations

from decimal import Decimal
from typing import Any
from uuid import uuid4

from db import cleanups
from db.cleanups import ChangeRow, CleanupRow
from db.pool import begin_workspace
from tests.factories import codes, company, data, gql, local, private_deal, problems, split
from tests.memory.cleanup.removal_world import MONDAY, SUNDAY, line, page_with, remove

CLEANUPS = """
query($workspace: Boolean, $kind: MemoryCleanupKind, $first: Int, $after: String) {
  memoryCleanups(workspace: $workspace, kind: $kind, first: $first, after: $after) {
    cleanups {
      id kind audienceKind audienceId audienceName trigger reader rulesVersion payerKind
      payerName pagesRead linesChanged pagesDeleted costUsd note startedAt changeCount
      changes { number change reason shown pageId lineKey text newText newType }
    }
    endCursor
  }
}"""


async def _world(pool, ws) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """A removal over Acme's page, a private deal's page, two profiles; and a consolidation of
    the member's profile recorded beside it (as consolidation records its runs)."""
    acme = local(ws, await company(pool, ws, "Acme"))
    deal = local(ws, await private_deal(pool, ws, "other", "Their deal"))
    pages = {
        "acme": await page_with(
            pool, ws, "record", acme, [line("acme ended", until=SUNDAY), line("a")]
        ),
        "deal": await page_with(
            pool, ws, "record", deal, [line("deal ended", until=SUNDAY), line("d")]
        ),
        "member": await page_with(
            pool, ws, "member", ws.members["member"], [line("mine ended", until=SUNDAY), line("m")]
        ),
        "other": await page_with(
            pool, ws, "member", ws.members["other"], [line("theirs ended", until=SUNDAY), line("o")]
        ),
    }
    await remove(pool, ws)
    later = MONDAY.replace(hour=9)
    run = CleanupRow(
        uuid4(),
        "consolidation",
        "member",
        ws.members["member"],
        "written",
        "rules",
        later,
        later,
        rules_version=1,
        payer_kind="member",
        payer_id=ws.members["member"],
        pages_read=1,
        lines_changed=1,
        cost_usd=Decimal("0.001200"),
    )
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        await cleanups.insert_cleanup(conn, run)
        await cleanups.insert_changes(
            conn,
            run.id,
            [ChangeRow(pages["member"], "retyped", "retyped", "k1", "m", "m", "préférence")],
            later,
        )
    return pages


def _runs(response) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    return data(response, "memoryCleanups")["cleanups"]  # type: ignore[no-any-return]


async def test_a_person_sees_their_own_audiences_runs_with_their_changes(client, pool, ws):
    pages = await _world(pool, ws)
    found = _runs(await gql(client, ws.tokens["member"], CLEANUPS))
    assert [(r["kind"], r["trigger"], r["reader"]) for r in found] == [
        ("CONSOLIDATION", "written", "rules"),
        ("REMOVAL", "monday", "code"),
    ]
    consolidation, removal = found
    assert consolidation["costUsd"] == "0.0012" and consolidation["payerName"] == "Member"
    assert removal["audienceKind"] == "member"
    assert removal["audienceId"] == ws.gid(ws.members["member"], "Member")
    assert (removal["pagesRead"], removal["linesChanged"], removal["changeCount"]) == (1, 1, 1)
    assert removal["costUsd"] == "0" and removal["payerKind"] is None
    [change] = removal["changes"]
    assert change == {
        "number": 1,
        "change": "removed",
        "reason": "ended",
        "shown": True,
        "pageId": ws.gid(pages["member"], "MemoryPage"),
        "lineKey": change["lineKey"],
        "text": "mine ended",
        "newText": None,
        "newType": None,
    }
    assert change["lineKey"]
    [retyped] = consolidation["changes"]
    assert (retyped["change"], retyped["newType"], retyped["text"]) == (
        "retyped",
        "préférence",
        "m",
    )
    # Only consolidations, then only removals.
    only = _runs(await gql(client, ws.tokens["member"], CLEANUPS, {"kind": "CONSOLIDATION"}))
    assert [r["id"] for r in only] == [consolidation["id"]]
    only = _runs(await gql(client, ws.tokens["member"], CLEANUPS, {"kind": "REMOVAL"}))
    assert [r["id"] for r in only] == [removal["id"]]
    # The other person sees their own removal only.
    [theirs] = _runs(await gql(client, ws.tokens["other"], CLEANUPS))
    assert [c["text"] for c in theirs["changes"]] == ["theirs ended"]


async def test_an_admin_sees_every_run_and_the_text_of_pages_they_read_only(client, pool, ws):
    pages = await _world(pool, ws)
    found = _runs(await gql(client, ws.tokens["admin"], CLEANUPS, {"workspace": True}))
    assert len(found) == 4
    by_audience = {(r["kind"], r["audienceName"]): r for r in found}
    everyone = by_audience[("REMOVAL", None)]
    assert (everyone["audienceKind"], everyone["pagesRead"], everyone["linesChanged"]) == (
        "workspace",
        2,
        2,
    )
    shown = {c["text"]: c for c in everyone["changes"] if c["shown"]}
    hidden = [c for c in everyone["changes"] if not c["shown"]]
    # Acme's page is theirs to read; the page of the other's private deal is not: its kind and
    # reason only.
    assert list(shown) == ["acme ended"]
    assert shown["acme ended"]["pageId"] == ws.gid(pages["acme"], "MemoryPage")
    assert hidden == [
        {
            "number": hidden[0]["number"],
            "change": "removed",
            "reason": "ended",
            "shown": False,
            "pageId": None,
            "lineKey": None,
            "text": None,
            "newText": None,
            "newType": None,
        }
    ]
    # People's profiles are theirs alone: the admin sees their runs, not their lines.
    for who in ("Member", "Other"):
        [change] = by_audience[("REMOVAL", who)]["changes"]
        assert (change["reason"], change["shown"], change["text"]) == ("ended", False, None)
    [retyped] = by_audience[("CONSOLIDATION", "Member")]["changes"]
    assert (retyped["change"], retyped["newType"]) == ("retyped", None)
    # Without `workspace`, the admin's own audience: none.
    assert _runs(await gql(client, ws.tokens["admin"], CLEANUPS)) == []


async def test_who_may_not_see_the_workspaces_runs(client, pool, ws):
    await _world(pool, ws)
    refused = await gql(client, ws.tokens["member"], CLEANUPS, {"workspace": True})
    assert codes(refused) == ["FORBIDDEN"]
    refused = await gql(client, ws.tokens["api_key"], CLEANUPS)
    assert codes(refused) == ["FORBIDDEN"]
    # An agent acts for its person: that person's runs.
    found = _runs(await gql(client, ws.tokens["agent"], CLEANUPS))
    assert {r["audienceName"] for r in found} == {"Member"}


async def test_pages_of_runs_and_of_changes(client, pool, ws):
    await _world(pool, ws)
    token = ws.tokens["admin"]
    first = data(await gql(client, token, CLEANUPS, {"workspace": True, "first": 3}))
    page = first["memoryCleanups"]
    assert len(page["cleanups"]) == 3 and page["endCursor"]
    rest = data(
        await gql(
            client, token, CLEANUPS, {"workspace": True, "first": 3, "after": page["endCursor"]}
        )
    )["memoryCleanups"]
    assert len(rest["cleanups"]) == 1 and rest["endCursor"] is None
    every = {r["id"] for r in page["cleanups"]} | {r["id"] for r in rest["cleanups"]}
    assert len(every) == 4
    windows = """query { memoryCleanups(workspace: true, kind: REMOVAL) { cleanups {
        audienceKind changeCount
        head: changes(first: 1) { number reason }
        tail: changes(first: 5, after: 1) { number reason } } } }"""
    found = {r["audienceKind"]: r for r in _runs(await gql(client, token, windows))}
    everyone = found["workspace"]
    assert everyone["changeCount"] == 2
    assert [c["number"] for c in everyone["head"]] == [1]
    assert [c["number"] for c in everyone["tail"]] == [2]


async def test_every_bad_argument_is_listed(client, pool, ws):
    token = ws.tokens["admin"]
    response = await gql(client, token, CLEANUPS, {"first": 101, "after": "not a cursor"})
    assert sorted(p["field"] for p in problems(response)) == ["after", "first"]
    bad = "query { memoryCleanups { cleanups { changes(first: 500, after: -1) { number } } } }"
    await _world(pool, ws)
    response = await gql(client, ws.tokens["member"], bad)
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]
    assert sorted(p["field"] for p in response.json()["errors"][0]["extensions"]["problems"]) == [
        "after",
        "first",
    ]
    wrong_kind = await gql(client, token, CLEANUPS, {"kind": "TIDYING"})
    assert codes(wrong_kind) == ["GRAPHQL_VALIDATION_FAILED"]


async def test_one_workspace_only(client, pool, ws, ws2):
    await _world(pool, ws)
    assert _runs(await gql(client, ws2.tokens["admin"], CLEANUPS, {"workspace": True})) == []


async def test_runs_and_their_changes_cost_two_statements(counted, pool, ws):
    client, statements = counted
    await _world(pool, ws)
    token = ws.tokens["admin"]
    await gql(client, token, CLEANUPS, {"workspace": True})
    statements.clear()
    assert len(_runs(await gql(client, token, CLEANUPS, {"workspace": True}))) == 4
    control, sent = split(statements)
    # The request's start, the runs, the changes of every run at once.
    assert len(sent) == 3, sent
    assert "app_begin_request" in sent[0]
