"""Records entering in bulk (the `/v1/records` route and `skillmem load`): create or update,
permission-checked, change log written, all or nothing, every refused line reported."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal
from uuid import UUID, uuid4

import asyncpg
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from db import identity, records
from db.records import ObjectRow, TargetRow
from resolvers.common import ids
from resolvers.common.errors import Code, DomainError, Problem
from resolvers.common.principals import Principal
from resolvers.records.values import label_problem, value_problem

MAX_LINES = 1_000
MAX_SHARES = 100
# Objects whose records no record API may create or change (DESIGN §5; skills have their API).
SYSTEM_KINDS = ("skill", "memory")


class RelationRef(BaseModel):
    """A record a relation points to: by global id, or by external id within the target object."""

    model_config = ConfigDict(extra="forbid")
    id: str | None = None
    external_id: str | None = None

    @model_validator(mode="after")
    def one_way(self) -> RelationRef:
        if (self.id is None) == (self.external_id is None):
            raise ValueError("give exactly one of id and external_id")
        return self


class RecordLine(BaseModel):
    """One record to create or update."""

    model_config = ConfigDict(extra="forbid", strict=True)
    object: str
    id: str | None = None
    external_id: str | None = Field(default=None, min_length=1, max_length=200)
    label: str | None = None
    values: dict[str, Any] = {}
    relations: dict[str, RelationRef | None] = {}
    visibility: Literal["workspace", "private"] | None = None
    owner: str | None = None
    shared_with: list[str] | None = Field(default=None, max_length=MAX_SHARES)


@dataclass(slots=True)
class LineResult:
    line: int
    id: str
    operation: Literal["create", "update", "unchanged"]


@dataclass(slots=True)
class _Batch:
    """What the batch knows: objects, named records and the members it mentions."""

    objects: dict[str, ObjectRow]
    by_id: dict[UUID, TargetRow]
    by_external: dict[tuple[str, str], TargetRow]
    members: dict[str, UUID]
    created: dict[tuple[str, str], UUID] = field(default_factory=dict)
    created_ids: dict[UUID, str] = field(default_factory=dict)
    seen: set[object] = field(default_factory=set)


def parse_lines(raw_lines: list[Any]) -> tuple[list[tuple[int, RecordLine]], list[Problem]]:
    """Validate each raw line's shape; return the good ones (numbered from 1) and problems."""
    good: list[tuple[int, RecordLine]] = []
    problems: list[Problem] = []
    if len(raw_lines) > MAX_LINES:
        problems.append(Problem(f"at most {MAX_LINES} lines per request", field="records"))
        return good, problems
    for number, raw in enumerate(raw_lines, start=1):
        # PostgreSQL stores no NUL character, in text or in jsonb.
        nul = [
            Problem(
                "nests too deep"
                if f and f.endswith("(nested too deep)")
                else "must not contain a NUL character",
                f.removesuffix(" (nested too deep)") if f else f,
                number,
            )
            for f in _nul_fields(raw)
        ]
        problems.extend(nul)
        try:
            line = RecordLine.model_validate(raw)
        except ValidationError as error:
            for item in error.errors(include_url=False, include_input=False):
                where = ".".join(str(part) for part in item["loc"]) or None
                problems.append(Problem(item["msg"], field=where, line=number))
            continue
        if not nul:
            good.append((number, line))
    return good, problems


MAX_NESTING = 32


