"""The reader interface's second operation (issue 11, item 4): what a reader gets to consolidate
one audience's pages, what it proposes, and the protocol of a reader that consolidates.

A reader only proposes, per line (keep, retype, delete with its reason) and per group of lines
(one new line replacing them: a principle, a log turned into one line, exact duplicates
merged). Code decides what is applied (``resolvers/memory/cleanup/tidying.py``): ✍ lines and
the mission are never changed, keys not on the page are ignored, the grammar, the caps and the
page's 4,000 characters hold. Pure.
"""

from __future__ import annotations

from datetime import date
from typing import Literal, Protocol, get_args

from pydantic import BaseModel, ConfigDict, Field

from resolvers.memory.dreamer.reader import PageKind, Usage
from resolvers.memory.grammar import SOUVENIR_TYPES

SouvenirType = Literal["relation", "contexte", "décision", "consigne", "préférence"]
assert get_args(SouvenirType) == SOUVENIR_TYPES
LineAction = Literal["keep", "retype", "delete"]
# Why a line goes: it fits none of the five types, or it will not matter in six months (a
# log, a task, a one-off).
DeleteReason = Literal["no_type", "not_durable"]
# What replaces a group: the principle explaining narrow lines, a log turned into one line,
# or one of exact duplicates.
GroupReason = Literal["principle", "log", "duplicate"]


class _Model(BaseModel):
    """Strict and frozen, like the reader's models."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Audience(_Model):
    """Whose pages these are: one person's private pages, or the workspace's."""

    kind: Literal["person", "workspace"] = Field(description="A person or the workspace.")
    id: str | None = Field(description="The member's id; None for the workspace.")
    name: str = Field(description="The person's or the workspace's name.")


class ConsolidationLine(_Model):
    """A souvenir on a page to consolidate."""

    key: str = Field(description="The line's stable key (name it to change the line).")
    type: SouvenirType = Field(description="Its type.")
    day: date = Field(description="Its day (the evidence's).")
    human: bool = Field(description="Written or corrected by a person (✍): never changed.")
    text: str = Field(description="What the line says.")
    source: str = Field(
        default="",
        description="The evidence the line rests on, as a tag within its page (s1, s2 ...; "
        "empty: none): lines of different sources are never put together.",
    )


class ConsolidationPage(_Model):
    """One page of the audience, with its souvenirs in order."""

    id: str = Field(description="The page's id.")
    kind: PageKind = Field(description="A profile (member, agent, routine, workspace) or record.")
    name: str = Field(description="The page's name.")
    lines: tuple[ConsolidationLine, ...] = Field(description="Its souvenirs, in order.")


class ConsolidationBatch(_Model):
    """Everything a reader gets to consolidate one audience."""

    audience: Audience = Field(description="Whose pages these are.")
    pages: tuple[ConsolidationPage, ...] = Field(description="The pages to reread.")
    mission: str = Field(
        default="",
        description="The workspace profile's ## Mission mémoire section (read before every "
        "rule, never rewritten); empty when there is none.",
    )
    today: date = Field(description="The day of the consolidation.")


class LineProposal(_Model):
    """What to do with one line; a line left out is kept."""

    key: str = Field(description="The line's key, on this page.")
    action: LineAction = Field(description="keep, retype (to type), or delete (for reason).")
    type: SouvenirType | None = Field(default=None, description="The new type (retype).")
    reason: DeleteReason | None = Field(
        default=None,
        description="Why it goes (delete): no_type (it fits none of the five types) or "
        "not_durable (a log, a task, a one-off, what will not matter in six months).",
    )


class GroupProposal(_Model):
    """Lines of one page replaced by one line."""

    keys: tuple[str, ...] = Field(description="The keys of the lines replaced, on this page.")
    reason: GroupReason = Field(
        description="principle (narrow lines explained by one general line), log (lines "
        "logging what was done turned into one durable line), duplicate (lines saying "
        "exactly the same: one of them is kept as it is)."
    )
    text: str = Field(description="The new line (a duplicate: the line kept).")
    type: SouvenirType = Field(description="The new line's type.")


class PageProposals(_Model):
    """A reader's proposals for one page (a page left out is kept as it is)."""

    page_id: str = Field(description="The page's id, from the batch.")
    lines: tuple[LineProposal, ...] = Field(default=(), description="Per line.")
    groups: tuple[GroupProposal, ...] = Field(default=(), description="Groups of lines.")


class ConsolidationAnswer(_Model):
    """A reader's answer to a consolidation batch."""

    pages: tuple[PageProposals, ...] = Field(description="Per page, any order.")
    usage: Usage = Field(description="What reading the batch cost.")


class Consolidator(Protocol):
    """A reader that consolidates: proposes what to change on an audience's pages, reports
    its usage; raises ``ReaderError`` (with the usage spent) when it could not."""

    async def consolidate(self, batch: ConsolidationBatch) -> ConsolidationAnswer:
        """Proposals for the pages of ``batch``, and the tokens spent."""
        ...
