"""What one line of a bulk record write would change, decided without touching the database:
the record it names, then the change to make or every problem that refuses it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from db.records import AttributeRow, ObjectRow, TargetRow
from resolvers.common import ids
from resolvers.common.errors import Code, DomainError, Problem
from resolvers.common.principals import Principal
from resolvers.records.lines import RecordLine, RelationRef
from resolvers.records.values import label_problem, value_problem

# Objects whose records no record API may create or change (DESIGN §5; skills and memory stores
# have their API).
SYSTEM_KINDS = ("skill", "memory", "memory_store")


@dataclass(slots=True)
class Batch:
    """What the batch knows: objects, named records and the members it mentions, then what its
    earlier lines created and named."""

    objects: dict[str, ObjectRow]
    by_id: dict[UUID, TargetRow]
    by_external: dict[tuple[str, str], TargetRow]
    members: dict[str, UUID]
    created: dict[tuple[str, str], UUID] = field(default_factory=dict)
    created_ids: dict[UUID, str] = field(default_factory=dict)
    seen: set[object] = field(default_factory=set)


@dataclass(frozen=True, slots=True)
class Target:
    """The record a line names: its object and the existing record (None: a new one)."""

    obj: ObjectRow
    existing: TargetRow | None
    # What names the record within the batch (to refuse a record named twice); None when the
    # line names no record (a new record without an external id).
    key: object | None


@dataclass(frozen=True, slots=True)
class LinePlan:
    """The change one line makes: the record's new state and what differs from the old one."""

    number: int
    obj: ObjectRow
    existing: TargetRow | None
    external_id: str | None
    label: str
    values: dict[str, Any]
    visibility: str
    owner: UUID | None
    links_set: dict[str, UUID]
    links_cleared: list[str]
    shares: list[UUID] | None
    changed: list[str]

    @property
    def creating(self) -> bool:
        return self.existing is None


class _Problems:
    """The problems of one line, each numbered by it."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.found: list[Problem] = []

    def make(self, message: str, where: str | None = None, code: Code | None = None) -> Problem:
        return Problem(message, field=where, line=self.number, code=code)

    def add(self, message: str, where: str | None = None, code: Code | None = None) -> None:
        self.found.append(self.make(message, where, code))


def quiet_decode(global_id: str, workspace_id: UUID) -> UUID | None:
    """The record id behind a global id, or None for anything naming no record here."""
    try:
        return ids.decode(global_id, "Record", workspace_id)
    except DomainError:
        return None


def attribute_of(obj: ObjectRow | None, slug: str) -> AttributeRow | None:
    """An object's attribute by slug."""
    if obj is None:
        return None
    return next((a for a in obj.attributes if a.slug == slug), None)


def find_target(
    principal: Principal, batch: Batch, number: int, line: RecordLine
) -> Target | list[Problem]:
    """The object and the record a line names, or why it names none it may write."""
    problems = _Problems(number)
    obj = batch.objects.get(line.object)
    if obj is None or not principal.may("read", obj.id):
        return [problems.make("no such object", "object")]
    if obj.kind in SYSTEM_KINDS:
        message = f"{obj.slug} records cannot be written through the record API"
        return [problems.make(message, "object", Code.SCHEMA_SYSTEM_ENTITY_IMMUTABLE)]
    existing = _existing(principal, batch, line, obj, problems)
    if problems.found:
        return problems.found
    key: object = existing.id if existing else (line.object, line.external_id)
    named = (line.object, line.external_id)
    if key in batch.seen or (line.external_id and named in batch.created):
        return [problems.make("the same record appears twice in this request", "id")]
    return Target(obj, existing, key if line.external_id or existing else None)


def _existing(
    principal: Principal, batch: Batch, line: RecordLine, obj: ObjectRow, problems: _Problems
) -> TargetRow | None:
    """The record a line updates, if any; a record the caller cannot read is not found."""
    if line.id:
        try:
            local = ids.decode(line.id, "Record", principal.workspace_id, "id")
        except DomainError as error:
            for p in error.problems:
                problems.add(p.message, "id")
            if not error.problems:
                problems.add("no record with this id", "id", Code.NOT_FOUND)
            return None
        target = batch.by_id.get(local)
        if target is None or not target.readable or target.object != obj.slug:
            problems.add("no record with this id", "id", Code.NOT_FOUND)
            return None
        return target
    if line.external_id:
        target = batch.by_external.get((obj.slug, line.external_id))
        if target is not None and not target.readable:
            problems.add("you may not update this record", "external_id", Code.FORBIDDEN)
            return None
        return target
    return None


def plan_line(
    principal: Principal, batch: Batch, number: int, line: RecordLine, target: Target
) -> LinePlan | list[Problem]:
    """The change a line makes to the record it names, or every problem that refuses it."""
    obj, existing = target.obj, target.existing
    problems = _Problems(number)
    action = "create" if existing is None else "update"
    if not principal.may(action, obj.id):
        return [problems.make(f"you may not {action} {obj.plural}", None, Code.FORBIDDEN)]
    label = line.label if line.label is not None else (existing.label if existing else None)
    if (why := label_problem(label)) is not None:
        problems.add(why, "label")
    values = _values(obj, existing, line, problems)
    new_links = _links(principal, batch, obj, line, problems)
    visibility = line.visibility or (existing.visibility if existing else "workspace")
    owner = _owner(principal, batch, existing, line, visibility, problems)
    shares = _shares(batch, line, problems)
    problems.found += _access_problems(principal, existing, visibility, owner, shares, problems)
    if problems.found:
        return problems.found
    assert label is not None
    old_links: dict[str, str] = dict(existing.links) if existing else {}
    links_set = {
        slug: to
        for slug, to in new_links.items()
        if to is not None and old_links.get(slug) != str(to)
    }
    links_cleared = [slug for slug, to in new_links.items() if to is None and slug in old_links]
    if (
        shares is not None
        and existing is not None
        and sorted(shares) == sorted(existing.shared_with)
    ):
        shares = None
    plan = LinePlan(
        number, obj, existing, line.external_id, label, values, visibility, owner,
        links_set, links_cleared, shares, [],
    )  # fmt: skip
    plan.changed.extend(_changed(plan))
    return plan


