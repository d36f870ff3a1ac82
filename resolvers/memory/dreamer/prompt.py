"""What a chat model reader tells its model (issue 10, item 5): the rules of memory in short,
the workspace's mission before them, the batch as JSON, and the JSON schema its answer must
follow (OpenAI structured outputs, strict mode); and consolidation's own prompt and schema
(issue 11: ``CONSOLIDATION_RULES``, ``consolidation_schema``). Pure.

The model only proposes; code decides the verdicts, the routing, the sharing and the caps
(DESIGN §6), so the rules here say what to notice and how to flag it, never what is written.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from resolvers.memory.dreamer.consolidating import ConsolidationBatch, PageProposals
from resolvers.memory.dreamer.reader import Batch, ItemLearnings

ANSWER_SCHEMA_NAME = "dreamer_learnings"
CONSOLIDATION_SCHEMA_NAME = "memory_consolidation"
# Keywords strict structured outputs refuse or that only cost tokens; pydantic still checks
# them (``min_length``, defaults) when the answer is validated.
_DROPPED_KEYWORDS = frozenset({"default", "title", "minLength"})

RULES = """\
You are the Dreamer: you read what was said in a workspace (conversations, meetings, runs, \
agents' proposals, mail) and propose what its memory should keep. Code decides what is \
written; you only propose, and flag.

Most items teach nothing durable: an empty list of candidates is the usual answer, and a \
pass that proposes nothing is a good pass.

Only stated facts count. Propose only what someone said in an item, and set stated_by to \
who said it (the item's speaker). Never propose what you infer or guess; if nobody stated \
it, set stated_by to null (it will be refused).

An item's context (a run's mission) says what its text answers: read it to understand the \
text, never propose a learning from it, since nobody in the item said it. A run's text is \
its messages after the mission, each line opening with who said it; the item's speaker is \
the person who answered, when one did. A mail's text is its exchange's messages in order, \
one line each opening with its number in brackets, then who wrote it: a member's own words by \
their name, anyone else by their address in angle brackets (an outsider, whatever name they \
give); its context is its subject; attachments are named, never read. For each learning from \
a mail, set message to the number of the line it rests on (null for any other item); it is \
stated by whoever wrote that line: the item's speaker only for the speaker's own lines, else \
an outsider (their label as name, no id). Code checks who wrote that line.

Flag, do not hide: when a learning is a log of what was done (log), a task to do (task), a \
one-off request (one_off), something that will not matter in six months (transient), or \
something a linked record already stores in its values (already_in_record), set that flag. \
Health, pay, private life and beliefs are sensitive: set sensitive to the category.

Types: relation (how people, companies and deals relate: who works with or reports to whom), \
contexte (a background fact), décision (something decided), consigne (a standing \
instruction or rule: "always", "never", "from now on"), préférence (how someone likes \
things done).

About (what the learning is about; routing is decided from it):
- record: one of the item's own record_ids, the most specific (a deal before its contact, a \
contact before its company); never a record guessed from a name, never one not linked to \
the item.
- speaker: the speaker themselves, or an instruction or a preference the speaker gives.
- agent or routine: how that agent or routine should work (its id).
- workspace: a rule for the whole team.
- nothing: none of these (it will not be written).

Lines: when a learning says the same as a line already on a page, put that line's key in \
confirms; when it contradicts one, put the key in contradicts. changes_over_time is true for \
a changing fact (a deadline, an intention) and false for a fixed one.

Write each learning as one short line in the item's language, records named by their label \
(no markup). Set until only to a natural end stated in the item (YYYY-MM-DD); never a review \
date.

Answer with one entry per item of the batch, in its order, with the item's id."""

MISSION_INTRO = (
    "## Mission mémoire\n"
    "What this workspace wants remembered, written by its members: read it before the "
    "rules below."
)


class Learnings(BaseModel):
    """What a chat model answers: a ``ReaderAnswer`` without its usage (read from the API)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    learnings: tuple[ItemLearnings, ...] = Field(
        description="One entry per item of the batch, in its order (candidates empty when "
        "the item teaches nothing)."
    )


def system_prompt(batch: Batch) -> str:
    """The rules of memory, after the workspace's mission section when it has one."""
    return _after_mission(batch.mission, RULES)


def _after_mission(mission: str, rules: str) -> str:
    if not mission.strip():
        return rules
    return f"{MISSION_INTRO}\n\n{mission.strip()}\n\n{rules}"


def batch_message(batch: Batch) -> str:
    """The batch as JSON (its mission is already in the system prompt); an item's context
    (a run's mission) is its own field beside its text."""
    return batch.model_dump_json(exclude={"mission"})


def answer_schema() -> dict[str, Any]:
    """The JSON schema of ``Learnings`` in the form strict structured outputs accept: every
    property required (an optional one is nullable), no other property, no defaults, and a
    ``$ref`` with nothing beside it."""
    return _strict(Learnings.model_json_schema())


CONSOLIDATION_RULES = """\
You tidy the memory pages of one audience (one person's private pages, or the workspace's). \
Each page holds souvenirs: one line each, with a key, a type, a day, its text and its source \
(a tag naming the evidence it rests on within its page; empty: none). Code decides what is \
applied; you only propose. A line or a page you leave out is kept as it is: when in doubt, \
leave it.

Per line (lines):
- retype: the line has the wrong type; give the right one. Types: relation (how people, \
companies and deals relate), contexte (a background fact), décision (something decided), \
consigne (a standing instruction or rule), préférence (how someone likes things done).
- delete: with reason no_type when the line fits none of the five types, or not_durable \
when it will not matter in six months (a log of what was done, a task, a one-off request).
- keep: nothing to change (the same as leaving the line out).

Per group of lines of one page (groups), replaced by one line:
- principle: several narrow lines that one general line explains (write that line).
- log: lines logging what was done, turned into the one durable line they teach.
- duplicate: lines saying exactly the same thing; one of them stays as it is.
Only lines of one source (the same tag, or all without one) go in one group: each keeps the \
evidence it rests on, and code refuses a group mixing them.

Never propose anything for a line marked human (a person wrote it: it is never changed), and \
never touch the mission. You cannot create a page, nor move a line to another page. Write a \
new line short, in the lines' language, records named by their label, without markup, \
without a source, author or date (code adds them). Name lines by their keys and pages by \
their ids, from the batch."""


class Consolidations(BaseModel):
    """What a chat model answers to consolidate: a ``ConsolidationAnswer`` without its usage."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pages: tuple[PageProposals, ...] = Field(
        description="One entry per page with something to change (none: every page is kept)."
    )


def consolidation_prompt(batch: ConsolidationBatch) -> str:
    """Consolidation's rules, after the workspace's mission section when it has one."""
    return _after_mission(batch.mission, CONSOLIDATION_RULES)


def consolidation_message(batch: ConsolidationBatch) -> str:
    """The consolidation batch as JSON (its mission is already in the system prompt)."""
    return batch.model_dump_json(exclude={"mission"})


def consolidation_schema() -> dict[str, Any]:
    """The JSON schema of ``Consolidations``, in the strict structured outputs form."""
    return _strict(Consolidations.model_json_schema())


def response_format() -> dict[str, Any]:
    """The ``response_format`` asking for ``answer_schema``, strictly."""
    return {
        "type": "json_schema",
        "json_schema": {"name": ANSWER_SCHEMA_NAME, "schema": answer_schema(), "strict": True},
    }


def _strict(schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        return {"$ref": schema["$ref"]}
    strict: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _DROPPED_KEYWORDS:
            continue
        if key in ("properties", "$defs"):
            strict[key] = {name: _strict(sub) for name, sub in value.items()}
        elif isinstance(value, dict):
            strict[key] = _strict(value)
        elif isinstance(value, list):
            strict[key] = [_strict(sub) if isinstance(sub, dict) else sub for sub in value]
        else:
            strict[key] = value
    if strict.get("type") == "object":
        strict["required"] = list(strict.get("properties", {}))
        strict["additionalProperties"] = False
    return strict
