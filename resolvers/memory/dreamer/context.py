"""What code knows about a batch beyond what the reader sees (issue 10, item 6): each item's
scope, owner, sharing preference and source, what its speaker may shape, and the pages the
pass may touch as stored. The verdicts are decided from it (``verdicts``). Pure data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from uuid import UUID

from db.memory import LineRow, PageRow

# A page the pass may write: (about kind, about id); the workspace profile's id is None.
PageKey = tuple[str, UUID | None]


@dataclass(frozen=True, slots=True)
class ItemContext:
    """One item as code sees it.

    ``private``: the source is private to ``owner_member_id`` (their conversation, proposal,
    meeting or run); otherwise it is the workspace's. ``share_with_team``: that owner's
    ``memory.shareWithTeam`` at the item's arrival (unreadable: False). ``source_kind`` and
    ``source_id``: what a souvenir learned from it names after its arrow (``record`` and a
    meeting's record id, ``conversation`` and the owner's member id, or neither).
    ``mail_lines``: a mail exchange's messages as its text numbers them (None: not a mail),
    each saying whether it is the item speaker's own words.
    """

    item_id: str
    day: date
    private: bool
    owner_member_id: UUID | None
    share_with_team: bool
    source_kind: str | None = None
    source_id: UUID | None = None
    mail_lines: tuple[MailLine, ...] | None = None


@dataclass(frozen=True, slots=True)
class MailLine:
    """One message of a mail exchange as its item's text numbers it: whether it is the item
    speaker's own words (filed as sent from their own address), and its line's label (who
    wrote it, as the text says)."""

    own: bool
    label: str


@dataclass(frozen=True, slots=True)
class Permissions:
    """What a speaker (a member) may shape: records they may update, agents they may edit,
    and whether they may change the workspace's settings (its profile)."""

    records: frozenset[UUID] = frozenset()
    agents: frozenset[UUID] = frozenset()
    workspace: bool = False


@dataclass(frozen=True, slots=True)
class PassContext:
    """Everything the verdicts need besides the batch and the reader's answer.

    ``items``: by item id. ``permissions``: by member id (a member absent here may shape
    nothing). ``pages``: the live pages the pass may touch, by what they are about, as stored
    (a record's page absent here is created on its first souvenir). ``carries_pages``: the
    linked records (and the records they point to) that may carry a page.
    """

    workspace_id: UUID
    items: dict[str, ItemContext]
    permissions: dict[UUID, Permissions] = field(default_factory=dict)
    pages: dict[PageKey, PageRow] = field(default_factory=dict)
    carries_pages: frozenset[UUID] = frozenset()


def lines_of(context: PassContext, key: PageKey) -> list[LineRow]:
    """The stored lines of a page the pass may touch (none for a page not yet created)."""
    page = context.pages.get(key)
    return list(page.lines) if page is not None else []
