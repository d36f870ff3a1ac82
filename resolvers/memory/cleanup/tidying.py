"""What consolidation changes on one page (issue 11, item 4), decided by code from a reader's
proposals. Pure: no I/O.

Groups first, in the reader's order, then the per-line proposals; a line is changed once
(a key already replaced or merged is left alone). Whatever the reader says:

- a ✍ line is never removed or changed (in a group of duplicates it is the line kept; in a
  principle or a log it stays beside the new line);
- a key not on the page is ignored; only souvenirs change (headings and the workspace
  profile's mission are kept as they are);
- lines of different sources are never put together (the same source kind and id; a line
  with no source only with lines with no source, a ✍ line has none): a line's source is what
  the Monday removal checks (a mail or meeting deleted, a source the profile's person can no
  longer open), so a line resting on someone's private mail may not live on under another
  source. A group mixing them is refused whole and counted (``mixed_sources``), duplicates as
  much as principles and logs: a duplicate of another source is a second piece of evidence,
  kept until its own source goes;
- exact duplicates are merged only when they say the same words (case, accents, spaces and
  punctuation aside) about the same record;
- a new line (a principle, a log turned into one line) takes the source of the lines it
  replaces (their one source), and its author and day from the newest of them (the first of
  them on the page on a tie): it rests on that evidence; its end date (jusqu'au) is the latest
  of theirs when every one has one; on a member's profile it is about the record they are all
  about, and lines about different records are never put together; it must be a well-formed
  souvenir;
- each change is applied only if the page still holds to its caps and its 4,000 characters as
  stored after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from uuid import UUID

from db.cleanups import ChangeRow
from db.memory import LineRow, PageRow
from resolvers.memory.dreamer.consolidating import GroupProposal, LineProposal, PageProposals
from resolvers.memory.dreamer.rules import comparable
from resolvers.memory.grammar import LineError, render
from resolvers.memory.reading import souvenir_of
from resolvers.memory.writing import cap_change_problems, length_problems, new_key


@dataclass
class Tidied:
    """A page's lines after consolidation, each change made, and why proposals were not
    applied."""

    lines: list[LineRow]
    changes: list[ChangeRow] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    # Of the refused, the groups of lines of different sources.
    mixed_sources: int = 0

    @property
    def emptied(self) -> bool:
        """Nothing but blank lines left: storing it sends the page to the trash."""
        return not any(line.kind != "blank" for line in self.lines)


def tidy(
    row: PageRow, proposals: PageProposals, workspace_id: UUID, *, page_limits: bool = True
) -> Tidied:
    """The page ``row`` (as stored, locked) after the reader's ``proposals`` for it;
    ``page_limits``: a memory page's caps and 4,000 characters hold (a memory store's memory,
    consolidated by a dream, has its own size limit, checked by its caller)."""
    page = _Page(row, workspace_id, Tidied(list(row.lines)), page_limits)
    for group in proposals.groups:
        page.group(group)
    for proposal in proposals.lines:
        page.line(proposal)
    return page.done


@dataclass
class _Page:
    row: PageRow
    workspace_id: UUID
    done: Tidied
    page_limits: bool = True
    claimed: set[str] = field(default_factory=set)

    def souvenirs(self) -> dict[str, LineRow]:
        """The page's souvenirs as they are now, by key, in page order."""
        return {
            line.key: line
            for line in self.done.lines
            if line.kind == "souvenir" and line.key is not None
        }

    def group(self, group: GroupProposal) -> None:
        named = set(group.keys) - self.claimed
        lines = [line for key, line in self.souvenirs().items() if key in named]
        if group.reason == "duplicate":
            self.merge(lines)
        else:
            self.replace(group, lines)

    def merge(self, lines: Sequence[LineRow]) -> None:
        """Exact duplicates: one stays as it is (a ✍ one, else the newest), the others go."""
        if len(lines) < 2:
            return
        if len({comparable(line.text) for line in lines}) > 1:
            self.done.refused.append(f"{_keys(lines)}: not the same words, not merged")
            return
        if not self.together(lines):
            return
        humans = [line for line in lines if line.human]
        kept = humans[0] if humans else _newest(lines)
        gone = [line for line in lines if line.key != kept.key and not line.human]
        changes = [
            self.change(line, "merged", "duplicate", new_text=kept.text, new_type=kept.type)
            for line in gone
        ]
        self.apply(_without(self.done.lines, gone), gone, changes)

    def replace(self, group: GroupProposal, lines: Sequence[LineRow]) -> None:
        """A principle or a log: the group's lines that are not ✍ become one new line, where
        the first of them stood."""
        replaced = [line for line in lines if not line.human]
        if not replaced:
            return
        if not self.together(replaced):
            return
        new = self.new_line(group, replaced)
        if new is None:
            return
        first = replaced[0].key
        after = [new if line.key == first else line for line in self.done.lines]
        after = _without(after, replaced[1:])
        changes = [
            self.change(line, "rewritten", group.reason, new_text=new.text, new_type=new.type)
            for line in replaced
        ]
        self.apply(after, replaced, changes)

    def together(self, lines: Sequence[LineRow]) -> bool:
        """Whether ``lines`` may become one: about one record, from one source (else the
        group is refused, and said)."""
        if len({line.about_id for line in lines}) > 1:
            self.done.refused.append(f"{_keys(lines)}: about different records, not merged")
            return False
        if len({(line.source_kind, line.source_id) for line in lines}) > 1:
            self.done.refused.append(f"{_keys(lines)}: from different sources, not merged")
            self.done.mixed_sources += 1
            return False
        return True

    def new_line(self, group: GroupProposal, replaced: Sequence[LineRow]) -> LineRow | None:
        ends = [line.until for line in replaced if line.until is not None]
        line = replace(
            _newest(replaced),
            text=group.text.strip(),
            key=new_key(),
            type=group.type,
            until=max(ends) if len(ends) == len(replaced) else None,
            human=False,
        )
        reasons = self.malformed(line)
        if reasons:
            self.done.refused.append(f"{_keys(replaced)}: the new line {'; '.join(reasons)}")
            return None
        return line

    def line(self, proposal: LineProposal) -> None:
        line = self.souvenirs().get(proposal.key)
        if line is None or proposal.key in self.claimed or proposal.action == "keep":
            return
        if line.human:
            self.done.refused.append(f"{proposal.key}: a ✍ line is never changed")
            return
        if proposal.action == "delete":
            if proposal.reason is None:
                self.done.refused.append(f"{proposal.key}: a deletion says why, not deleted")
                return
            after = _without(self.done.lines, [line])
            self.apply(after, [line], [self.change(line, "removed", proposal.reason)])
        elif proposal.type is not None and proposal.type != line.type:
            retyped = replace(line, type=proposal.type)
            reasons = self.malformed(retyped)
            if reasons:
                self.done.refused.append(f"{proposal.key}: retyped, {'; '.join(reasons)}")
                return
            after = [retyped if kept.key == line.key else kept for kept in self.done.lines]
            change = self.change(line, "retyped", "retyped", new_type=proposal.type)
            self.apply(after, [line], [change])

    def apply(
        self, after: list[LineRow], touched: Sequence[LineRow], changes: list[ChangeRow]
    ) -> None:
        """Keep ``after`` as the page's lines when its caps and length hold."""
        problems = []
        if self.page_limits:
            problems = cap_change_problems(self.row, after)
            problems += length_problems(after, self.workspace_id, "content")
        if problems:
            why = "; ".join(problem.message for problem in problems)
            self.done.refused.append(f"{_keys(touched)}: {why}")
            return
        self.done.lines = after
        self.done.changes.extend(changes)
        self.claimed.update(line.key for line in touched if line.key is not None)

    def change(self, line: LineRow, change: str, reason: str, **new: str | None) -> ChangeRow:
        return ChangeRow(self.row.id, change, reason, line.key, line.text, **new)

    def malformed(self, line: LineRow) -> list[str]:
        """Why a line cannot be written in the grammar (none when it can)."""
        try:
            render(souvenir_of(line, self.workspace_id, stored_form=True))
        except LineError as error:
            return error.reasons
        return []


def _newest(lines: Sequence[LineRow]) -> LineRow:
    """The line of the latest day; the first of them on the page on a tie."""
    return max(lines, key=lambda line: line.day or date.min)


def _without(lines: Sequence[LineRow], gone: Sequence[LineRow]) -> list[LineRow]:
    keys = {line.key for line in gone}
    return [line for line in lines if line.kind != "souvenir" or line.key not in keys]


def _keys(lines: Sequence[LineRow]) -> str:
    return ", ".join(line.key or "?" for line in lines)
