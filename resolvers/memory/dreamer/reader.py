"""What a Dreamer reader gets and returns (issue 10, item 5), and the protocol every reader
implements (the default ``rules`` reader, a chat model, or any ``module:attribute``).

A reader only proposes: the verdict (written, refreshed or refused, with its reason), the
routing, the sharing and the caps are decided by code after it answers (DESIGN §6). Pure.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from resolvers.memory.grammar import SOUVENIR_TYPES

ItemKind = Literal["conversation", "meeting", "run", "proposal", "mail"]
OwnerKind = Literal["person", "agent", "routine", "workspace"]
VoiceKind = Literal["person", "agent"]
AboutKind = Literal["record", "speaker", "agent", "routine", "workspace", "nothing"]
SensitiveCategory = Literal["health", "pay", "private_life", "beliefs"]
# What an ``about`` names by id; the others name no id (the speaker is the item's).
ABOUT_WITH_ID = ("record", "agent", "routine")


class _Model(BaseModel):
    """Strict and frozen: an unknown field is refused, nothing is changed after validation."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class PageOwner(_Model):
    """Whom the pass is for: the owner of the pages it may write first."""

    kind: OwnerKind = Field(description="A person, an agent, a routine, or the workspace.")
    id: str | None = Field(
        description="The member's, agent's or routine's id; None for the workspace."
    )
    name: str = Field(description="How the owner is named on a souvenir (— name, day).")


class Voice(_Model):
    """Who spoke: a person (a member, or an outsider of a mail) or an agent."""

    kind: VoiceKind = Field(description="A person or an agent.")
    id: str | None = Field(description="The member's or agent's id; None for an outsider.")
    name: str = Field(description="The name shown for them.")


class Item(_Model):
    """One thing to read, in the order of the batch."""

    id: str = Field(description="The item's id: its verdict is recorded against it.")
    kind: ItemKind = Field(description="Conversation message, meeting, run, proposal or mail.")
    at: datetime = Field(description="When it was said (a souvenir's day comes from it).")
    speaker: Voice = Field(description="Who said it (a proposal: the agent that proposed).")
    text: str = Field(
        description="What was said, mention markup @[Label](record:<id>) kept (a run: its "
        "messages after the mission, each line opening with its speaker's name; a mail: its "
        "messages, each line opening with its number [n] and who wrote it)."
    )
    context: str = Field(
        default="",
        description="What the item answers, e.g. a run's mission: read for meaning, never "
        "learned from (nobody in the item said it); empty when there is none.",
    )
    record_ids: tuple[str, ...] = Field(
        default=(),
        description="The linked records of this item (ids among Batch.records): routing "
        "chooses only among them, never a record guessed from a name.",
    )


class RecordValue(_Model):
    """One principal value of a linked record."""

    attribute: str = Field(description="The attribute's name.")
    value: str = Field(description="Its value, as text.")


class LinkedRecord(_Model):
    """A record an item is linked to (mentioned, attached, the meeting's)."""

    id: str = Field(description="The record's global id.")
    object: str = Field(description="Its object (companies, people, deals, notes, ...).")
    label: str = Field(description="Its label.")
    values: tuple[RecordValue, ...] = Field(
        default=(), description="Its principal values: what the record already stores."
    )
    satellite: bool = Field(
        default=False, description="A satellite (a note, a task) carries no page of its own."
    )
    points_to: tuple[str, ...] = Field(
        default=(),
        description="The records it points to through its single relations (a deal: its "
        "contact and company; a note: its deal): a souvenir about a satellite goes to the most "
        "specific of them, and none means it has nothing to point to.",
    )


class PageLine(_Model):
    """A souvenir already on a page the pass may touch."""

    page_id: str = Field(description="The page's id.")
    key: str = Field(description="The line's stable opaque key (to confirm or contradict it).")
    day: date = Field(description="The line's day.")
    type: str = Field(description="Its type, one of the five souvenir types.")
    human: bool = Field(description="Written or corrected by a person (✍): never removed.")
    stated_by_person: bool = Field(
        default=False,
        description="A person stated it (a ✍ line, or one whose author is a member): for a "
        "fixed fact, the version a person stated stays.",
    )
    text: str = Field(description="What the line says.")

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        return _souvenir_type(value)


PageKind = Literal["member", "agent", "routine", "workspace", "record"]


class PageInfo(_Model):
    """A page the pass may touch (it exists; a record's page is created on its first souvenir
    and is then absent here)."""

    id: str = Field(description="The page's id.")
    kind: PageKind = Field(
        description="A profile (member, agent, routine, workspace) or a record's page."
    )
    about_id: str | None = Field(
        description="The member, agent, routine or record it is about; None for the workspace."
    )
    name: str = Field(description="The page's name.")