def _values(
    obj: ObjectRow, existing: TargetRow | None, line: RecordLine, problems: _Problems
) -> dict[str, Any]:
    """The record's values once the line's are set (None removes one)."""
    values = dict(existing.values) if existing else {}
    for slug, value in line.values.items():
        attribute = attribute_of(obj, slug)
        if attribute is None or attribute.type == "relation":
            problems.add(f"{obj.slug} has no value attribute {slug}", f"values.{slug}")
        elif (why := value_problem(attribute.type, value)) is not None:
            problems.add(why, f"values.{slug}")
        elif value is None:
            values.pop(slug, None)
        else:
            values[slug] = value
    return values


def _links(
    principal: Principal, batch: Batch, obj: ObjectRow, line: RecordLine, problems: _Problems
) -> dict[str, UUID | None]:
    """The relations the line sets (a record id) or clears (None)."""
    links: dict[str, UUID | None] = {}
    for slug, ref in line.relations.items():
        attribute = attribute_of(obj, slug)
        if attribute is None or attribute.type != "relation":
            problems.add(f"{obj.slug} has no relation {slug}", f"relations.{slug}")
        elif ref is None:
            links[slug] = None
        elif (target_id := _resolve_ref(principal, batch, str(attribute.target), ref)) is None:
            problems.add(f"no {attribute.target} record to point to", f"relations.{slug}")
        else:
            links[slug] = target_id
    return links


def _owner(
    principal: Principal,
    batch: Batch,
    existing: TargetRow | None,
    line: RecordLine,
    visibility: str,
    problems: _Problems,
) -> UUID | None:
    """The record's owner: the one the line names, or the one it had, or the writer of a new
    private record."""
    owner = existing.owner_member_id if existing else None
    if line.owner is not None:
        owner = batch.members.get(line.owner)
        if owner is None:
            problems.add("no member with this email", "owner")
        return owner
    if owner is None and visibility == "private":
        owner = principal.person_id
        if owner is None:
            problems.add("a private record needs an owner (a member's email)", "owner")
    return owner


def _shares(batch: Batch, line: RecordLine, problems: _Problems) -> list[UUID] | None:
    """The members the line shares the record with (None: unchanged)."""
    if line.shared_with is None:
        return None
    shares = []
    for position, email in enumerate(line.shared_with):
        member = batch.members.get(email)
        if member is None:
            problems.add("no member with this email", f"shared_with.{position}")
        else:
            shares.append(member)
    return shares


def _access_problems(
    principal: Principal,
    existing: TargetRow | None,
    visibility: str,
    owner: UUID | None,
    shares: list[UUID] | None,
    problems: _Problems,
) -> list[Problem]:
    """Who a record is visible to is decided by its owner, or by a role that may update the
    workspace's settings: nobody else widens, narrows or hands over a record."""
    if principal.row.can_update_settings:
        return []
    person = principal.person_id
    if existing is None:
        if owner is not None and owner != person:
            message = "only its owner's own request may create a record owned by a member"
            return [problems.make(message, "owner", Code.FORBIDDEN)]
        return []
    changes_access = (
        visibility != existing.visibility
        or owner != existing.owner_member_id
        or (shares is not None and sorted(shares) != sorted(existing.shared_with))
    )
    if changes_access and (person is None or existing.owner_member_id != person):
        message = "only the record's owner may change who sees it"
        return [problems.make(message, "visibility", Code.FORBIDDEN)]
    return []


def _changed(plan: LinePlan) -> list[str]:
    """The fields a plan changes, in the change log's order."""
    existing = plan.existing
    if existing is None:
        changed = ["label", *sorted(plan.values)]
    else:
        changed = ["label"] if plan.label != existing.label else []
        keys = set(plan.values) | set(existing.values)
        changed += sorted(k for k in keys if plan.values.get(k) != existing.values.get(k))
        if plan.visibility != existing.visibility or plan.owner != existing.owner_member_id:
            changed.append("visibility")
    changed += sorted([*plan.links_set, *plan.links_cleared])
    if plan.shares is not None:
        changed.append("shared_with")
    return list(dict.fromkeys(changed))


def _resolve_ref(
    principal: Principal, batch: Batch, target_object: str, ref: RelationRef
) -> UUID | None:
    """The record a relation points to: created earlier in the batch, or readable."""
    if ref.external_id is not None:
        created = batch.created.get((target_object, ref.external_id))
        if created:
            return created
        target = batch.by_external.get((target_object, ref.external_id))
    else:
        assert ref.id is not None
        local = quiet_decode(ref.id, principal.workspace_id)
        if local is None:
            return None
        if batch.created_ids.get(local) == target_object:
            return local
        target = batch.by_id.get(local)
    if target is None or not target.readable or target.object != target_object:
        return None
    return target.id
