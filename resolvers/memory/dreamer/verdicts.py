"""The Dreamer's verdicts (issue 10, item 6; DESIGN §6): from a batch, its reader's answer and
what code knows of the pass, every learning gets written, refreshed or refused, and every page
it changes its new lines. The reader only proposes; everything here is decided by code, in the
rule book's order, each learning seeing the pages as the ones before it left them. Pure.

The rules, for each candidate, in order: the reader's flags (``refusals``), the routing
(``routing``), what a private source may share and who may shape a shared page (``sharing``),
the candidate's own durability (its text, its end date), what it does to the souvenirs on its
page (``contradictions``), then the caps and the 4,000 characters (``lines``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Literal

from db.memory import LineRow
from resolvers.memory.dreamer.context import ItemContext, PageKey, PassContext, lines_of
from resolvers.memory.dreamer.contradictions import Evidence, Refresh, on_page, refreshed
from resolvers.memory.dreamer.lines import ends_after, fits, placed, souvenir_line
from resolvers.memory.dreamer.reader import Batch, Candidate, Item, ReaderAnswer, Voice
from resolvers.memory.dreamer.refusals import Reason, Refusal, flag_refusal
from resolvers.memory.dreamer.routing import Target, member_of, route
from resolvers.memory.dreamer.sharing import shaping_refusal, shared

VerdictKind = Literal["written", "refreshed", "refused"]
# Who stated a learning from a mail that rests on no message its text presents.
UNTRACED = "someone in the mail"


@dataclass(frozen=True, slots=True)
class Verdict:
    """One verdict of an item: ``page`` is the page it went to (or, refused, the one it would
    have gone to once routed), ``key`` the souvenir written or refreshed (or refused
    against), ``text`` the souvenir's text (refused: the reader's)."""

    item_id: str
    verdict: VerdictKind
    reason: Reason | None = None
    page: PageKey | None = None
    key: str | None = None
    text: str | None = None


@dataclass(frozen=True, slots=True)
class Decisions:
    """A batch decided: a verdict per learning (one refusal for an item that taught nothing),
    and the full new lines of every page that changes (a page absent from the pass context
    is to be created with them)."""

    verdicts: list[Verdict]
    pages: dict[PageKey, list[LineRow]]


def decide(batch: Batch, answer: ReaderAnswer, context: PassContext) -> Decisions:
    """Every verdict of a batch and the pages it changes, in the batch's order of items."""
    state = _Pass(batch, context)
    verdicts: list[Verdict] = []
    for item, candidates in _learnings(batch, answer):
        if not candidates:
            # Nothing durable was said: the item's one verdict.
            verdicts.append(Verdict(item.id, "refused", "not_durable"))
        scope = context.items.get(item.id)
        verdicts.extend(
            state.decide(item, vouched(item, candidate, scope)) for candidate in candidates
        )
    return Decisions(verdicts, {key: state.lines[key] for key in state.changed})


def vouched(item: Item, candidate: Candidate, scope: ItemContext | None = None) -> Candidate:
    """Who stated a learning, as code knows it: the reader may name the item's speaker (then
    the speaker as the batch names them), nobody (an inference, refused), or someone else;
    someone else is never taken at the model's word as a member or an agent with their
    rights: they become a voice code does not know (no id), whose words are never widened
    beyond the owner's own profile. A meeting's transcript holds many voices: there a member or
    an agent the reader names is kept when the transcript names them. A mail's learning is
    its speaker's words only when the message it rests on is theirs (``mail_voice``)."""
    said = candidate.stated_by
    if said is None:
        return candidate
    if scope is not None and scope.mail_lines is not None:
        return candidate.model_copy(update={"stated_by": mail_voice(item, candidate, scope)})
    speaker = item.speaker
    if said.id is not None and (said.kind, said.id) == (speaker.kind, speaker.id):
        return candidate.model_copy(update={"stated_by": speaker})
    if said.id is None or (item.kind == "meeting" and said.name and said.name in item.text):
        return candidate
    return candidate.model_copy(
        update={"stated_by": Voice(kind=said.kind, id=None, name=said.name)}
    )


def mail_voice(item: Item, candidate: Candidate, scope: ItemContext) -> Voice:
    """Who stated a learning from a mail exchange (seed: "a mail is your own words only when
    your mailbox's provider filed it as sent from your own address"): the item's speaker when
    the reader names them and the message the learning rests on (``candidate.message``, as
    the text numbers it) is the speaker's own; otherwise a voice code does not know (no id),
    named by that message's line, or unnamed when the reader names no message presented."""
    lines = scope.mail_lines or ()
    number = candidate.message
    line = lines[number - 1] if number is not None and 1 <= number <= len(lines) else None
    said, speaker = candidate.stated_by, item.speaker
    names_speaker = said is not None and said.id is not None and said.id == speaker.id
    if line is not None and line.own and names_speaker:
        return speaker
    return Voice(kind="person", id=None, name=line.label if line is not None else UNTRACED)


