"""Why the Dreamer refuses a learning (DESIGN §6 "Verdicts"), and the refusals its reader's
flags give. Each reason is a word of the verdict record, named once here. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from resolvers.memory.dreamer.context import PageKey
from resolvers.memory.dreamer.reader import Candidate

Reason = Literal[
    "record_stores_it",
    "log",
    "task",
    "one_off",
    "not_durable",
    "inference",
    "no_subject",
    "satellite_no_record",
    "sensitive_private_to_shared",
    "not_permitted",
    "person_version_kept",
    "older_than_existing",
    "contradiction_in_doubt",
    "cap_reached",
]
REASONS: tuple[Reason, ...] = get_args(Reason)


@dataclass(frozen=True, slots=True)
class Refusal:
    """A learning refused, and why; ``page``: the page it would have gone to once routed,
    ``key``: the souvenir on it the learning was refused against, if any."""

    reason: Reason
    key: str | None = None
    page: PageKey | None = None


def flag_refusal(candidate: Candidate) -> Refusal | None:
    """The refusal a reader's own flags give (the first that holds, in the rule book's order),
    or None: what a record stores, a log, a task, a one-off request, what will not matter in
    six months, an inference nobody stated."""
    flags: tuple[tuple[bool, Reason], ...] = (
        (candidate.already_in_record, "record_stores_it"),
        (candidate.log, "log"),
        (candidate.task, "task"),
        (candidate.one_off, "one_off"),
        (candidate.transient, "not_durable"),
        (candidate.stated_by is None, "inference"),
    )
    return next((Refusal(reason) for flagged, reason in flags if flagged), None)