def _nul_fields(value: Any) -> Iterator[str | None]:
    """Where a string or key of a raw line holds a NUL character, or nests too deep
    (walked without recursion: a line is hostile input)."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if len(path) > MAX_NESTING:
            yield ".".join(path[:MAX_NESTING]) + " (nested too deep)"
            continue
        if isinstance(item, str) and "\x00" in item:
            yield ".".join(path) or None
        elif isinstance(item, dict):
            for key, inner in item.items():
                where = (*path, str(key))
                if "\x00" in str(key):
                    yield ".".join(where)
                else:
                    stack.append((inner, where))
        elif isinstance(item, list):
            stack.extend((inner, (*path, str(n))) for n, inner in enumerate(item))


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
    async with conn.transaction():
        batch = await _load_batch(conn, principal, [line for _, line in lines])
        results: list[LineResult] = []
        for number, line in lines:
            line_problems, result = await _write_line(conn, principal, batch, number, line)
            problems.extend(line_problems)
            if result:
                results.append(result)
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
) -> _Batch:
    objects = {o.slug: o for o in await records.objects(conn)}
    wanted_ids: list[UUID] = []
    wanted_refs: list[tuple[str, str]] = []
    emails: set[str] = set()
    for line in lines:
        if line.id:
            local = _quiet_decode(line.id, principal.workspace_id)
            if local:
                wanted_ids.append(local)
        if line.external_id:
            wanted_refs.append((line.object, line.external_id))
        obj = objects.get(line.object)
        for attribute, ref in line.relations.items():
            target = _attribute(obj, attribute)
            if ref is None or target is None or target.target is None:
                continue
            if ref.id:
                local = _quiet_decode(ref.id, principal.workspace_id)
                if local:
                    wanted_ids.append(local)
            elif ref.external_id:
                wanted_refs.append((target.target, ref.external_id))
        emails.update(line.shared_with or [])
        if line.owner:
            emails.add(line.owner)
    targets = await records.record_targets(
        conn, wanted_ids, wanted_refs, principal.readable_objects, principal.person_id
    )
    members = await identity.members_by_emails(conn, sorted(emails))
    return _Batch(
        objects=objects,
        by_id={t.id: t for t in targets},
        by_external={(t.object, t.external_id): t for t in targets if t.external_id},
        members={m.email: m.id for m in members},
    )


def _quiet_decode(global_id: str, workspace_id: UUID) -> UUID | None:
    try:
        return ids.decode(global_id, "Record", workspace_id)
    except DomainError:
        return None


def _attribute(obj: ObjectRow | None, slug: str) -> Any:
    if obj is None:
        return None
    return next((a for a in obj.attributes if a.slug == slug), None)


async def _write_line(
    conn: asyncpg.Connection,
    principal: Principal,
    batch: _Batch,
    number: int,
    line: RecordLine,
) -> tuple[list[Problem], LineResult | None]:
    def problem(message: str, where: str | None = None, code: Code | None = None) -> Problem:
        return Problem(message, field=where, line=number, code=code)

    obj = batch.objects.get(line.object)
    if obj is None or not principal.may("read", obj.id):
        return [problem("no such object", "object")], None
    if obj.kind in SYSTEM_KINDS:
        message = f"{obj.slug} records cannot be written through the record API"
        return [problem(message, "object", Code.SCHEMA_SYSTEM_ENTITY_IMMUTABLE)], None

    existing, found_problems = _existing(principal, batch, line, obj, problem)
    if found_problems:
        return found_problems, None
    key = existing.id if existing else (line.object, line.external_id)
    if key in batch.seen or (line.external_id and (line.object, line.external_id) in batch.created):
        return [problem("the same record appears twice in this request", "id")], None
    if line.external_id or existing:
        batch.seen.add(key)
    creating = existing is None

    action = "create" if creating else "update"
    if not principal.may(action, obj.id):
        return [problem(f"you may not {action} {obj.plural}", None, Code.FORBIDDEN)], None

    problems: list[Problem] = []
    label = line.label if line.label is not None else (existing.label if existing else None)
    if (why := label_problem(label)) is not None:
        problems.append(problem(why, "label"))

    values = dict(existing.values) if existing else {}
    for slug, value in line.values.items():
        attribute = _attribute(obj, slug)
        if attribute is None or attribute.type == "relation":
            problems.append(problem(f"{obj.slug} has no value attribute {slug}", f"values.{slug}"))
        elif (why := value_problem(attribute.type, value)) is not None:
            problems.append(problem(why, f"values.{slug}"))
        elif value is None:
            values.pop(slug, None)
        else:
            values[slug] = value

    links = dict(existing.links) if existing else {}
    new_links: dict[str, UUID | None] = {}
    for slug, ref in line.relations.items():
        attribute = _attribute(obj, slug)
        if attribute is None or attribute.type != "relation":
            problems.append(problem(f"{obj.slug} has no relation {slug}", f"relations.{slug}"))
            continue
        if ref is None:
            new_links[slug] = None
            continue
        target_id = _resolve_ref(principal, batch, attribute.target, ref)
        if target_id is None:
            problems.append(
                problem(f"no {attribute.target} record to point to", f"relations.{slug}")
            )
        else:
            new_links[slug] = target_id

    visibility = line.visibility or (existing.visibility if existing else "workspace")
    owner = existing.owner_member_id if existing else None
    if line.owner is not None:
        owner = batch.members.get(line.owner)
        if owner is None:
            problems.append(problem("no member with this email", "owner"))
    elif owner is None and visibility == "private":
        owner = principal.person_id
    if visibility == "private" and owner is None and line.owner is None:
        problems.append(problem("a private record needs an owner (a member's email)", "owner"))

    shares: list[UUID] | None = None
    if line.shared_with is not None:
        shares = []
        for position, email in enumerate(line.shared_with):
            member = batch.members.get(email)
            if member is None:
                problems.append(problem("no member with this email", f"shared_with.{position}"))
            else:
                shares.append(member)

    problems += _access_problems(principal, existing, line, visibility, owner, shares, problem)
    if problems:
        return problems, None

    assert label is not None
    record_id = existing.id if existing else uuid4()
    changed: list[str] = []
    if creating:
        await records.insert_record(
            conn, record_id, obj.id, line.external_id, label, values, visibility, owner
        )
        changed = ["label", *sorted(values)]
        if line.external_id:
            batch.created[(line.object, line.external_id)] = record_id
        batch.created_ids[record_id] = line.object
    else:
        assert existing is not None
        if label != existing.label:
            changed.append("label")
        changed += sorted(
            k for k in set(values) | set(existing.values) if values.get(k) != existing.values.get(k)
        )
        if visibility != existing.visibility or owner != existing.owner_member_id:
            changed.append("visibility")

    for slug, target in sorted(new_links.items()):
        if target is None and slug in links:
            await records.delete_link(conn, record_id, slug)
            changed.append(slug)
        elif target is not None and links.get(slug) != str(target):
            await records.upsert_link(conn, record_id, slug, target)
            changed.append(slug)
    if shares is not None and (creating or sorted(shares) != sorted(existing.shared_with)):  # type: ignore[union-attr]
        await records.replace_shares(conn, record_id, shares)
        changed.append("shared_with")
    if changed and not creating:
        # Written once whatever changed, so that updated_at moves with relations and shares too.
        await records.update_record(conn, record_id, label, values, visibility, owner)

    gid = ids.encode("Record", principal.workspace_id, record_id)
    if not changed:
        return [], LineResult(number, gid, "unchanged")
    await records.insert_change(
        conn,
        record_id,
        principal.kind,
        principal.row.actor_id,
        principal.row.actor_name,
        "create" if creating else "update",
        list(dict.fromkeys(changed)),
    )
    return [], LineResult(number, gid, "create" if creating else "update")


def _access_problems(
    principal: Principal,
    existing: TargetRow | None,
    line: RecordLine,
    visibility: str,
    owner: UUID | None,
    shares: list[UUID] | None,
    problem: Any,
) -> list[Problem]:
    """Who a record is visible to is decided by its owner, or by a role that may update the
    workspace's settings: nobody else widens, narrows or hands over a record."""
    if principal.row.can_update_settings:
        return []
    person = principal.person_id
    if existing is None:
        if owner is not None and owner != person:
            return [
                problem(
                    "only its owner's own request may create a record owned by a member",
                    "owner",
                    Code.FORBIDDEN,
                )
            ]
        return []
    changes_access = (
        visibility != existing.visibility
        or owner != existing.owner_member_id
        or (shares is not None and sorted(shares) != sorted(existing.shared_with))
    )
    if changes_access and (person is None or existing.owner_member_id != person):
        return [
            problem("only the record's owner may change who sees it", "visibility", Code.FORBIDDEN)
        ]
    return []


