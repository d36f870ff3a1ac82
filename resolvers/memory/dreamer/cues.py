"""Cue words (DESIGN §6, seed "What memory reads"): whether a message asks memory to remember
or to correct something, and the phrase matching every word list of the Dreamer shares.

Matching is case- and accent-insensitive ("desormais" is "Désormais"), on whole words (a cue
never matches inside a longer word or a hyphenated compound: "remembering", "always-on"), and
ignores mention markup (``@[Remember Inc](record:<id>)`` is a record, not a request). Pure.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from resolvers.turns.cards import MENTION

# Asking to remember or to correct: stripped from what is learned (they say nothing of the fact).
# A correction is a cue only as a heading ("Correction: ..."), never as a noun in a sentence.
REQUEST_CUES = (
    "remember",
    "please remember",
    "don't forget",
    "do not forget",
    "note that",
    "please note",
    "keep in mind",
    "bear in mind",
    "for the record",
    "memorize",
    "memorise",
    "correction:",
    "correction :",
    "retiens",
    "retiens bien",
    "retenez",
    "à retenir",
    "souviens-toi",
    "souvenez-vous",
    "rappelle-toi",
    "rappelez-vous",
    "n'oublie pas",
    "n'oubliez pas",
    "note que",
    "notez que",
    "garde en tête",
    "gardez en tête",
    "mémorise",
    "mémorisez",
    "rectification:",
    "rectification :",
)
# A standing instruction from now on: stripped too (a souvenir is durable by itself), and what
# follows is a consigne unless a more specific type is said.
STANDING_CUES = (
    "from now on",
    "going forward",
    "from today on",
    "henceforth",
    "in future",
    "désormais",
    "dorénavant",
    "à partir de maintenant",
    "à partir d'aujourd'hui",
    "à l'avenir",
)
# A rule: kept in what is learned, since it carries the meaning ("never call before 10").
RULE_CUES = ("always", "never", "jamais")
# Judged and left out, on purpose: "actually" and "en fait" (fillers of everyday speech, not
# corrections), "toujours" (also means "still": "il est toujours malade"), and inflections
# ("remembering", "I remembered to call" report what was done, they ask nothing).
REMEMBER_CUES = REQUEST_CUES + STANDING_CUES + RULE_CUES

_ELISION = "'"
_WORD_EDGE_BEFORE = r"(?<![\w'-])"
_WORD_EDGE_AFTER = r"(?![\w'-])"
_APOSTROPHES = {"\u2019": _ELISION, "\u02bc": _ELISION, "\u2018": _ELISION}


def _fold_table() -> dict[int, str]:
    """Each accented Latin letter to its base letter, one character for one (so that a span
    found in folded text is the same span in the text), and typographic apostrophes to '."""
    table = {ord(mark): plain for mark, plain in _APOSTROPHES.items()}
    for code in range(0xC0, 0x250):
        parts = unicodedata.normalize("NFKD", chr(code))
        if len(parts) > 1 and parts[0].isascii() and all(map(unicodedata.combining, parts[1:])):
            table[code] = parts[0]
    return table


_FOLD = _fold_table()


def composed(text: str) -> str:
    """``text`` in NFC: the form every span of this module refers to."""
    return unicodedata.normalize("NFC", text)


def fold(text: str) -> str:
    """``text`` composed, without accents, with plain apostrophes; as long as ``composed``."""
    return composed(text).translate(_FOLD)


def blank_mentions(text: str, fill: str = " ") -> str:
    """``text`` with each mention's markup replaced by as many ``fill`` characters (spans stay
    in place)."""
    return MENTION.sub(lambda match: fill * len(match[0]), text)


def phrases(words: Iterable[str], *, tail: str = "") -> re.Pattern[str]:
    """One pattern matching any of ``words`` as whole words, case- and accent-insensitive, on
    folded text; a word ending in an apostrophe (j', qu') may be followed by its word. ``tail``
    is matched right after the phrase (what is stripped with it)."""
    alternatives = []
    for word in sorted({fold(w).lower() for w in words}, key=len, reverse=True):
        body = r"\s+".join(re.escape(part) for part in word.split())
        edge = "" if word.endswith(_ELISION) else _WORD_EDGE_AFTER
        alternatives.append(body + edge)
    return re.compile(f"{_WORD_EDGE_BEFORE}(?:{'|'.join(alternatives)}){tail}", re.IGNORECASE)


def says(pattern: re.Pattern[str], text: str) -> bool:
    """Whether ``text`` (outside mention markup) holds one of the pattern's phrases."""
    return pattern.search(fold(blank_mentions(composed(text)))) is not None


_REMEMBER = phrases(REMEMBER_CUES)
# What goes with a stripped cue: the punctuation after it and a "that"/"que" opening the fact.
_STRIPPED_TAIL = r"[\s:,;.!\u2013\u2014-]*(?:(?:that|que)(?![\w'-])\s*|qu')?"
_MARKUP_FILL = "\x00"  # never eaten by a stripped cue's tail, never part of a word
_STRIPPED = phrases(REQUEST_CUES + STANDING_CUES, tail=_STRIPPED_TAIL)


def asks_to_remember(text: str) -> bool:
    """Whether a message asks memory to remember or to correct something (a cue of
    REMEMBER_CUES, outside mention markup)."""
    return says(_REMEMBER, text)


def strip_cues(text: str) -> tuple[str, bool]:
    """``text`` (composed) without its request and standing cues and what goes with them
    (punctuation, a "that"), and whether a standing cue ("from now on") was among them.
    Mention markup is kept, and never searched for cues."""
    whole = composed(text)
    folded = fold(blank_mentions(whole, _MARKUP_FILL))
    kept, start, standing = [], 0, False
    for match in _STRIPPED.finditer(folded):
        kept.append(whole[start : match.start()])
        start = match.end()
        standing = standing or _is_standing(match[0])
    kept.append(whole[start:])
    return " ".join("".join(kept).split()), standing


_STANDING = phrases(STANDING_CUES)


def _is_standing(stripped: str) -> bool:
    return _STANDING.match(stripped) is not None