def _learnings(batch: Batch, answer: ReaderAnswer) -> Iterator[tuple[Item, list[Candidate]]]:
    """Each item of the batch with its candidates (every answer naming it, in order); an
    answer for an item not in the batch is left out."""
    found: dict[str, list[Candidate]] = {item.id: [] for item in batch.items}
    for learnings in answer.learnings:
        if learnings.item_id in found:
            found[learnings.item_id].extend(learnings.candidates)
    for item in batch.items:
        yield item, found[item.id]


@dataclass
class _Pass:
    """The pages as the batch has changed them so far, and the souvenirs a person stated."""

    batch: Batch
    context: PassContext
    lines: dict[PageKey, list[LineRow]] = field(default_factory=dict)
    changed: list[PageKey] = field(default_factory=list)
    person_keys: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.person_keys = {line.key for line in self.batch.lines if line.stated_by_person}

    def page(self, key: PageKey) -> list[LineRow]:
        if key not in self.lines:
            self.lines[key] = lines_of(self.context, key)
        return self.lines[key]

    def change(self, key: PageKey, lines: list[LineRow]) -> None:
        self.lines[key] = lines
        if key not in self.changed:
            self.changed.append(key)

    def decide(self, item: Item, candidate: Candidate) -> Verdict:
        """One candidate's verdict; the page it writes is changed for the ones after it."""
        scope = self.context.items.get(item.id)
        if scope is None:
            # Code cannot tell whose the item is: nothing of it may reach any page.
            return _refused(item, candidate, Refusal("not_permitted"))
        target = self.target(item, candidate, scope)
        if isinstance(target, Refusal):
            return _refused(item, candidate, target)
        return self.write(item, candidate, scope, target)

    def target(self, item: Item, candidate: Candidate, scope: ItemContext) -> Target | Refusal:
        """Where the candidate goes (rules 1 to 4), or why nowhere."""
        if refusal := flag_refusal(candidate):
            return refusal
        routed = route(candidate, item, self.batch, self.context)
        if isinstance(routed, Refusal):
            return routed
        target = shared(routed, candidate, scope)
        if isinstance(target, Refusal):
            return replace(target, page=routed.page)
        if refusal := shaping_refusal(target, candidate, scope, self.context):
            return replace(refusal, page=target.page)
        return target

    def write(
        self, item: Item, candidate: Candidate, scope: ItemContext, target: Target
    ) -> Verdict:
        """Rules 5 to 7 on the target page: a confirmation, a replacement, a new souvenir,
        or why not."""
        page, lines = target.page, self.page(target.page)
        line = souvenir_line(candidate, target, scope, self.context.workspace_id)
        if line is None or not ends_after(candidate.until, scope.day):
            return _refused(item, candidate, Refusal("not_durable", page=page))
        by_member = member_of(candidate.stated_by, self.context.workspace_id) is not None
        step = on_page(candidate, Evidence(line, scope.day, by_member), lines, self.person_keys)
        if isinstance(step, Refusal):
            return _refused(item, candidate, replace(step, page=page))
        if isinstance(step, Refresh):
            return self.refresh(item, candidate, scope, page, step.index)
        index = step.index if step is not None else None
        new = placed(lines, line) if index is None else _swapped(lines, index, line)
        if not fits(page, new, self.context):
            return _refused(item, candidate, Refusal("cap_reached", page=page))
        self.change(page, new)
        if by_member and line.key is not None:
            self.person_keys.add(line.key)
        return Verdict(item.id, "written", None, page, line.key, line.text)

    def refresh(
        self, item: Item, candidate: Candidate, scope: ItemContext, page: PageKey, index: int
    ) -> Verdict:
        """A confirmation: the souvenir's day moves on (nothing else is written)."""
        lines = self.page(page)
        kept = lines[index]
        moved = refreshed(kept, scope.day, candidate.until)
        if moved is not kept:
            new = _swapped(lines, index, moved)
            if not fits(page, new, self.context):
                return _refused(item, candidate, Refusal("cap_reached", kept.key, page))
            self.change(page, new)
        return Verdict(item.id, "refreshed", None, page, kept.key, kept.text)


def _swapped(lines: list[LineRow], index: int, line: LineRow) -> list[LineRow]:
    return [*lines[:index], line, *lines[index + 1 :]]


def _refused(item: Item, candidate: Candidate, refusal: Refusal) -> Verdict:
    return Verdict(item.id, "refused", refusal.reason, refusal.page, refusal.key, candidate.text)
