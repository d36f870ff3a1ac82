"""The default ``rules`` reader (issue 10, item 5): deterministic, no network, costs nothing.

Conservative: from each item it learns at most one thing, and only from an explicit request to
remember or correct (``cues.asks_to_remember``) or a proposal (a run or a mail: from one line
of one of its speakers); it refuses (proposes nothing
for) questions, tasks, logs and sensitive topics; it types by cue words; when in doubt about
the subject, it says "nothing" (code then refuses the learning: ``no_subject``). Its
consolidation (issue 11) is as careful: it merges exact duplicates and retypes a line only when
cue words give it another type and none of its own; it never deletes a line, nor writes a
principle or a log in place of lines. Its polish (issue 12) folds a skill's waiting lessons
into its body exactly as ``polishSkill`` does (``resolvers/skills/polish.polish``). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from resolvers.memory.dreamer import words
from resolvers.memory.dreamer.consolidating import (
    ConsolidationAnswer,
    ConsolidationBatch,
    ConsolidationPage,
    GroupProposal,
    LineProposal,
    PageProposals,
)
from resolvers.memory.dreamer.cues import (
    asks_to_remember,
    blank_mentions,
    composed,
    fold,
    phrases,
    strip_cues,
)
from resolvers.memory.dreamer.polishing import PolishAnswer, PolishBatch
from resolvers.memory.dreamer.reader import (
    About,
    Batch,
    Candidate,
    Item,
    ItemLearnings,
    LinkedRecord,
    PageLine,
    ReaderAnswer,
    Usage,
    Voice,
)
from resolvers.memory.dreamer.routing import most_specific_of
from resolvers.memory.mail.window import said_lines
from resolvers.skills.lessons import Lesson
from resolvers.skills.polish import polish
from resolvers.turns.cards import MENTION

RULES_READER = "rules"
QUESTION_MARK = "?"
# Left at either end of a learned text once its cues are gone.
_LOOSE_ENDS = " \t:;,\u2013\u2014-"

_DECISION = phrases(words.DECISION_WORDS)
_RELATION = phrases(words.RELATION_WORDS)
_PREFERENCE = phrases(words.PREFERENCE_WORDS)
_CONSIGNE_OPENING = phrases(words.CONSIGNE_OPENINGS)
_WORKSPACE = phrases(words.WORKSPACE_WORDS)
_FIRST_PERSON = phrases(words.FIRST_PERSON_WORDS)
_REFUSED = phrases(
    words.TASK_WORDS
    + words.LOG_WORDS
    + words.HEALTH_WORDS
    + words.PAY_WORDS
    + words.PRIVATE_LIFE_WORDS
    + words.BELIEF_WORDS
)


class RulesReader:
    """The ``rules`` reader: implements ``reader.Reader``; its usage is always zero."""

    name = RULES_READER

    async def read(self, batch: Batch) -> ReaderAnswer:
        """The learnings of every item of ``batch``, by ``learn``."""
        return answer(batch)

    async def consolidate(self, batch: ConsolidationBatch) -> ConsolidationAnswer:
        """Exact duplicates merged and lines retyped by cue words, by ``consolidation``."""
        return consolidation(batch)

    async def polish(self, batch: PolishBatch) -> PolishAnswer:
        """The waiting lessons folded into the body, as ``polishSkill`` folds them."""
        lessons = [Lesson(lesson.day, lesson.text) for lesson in batch.lessons]
        return PolishAnswer(body=polish(batch.body, lessons))


def answer(batch: Batch) -> ReaderAnswer:
    """``RulesReader.read``, synchronously."""
    learnings = tuple(
        ItemLearnings(item_id=item.id, candidates=learn(item, batch.lines, batch.records))
        for item in batch.items
    )
    return ReaderAnswer(learnings=learnings, usage=Usage())


def learn(
    item: Item, lines: Sequence[PageLine] = (), records: Sequence[LinkedRecord] = ()
) -> tuple[Candidate, ...]:
    """The one candidate an item teaches, or none (``records``: the batch's linked records,
    how they point to each other). A run's transcript teaches only its speaker's own lines."""
    if item.kind == "run":
        for said in own_lines(item):
            if found := learn(
                item.model_copy(update={"kind": "conversation", "text": said}), lines, records
            ):
                return found
        return ()
    if item.kind == "mail":
        return learn_mail(item, lines, records)
    return _learn_said(item, lines, records)


def learn_mail(
    item: Item, lines: Sequence[PageLine] = (), records: Sequence[LinkedRecord] = ()
) -> tuple[Candidate, ...]:
    """A mail exchange teaches from what one of its writers said, line by line: the item's
    speaker's own lines as theirs, an outsider's as an outsider's (a voice code does not know,
    never about themselves: an outsider has no profile here), each naming the message it
    rests on; what names no subject is about the records the mail is linked to (the most
    specific)."""
    speaker = item.speaker.name if item.speaker.id is not None else None
    for line in said_lines(item.text, speaker):
        label = line.label
        voice = item.speaker if label is None else Voice(kind="person", id=None, name=label)
        line_item = item.model_copy(update={"text": line.text, "speaker": voice})
        found = _learn_said(line_item, lines, records, linked=True)
        if found and not (label is not None and found[0].about.kind == "speaker"):
            return tuple(c.model_copy(update={"message": line.number}) for c in found)
    return ()


def _learn_said(
    item: Item,
    lines: Sequence[PageLine] = (),
    records: Sequence[LinkedRecord] = (),
    *,
    linked: bool = False,
) -> tuple[Candidate, ...]:
    """The one candidate what a person said teaches (``linked``: about the item's linked
    records when it names no other subject)."""
    if item.kind != "proposal" and not asks_to_remember(item.text):
        return ()
    marked, standing = strip_cues(item.text)
    marked = marked.strip(_LOOSE_ENDS)
    bare = fold(blank_mentions(marked))
    if not bare.strip() or marked.endswith(QUESTION_MARK) or _REFUSED.search(bare):
        return ()
    text = _readable(marked)
    kind = souvenir_type(bare, standing=standing)
    subject = about(marked, bare, item, consigne=kind == "consigne", records=records)
    if linked and subject.kind == "nothing" and item.record_ids:
        subject = _linked_record(item, records)
    if kind == "préférence" and subject.kind == "record":
        # What a record (a client, a contact) wants from us is how we deal with it, not the
        # speaker's own taste: a relation, which its page keeps (seed 000's cookbook finds
        # "Acme wants every message in French" on Acme's page).
        kind = "relation"
    candidate = Candidate(
        text=text,
        type=kind,
        about=subject,
        stated_by=item.speaker,
        confirms=_confirmed(text, lines),
    )
    return (candidate,)


def _linked_record(item: Item, records: Sequence[LinkedRecord]) -> About:
    """The record an item is linked to, the most specific of several (unrelated ones: in
    doubt, nothing)."""
    found = list(dict.fromkeys(item.record_ids))
    chosen = found[0] if len(found) == 1 else most_specific_of(found, {r.id: r for r in records})
    return About(kind="record", id=chosen) if chosen else About(kind="nothing")


def own_lines(item: Item) -> list[str]:
    """The lines of a run's transcript its speaker said ("Name: what was said"), without the
    name."""
    prefix = f"{item.speaker.name}: "
    return [line[len(prefix) :] for line in item.text.split("\n") if line.startswith(prefix)]


def souvenir_type(bare: str, *, standing: bool) -> str:
    """The type cue words give a text (folded, mentions blanked): décision, relation, consigne
    (a rule opening it, or a standing cue before it), préférence, else contexte."""
    if _DECISION.search(bare):
        return "décision"
    if _RELATION.search(bare):
        return "relation"
    if standing or _CONSIGNE_OPENING.match(bare.lstrip()):
        return "consigne"
    if _PREFERENCE.search(bare):
        return "préférence"
    return "contexte"


def about(
    marked: str, bare: str, item: Item, *, consigne: bool, records: Sequence[LinkedRecord] = ()
) -> About:
    """What a text is about: the one linked record of the item its markup mentions (several:
    the most specific, the one pointing to every other, as a deal to its contact and a contact
    to its company; unrelated ones: in doubt, nothing), else the record a proposal names,
    else the workspace ("chez nous"), else
    the speaker (speaking of themselves, or a person giving an instruction: seed "About the
    speaker (an instruction, a preference)"), else nothing."""
    mentioned = [m["id"] for m in MENTION.finditer(marked) if m["id"] in item.record_ids]
    if mentioned:
        chosen = most_specific_of(list(dict.fromkeys(mentioned)), {r.id: r for r in records})
        return About(kind="record", id=chosen) if chosen else About(kind="nothing")
    if item.kind == "proposal" and item.record_ids:
        # A proposal names the record it is about (propose_memory's recordId), first.
        return About(kind="record", id=item.record_ids[0])
    if _WORKSPACE.search(bare):
        return About(kind="workspace")
    if _FIRST_PERSON.search(bare) or (consigne and item.speaker.kind == "person"):
        return About(kind="speaker")
    return About(kind="nothing")


def _readable(marked: str) -> str:
    """The learned text as a line: mentions shown by their label, its first letter upper."""
    text = MENTION.sub(lambda match: match["label"], marked).strip(_LOOSE_ENDS)
    return text[:1].upper() + text[1:]


def _confirmed(text: str, lines: Sequence[PageLine]) -> str | None:
    """The key of a line saying the same (case, accents, spaces and end punctuation aside)."""
    same = comparable(text)
    return next((line.key for line in lines if comparable(line.text) == same), None)


def comparable(text: str) -> str:
    """A text as lines are compared: case, accents, spaces and punctuation aside."""
    return re.sub(r"\W+", " ", fold(composed(text)).lower()).strip()


# Consolidation ------------------------------------------------------------------------------


def consolidation(batch: ConsolidationBatch) -> ConsolidationAnswer:
    """``RulesReader.consolidate``, synchronously: per page, its exact duplicates (the same
    words, case, accents, spaces and end punctuation aside, from the same source) as one group
    each, and a retype
    for each line cue words give another type (``retyped``); nothing else."""
    found = []
    for page in batch.pages:
        groups = tuple(_duplicates(page))
        lines = tuple(
            LineProposal(key=line.key, action="retype", type=kind)  # type: ignore[arg-type]
            for line in page.lines
            if not line.human and (kind := retyped(line.text, line.type, page.kind)) is not None
        )
        if groups or lines:
            found.append(PageProposals(page_id=page.id, lines=lines, groups=groups))
    return ConsolidationAnswer(pages=tuple(found), usage=Usage())


def _duplicates(page: ConsolidationPage) -> list[GroupProposal]:
    by_words: dict[tuple[str, str], list[str]] = {}
    for line in page.lines:
        by_words.setdefault((comparable(line.text), line.source), []).append(line.key)
    first = {line.key: line for line in page.lines}
    return [
        GroupProposal(
            keys=tuple(keys), reason="duplicate", text=first[keys[0]].text, type=first[keys[0]].type
        )
        for keys in by_words.values()
        if len(keys) > 1
    ]


def retyped(text: str, type_: str, page_kind: str) -> str | None:
    """The type cue words give a stored line, when it is another than ``type_`` and the line
    holds no cue word of its own type (a contexte has none); None otherwise. On a record's
    page a préférence cue means a relation, as when learning."""
    marked, standing = strip_cues(text)
    bare = fold(blank_mentions(marked))
    kind = souvenir_type(bare, standing=standing)
    if kind == "préférence" and page_kind == "record":
        kind = "relation"
    if kind == "contexte" or kind == type_ or _has_cue(type_, bare, standing=standing):
        return None
    return kind


def _has_cue(type_: str, bare: str, *, standing: bool) -> bool:
    """Whether a text (folded, mentions blanked) holds a cue word of ``type_``."""
    if type_ == "décision":
        return _DECISION.search(bare) is not None
    if type_ == "relation":
        return _RELATION.search(bare) is not None or _PREFERENCE.search(bare) is not None
    if type_ == "consigne":
        return standing or _CONSIGNE_OPENING.match(bare.lstrip()) is not None
    if type_ == "préférence":
        return _PREFERENCE.search(bare) is not None
    return False
