"""Records entering in bulk (the `/v1/records` route and `skillmem load`): create or update,
permission-checked, change log written, all or nothing, every refused line reported.

Each line is first planned (plan.py: the change, or the problems), then applied here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal
from uuid import UUID, uuid4

import asyncpg

from db import identity, records
from resolvers.common import ids
from resolvers.common.errors import Code, DomainError, Problem
from resolvers.common.principals import Principal
from resolvers.records.lines import RecordLine, parse_lines
from resolvers.records.plan import (
    Batch,
    LinePlan,
    attribute_of,
    find_target,
    plan_line,
    quiet_decode,
)


@dataclass(slots=True)
class LineResult:
    line: int
    id: str
    operation: Literal["create", "update", "unchanged"]


async def write_records(
    conn: asyncpg.Connection, principal: Principal, raw_lines: list[Any]
) -> list[LineResult]:
    """Create or update every line, or nothing: a refused line raises with every problem.

    Runs in a savepoint of the caller's transaction, so a refusal leaves no trace.
    """
    lines, problems = parse_lines(raw_lines)
    if not raw_lines:
        problems.append(Problem("no records given", field="records"))
    if problems and not lines:
        raise _refusal(problems)
    # The lines that parsed are still checked, so that every problem is reported at once.
    # A savepoint: the bulk route and `skillmem load` share the caller's transaction with
    # nothing else, but a refused batch must leave none of its earlier lines behind.
    async with conn.transaction():
        batch = await _load_batch(conn, principal, [line for _, line in lines])
        results: list[LineResult] = []
        for number, line in lines:
            outcome = await _write_line(conn, principal, batch, number, line)
            if isinstance(outcome, LineResult):
                results.append(outcome)
            else:
                problems.extend(outcome)
        if problems:
            raise _refusal(sorted(problems, key=lambda p: p.line or 0))
    return results


def _refusal(problems: list[Problem]) -> DomainError:
    codes = {p.code for p in problems}
    code = codes.pop() if len(codes) == 1 else None
    if code is None:
        code = Code.SCHEMA_VALIDATION_FAILED
    refused = len({p.line for p in problems})
    return DomainError(code, f"Nothing was written: {refused} line(s) refused.", problems)


async def _load_batch(
    conn: asyncpg.Connection, principal: Principal, lines: list[RecordLine]
) -> Batch:
    """Every object, every record the lines name (by id or external id) and every member."""
    objects = {o.slug: o for o in await records.objects(conn)}
    wanted_ids: list[UUID] = []
    wanted_refs: list[tuple[str, str]] = []
    emails: set[str] = set()
    for line in lines:
        named = [line.id] if line.id else []
        if line.external_id:
            wanted_refs.append((line.object, line.external_id))
        for attribute, ref in line.relations.items():
            target = attribute_of(objects.get(line.object), attribute)
            if ref is None or target is None or target.target is None:
                continue
            if ref.id:
                named.append(ref.id)
            elif ref.external_id:
                wanted_refs.append((target.target, ref.external_id))
        wanted_ids += [
            local for g in named if (local := quiet_decode(g, principal.workspace_id)) is not None
        ]
        emails.update(line.shared_with or [])
        if line.owner:
            emails.add(line.owner)
    targets = await records.record_targets(
        conn, wanted_ids, wanted_refs, principal.readable_objects, principal.person_id
    )
    members = await identity.members_by_emails(conn, sorted(emails))
    return Batch(
        objects=objects,
        by_id={t.id: t for t in targets},
        by_external={(t.object, t.external_id): t for t in targets if t.external_id},
        members={m.email: m.id for m in members},
    )


async def _write_line(
    conn: asyncpg.Connection, principal: Principal, batch: Batch, number: int, line: RecordLine
) -> LineResult | list[Problem]:
    """Plan one line and apply it. A new external id another request created meanwhile is
    planned again as an update of that record (one creates, the others update)."""
    # A second pass follows only a concurrent create, which committed (then the line updates
    # it) or rolled back (then the line creates it).
    while True:
        target = find_target(principal, batch, number, line)
        if isinstance(target, list):
            return target
        if target.key is not None:
            batch.seen.add(target.key)
        plan = plan_line(principal, batch, number, line, target)
        if isinstance(plan, list):
            return plan
        result = await _apply(conn, principal, batch, plan)
        if result is not None:
            return result
        assert line.external_id is not None
        batch.seen.discard(target.key)
        await _reload(conn, principal, batch, line.object, line.external_id)


async def _reload(
    conn: asyncpg.Connection, principal: Principal, batch: Batch, slug: str, external_id: str
) -> None:
    """Learn the record another request created with this external id."""
    found = await records.record_targets(
        conn, [], [(slug, external_id)], principal.readable_objects, principal.person_id
    )
    for target in found:
        batch.by_id[target.id] = target
        batch.by_external[(slug, external_id)] = target


async def _apply(
    conn: asyncpg.Connection, principal: Principal, batch: Batch, plan: LinePlan
) -> LineResult | None:
    """Write a planned change and its change-log entry; None when a new record's external id
    was taken by a concurrent request first (nothing written)."""
    if plan.existing is None:
        record_id = uuid4()
        created = await records.insert_record(
            conn, record_id, plan.obj.id, plan.external_id, plan.label, plan.values,
            plan.visibility, plan.owner,
        )  # fmt: skip
        if not created:
            return None
        if plan.external_id:
            batch.created[(plan.obj.slug, plan.external_id)] = record_id
        batch.created_ids[record_id] = plan.obj.slug
    else:
        record_id = plan.existing.id
    await _write_links(conn, record_id, plan)
    if plan.shares is not None:
        await records.replace_shares(conn, record_id, plan.shares)
    operation: Literal["create", "update"] = "create" if plan.existing is None else "update"
    if plan.changed and operation == "update":
        # Written once whatever changed, so that updated_at moves with relations and shares too.
        await records.update_record(
            conn, record_id, plan.label, plan.values, plan.visibility, plan.owner
        )
    gid = ids.encode("Record", principal.workspace_id, record_id)
    if not plan.changed:
        return LineResult(plan.number, gid, "unchanged")
    row = principal.row
    await records.insert_change(
        conn, record_id, principal.kind, row.actor_id, row.actor_name, operation, plan.changed
    )
    return LineResult(plan.number, gid, operation)


async def _write_links(conn: asyncpg.Connection, record_id: UUID, plan: LinePlan) -> None:
    """Set and clear the relations a plan changes, in slug order."""
    for slug in sorted([*plan.links_set, *plan.links_cleared]):
        target = plan.links_set.get(slug)
        if target is None:
            await records.delete_link(conn, record_id, slug)
        else:
            await records.upsert_link(conn, record_id, slug, target)


def summary(results: list[LineResult]) -> dict[str, Any]:
    """A bulk write as its callers answer it (POST /v1/records, MCP's write_records): counts by
    operation and each line's record."""
    counts = {"create": 0, "update": 0, "unchanged": 0}
    for result in results:
        counts[result.operation] += 1
    return {
        "created": counts["create"],
        "updated": counts["update"],
        "unchanged": counts["unchanged"],
        "records": [{"line": r.line, "id": r.id, "operation": r.operation} for r in results],
    }