def _existing(
    principal: Principal, batch: _Batch, line: RecordLine, obj: ObjectRow, problem: Any
) -> tuple[TargetRow | None, list[Problem]]:
    """The record a line updates, if any; a record the caller cannot read is not found."""
    if line.id:
        try:
            local = ids.decode(line.id, "Record", principal.workspace_id, "id")
        except DomainError as error:
            return None, [problem(p.message, "id") for p in error.problems] or [
                problem("no record with this id", "id", Code.NOT_FOUND)
            ]
        target = batch.by_id.get(local)
        if target is None or not target.readable or target.object != obj.slug:
            return None, [problem("no record with this id", "id", Code.NOT_FOUND)]
        return target, []
    if line.external_id:
        target = batch.by_external.get((obj.slug, line.external_id))
        if target is not None and not target.readable:
            return None, [problem("you may not update this record", "external_id", Code.FORBIDDEN)]
        return target, []
    return None, []


def _resolve_ref(
    principal: Principal, batch: _Batch, target_object: str, ref: RelationRef
) -> UUID | None:
    if ref.external_id is not None:
        created = batch.created.get((target_object, ref.external_id))
        if created:
            return created
        target = batch.by_external.get((target_object, ref.external_id))
    else:
        assert ref.id is not None
        local = _quiet_decode(ref.id, principal.workspace_id)
        if local is None:
            return None
        if batch.created_ids.get(local) == target_object:
            return local
        target = batch.by_id.get(local)
    if target is None or not target.readable or target.object != target_object:
        return None
    return target.id
