"""Where a learning goes (DESIGN §6 "Routing"; seed 000 "Where a souvenir goes"), decided by
code from what the reader says it is about: one of the item's linked records (never a record
guessed from a name), a satellite's most specific record, the speaker's, an agent's or a
routine's profile, the workspace profile, or nothing. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from uuid import UUID

from resolvers.common import ids
from resolvers.common.errors import DomainError
from resolvers.memory.dreamer.context import PageKey, PassContext
from resolvers.memory.dreamer.reader import Batch, Candidate, Item, LinkedRecord, Voice
from resolvers.memory.dreamer.refusals import Refusal

# What a reference is named by when the record's label is not in the batch.
UNNAMED_RECORD = "record"
# The global id type of each profile an ``about`` or a voice names.
_ACTOR_TYPES = {"member": "Member", "agent": "Agent", "routine": "Routine"}
# Whether a record (by global id) may carry a page.
CarriesPage = Callable[[str], bool]


@dataclass(frozen=True, slots=True)
class Target:
    """The page a learning goes to. ``reference``: on the owner's own profile, the record the
    souvenir is about (shown ``@[label](record:<id>)``), labelled ``record_label``."""

    page: PageKey
    record_label: str = UNNAMED_RECORD
    reference: UUID | None = None


def local_id(global_id: str | None, type_name: str, workspace_id: UUID) -> UUID | None:
    """The local id behind a global id of this type and workspace; None for any other."""
    if global_id is None:
        return None
    try:
        return ids.decode(global_id, type_name, workspace_id)
    except DomainError:
        return None


def member_of(voice: Voice | None, workspace_id: UUID) -> UUID | None:
    """The member a voice is (a person with a member id); None for an agent or an outsider."""
    if voice is None or voice.kind != "person":
        return None
    return local_id(voice.id, "Member", workspace_id)


def actor_of(voice: Voice | None, workspace_id: UUID) -> PageKey | None:
    """The profile of the agent or routine a voice is (a routine speaks as an agent, named
    by its own id); None for a person or a voice with no such id."""
    if voice is None or voice.kind != "agent":
        return None
    for kind in ("agent", "routine"):
        actor = local_id(voice.id, _ACTOR_TYPES[kind], workspace_id)
        if actor is not None:
            return (kind, actor)
    return None


def route(candidate: Candidate, item: Item, batch: Batch, context: PassContext) -> Target | Refusal:
    """The page ``candidate`` goes to, or why it goes nowhere (``no_subject``,
    ``satellite_no_record``)."""
    about, workspace_id = candidate.about, context.workspace_id
    if about.kind == "record":
        return _record_target(about.id, item, batch, context)
    if about.kind == "speaker":
        return _speaker_target(item.speaker, workspace_id)
    if about.kind in ("agent", "routine"):
        actor = local_id(about.id, _ACTOR_TYPES[about.kind], workspace_id)
        return Target((about.kind, actor)) if actor is not None else Refusal("no_subject")
    if about.kind == "workspace":
        return Target(("workspace", None))
    return Refusal("no_subject")


def _speaker_target(speaker: Voice, workspace_id: UUID) -> Target | Refusal:
    """The speaker's profile: a member's, an agent's or a routine's; an outsider has none."""
    if speaker.kind == "person":
        member = member_of(speaker, workspace_id)
        return Target(("member", member)) if member is not None else Refusal("no_subject")
    actor = actor_of(speaker, workspace_id)
    return Target(actor) if actor is not None else Refusal("no_subject")


def _record_target(
    record_id: str | None, item: Item, batch: Batch, context: PassContext
) -> Target | Refusal:
    """A linked record's page; a satellite's most specific record's page."""
    if record_id is None or record_id not in item.record_ids:
        return Refusal("no_subject")
    linked = {record.id: record for record in batch.records}
    chosen = record_id
    if record_id in linked and linked[record_id].satellite:
        found = most_specific(record_id, linked, lambda gid: _carries(gid, context))
        if found is None:
            return Refusal("satellite_no_record")
        chosen = found
    local = local_id(chosen, "Record", context.workspace_id)
    if local is None:
        return Refusal("no_subject")
    if local not in context.carries_pages:
        return Refusal("satellite_no_record")
    label = linked[chosen].label if chosen in linked else UNNAMED_RECORD
    return Target(("record", local), record_label=label)


def _carries(global_id: str, context: PassContext) -> bool:
    local = local_id(global_id, "Record", context.workspace_id)
    return local is not None and local in context.carries_pages


def most_specific(
    satellite_id: str, linked: Mapping[str, LinkedRecord], carries: CarriesPage
) -> str | None:
    """The record a satellite's souvenir goes to: among the records it points to (through
    other satellites too) that may carry a page, the one that points, directly or through
    other linked records, to the most of the others (a deal before its contact, a contact
    before its company); between records unrelated to each other, the first it points to.
    None when it points to no record that may carry a page."""
    candidates = [found for found in _pointed(satellite_id, linked) if carries(found)]
    if not candidates:
        return None
    others = set(candidates)

    def rank(candidate: str) -> int:
        return len(_reachable(candidate, linked) & (others - {candidate}))

    # max keeps the first of equals: the satellite's own order decides between unrelated ones.
    return max(candidates, key=rank)


def most_specific_of(record_ids: Sequence[str], linked: Mapping[str, LinkedRecord]) -> str | None:
    """Of several records, the one that points (directly or through other linked records) to
    every other (a deal before its contact, a contact before its company); None when no one
    does (unrelated records: in doubt)."""
    wanted = set(record_ids)
    found = [r for r in record_ids if wanted - {r} <= _reachable(r, linked)]
    return found[0] if len(found) == 1 else None


def _pointed(satellite_id: str, linked: Mapping[str, LinkedRecord]) -> list[str]:
    """The records a satellite points to, in its order, a satellite among them followed on
    to the records it points to."""
    found: list[str] = []
    seen = {satellite_id}
    waiting = list(linked[satellite_id].points_to)
    while waiting:
        record_id = waiting.pop(0)
        if record_id in seen:
            continue
        seen.add(record_id)
        record = linked.get(record_id)
        if record is not None and record.satellite:
            waiting[:0] = record.points_to
        else:
            found.append(record_id)
    return found


def _reachable(record_id: str, linked: Mapping[str, LinkedRecord]) -> set[str]:
    """Every record ``record_id`` points to, directly or through other linked records."""
    reached: set[str] = set()
    waiting: list[str] = list(_points_to(record_id, linked))
    while waiting:
        current = waiting.pop()
        if current not in reached and current != record_id:
            reached.add(current)
            waiting.extend(_points_to(current, linked))
    return reached


def _points_to(record_id: str, linked: Mapping[str, LinkedRecord]) -> Iterable[str]:
    record = linked.get(record_id)
    return record.points_to if record is not None else ()