class Batch(_Model):
    """Everything a reader gets for one pass of one page owner."""

    owner: PageOwner = Field(description="The page owner the pass is for.")
    items: tuple[Item, ...] = Field(description="The items to read, oldest first.")
    records: tuple[LinkedRecord, ...] = Field(
        default=(), description="The records the items are linked to."
    )
    pages: tuple[PageInfo, ...] = Field(default=(), description="The pages the pass may touch.")
    lines: tuple[PageLine, ...] = Field(
        default=(), description="The lines of those pages (souvenirs only)."
    )
    mission: str = Field(
        default="",
        description="The workspace profile's ## Mission mémoire section (read before every "
        "rule, never rewritten); empty when there is none.",
    )
    today: date = Field(description="The pass's day.")


class About(_Model):
    """What a learning is about; routing is decided from it by code."""

    kind: AboutKind = Field(
        description="One of the item's linked records, the speaker, an agent, a routine, "
        "the workspace (a rule for the whole team), or nothing (then nothing is written)."
    )
    id: str | None = Field(
        default=None, description="The record's, agent's or routine's id; None otherwise."
    )

    @model_validator(mode="after")
    def _id_when_named(self) -> About:
        if (self.kind in ABOUT_WITH_ID) != (self.id is not None):
            raise ValueError(f"an id goes with exactly these kinds: {', '.join(ABOUT_WITH_ID)}")
        return self


class Candidate(_Model):
    """One learning a reader proposes from one item; code gives it its verdict."""

    text: str = Field(min_length=1, description="What would be remembered, one line.")
    type: str = Field(
        description="relation, contexte, décision, consigne or préférence.",
        json_schema_extra={"enum": list(SOUVENIR_TYPES)},
    )
    about: About = Field(description="What it is about.")
    stated_by: Voice | None = Field(
        default=None, description="Who stated it; None when it is inferred (then refused)."
    )
    message: int | None = Field(
        default=None,
        description="A mail item's: the number of the message (its line opens with [n]) the "
        "learning rests on; code credits the learning to whoever wrote that message. None for "
        "any other item.",
    )
    log: bool = Field(default=False, description="A log of what was done, not a durable fact.")
    task: bool = Field(default=False, description="A task to do.")
    one_off: bool = Field(default=False, description="A one-off request.")
    transient: bool = Field(default=False, description="Will not matter in six months.")
    already_in_record: bool = Field(
        default=False, description="A record already stores it (a value, a status, a note)."
    )
    sensitive: SensitiveCategory | None = Field(
        default=None, description="Its sensitive category (health, pay, private life, beliefs)."
    )
    until: date | None = Field(default=None, description="The day it stops holding, if any.")
    confirms: str | None = Field(default=None, description="The key of a line it confirms.")
    contradicts: str | None = Field(default=None, description="The key of a line it contradicts.")
    changes_over_time: bool = Field(
        default=False,
        description="A changing fact (a deadline, an intention: the newest event wins) rather "
        "than a fixed one (the version a person stated stays).",
    )

    @field_validator("type")
    @classmethod
    def _known_type(cls, value: str) -> str:
        return _souvenir_type(value)


class ItemLearnings(_Model):
    """The candidates a reader found in one item (none is the usual answer)."""

    item_id: str = Field(description="The item's id, from the batch.")
    candidates: tuple[Candidate, ...] = Field(default=(), description="Its learnings.")


class Usage(_Model):
    """The tokens a reader spent on a batch (the pass is charged from them)."""

    input_tokens: int = Field(default=0, ge=0, description="Tokens read.")
    output_tokens: int = Field(default=0, ge=0, description="Tokens written.")


class ReaderAnswer(_Model):
    """A reader's answer to one batch."""

    learnings: tuple[ItemLearnings, ...] = Field(description="Per item, in the batch's order.")
    usage: Usage = Field(description="What reading the batch cost.")


class Reader(Protocol):
    """A Dreamer reader: reads one batch, proposes learnings per item, reports its usage.

    A reader that could not read the batch (its model timed out, answered something that is
    not a ``ReaderAnswer``) raises ``ReaderError``: the pass then keeps the items for a retry.
    """

    async def read(self, batch: Batch) -> ReaderAnswer:
        """The candidate learnings of each item of ``batch``, and the tokens spent."""
        ...


class ReaderError(Exception):
    """A reader could not read a batch; nothing was decided, its items wait for a retry.

    ``usage``: the tokens spent all the same (a model that answered something malformed was
    paid for it), so that the pass can still be charged.
    """

    def __init__(self, message: str, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.usage = usage or Usage()


def _souvenir_type(value: str) -> str:
    if value not in SOUVENIR_TYPES:
        raise ValueError(f"unknown type {value!r}: one of {', '.join(SOUVENIR_TYPES)}")
    return value
