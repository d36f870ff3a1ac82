"""Searching the catalogue (DESIGN §4, issue 15, item 3): the product's own skills, by name
and description as you type (the text stays on the server), and, only when asked, the community
directory, once per request. A text of several words also sends up to three of its words alone
(``skill_words``); the results are merged by skill (source and skillId), a skill named exactly
one of the words (or the whole text) first, then the product's own, then the most installed.

Each side fails alone: our results stay when the directory does not answer, and the directory's
come back when our own search fails. ``status`` says ``unavailable`` only when nothing came back
and a search asked did not answer, never that no skill matched."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from resolvers.catalog.answers import DirectoryAnswer
from resolvers.catalog.directory import MAX_QUERY_CHARS, search_directory
from resolvers.catalog.errors import CatalogError
from resolvers.catalog.settings import CatalogSettings
from resolvers.catalog.shipped import ShippedSkill, shipped_skills
from resolvers.common.errors import Code, DomainError, Problem, invalid
from resolvers.common.principals import Principal

log = logging.getLogger(__name__)

# Words that never name a skill: the verbs and small words of a request ("find the skill for
# xlsx files"). Only the other words are sent alone to the directory.
STOP_WORDS = frozenset(
    """a an and any are as at be by can do does for from get give how i in into is it its me my
    need of on or please show some that the this to use want what which with you your
    find search look looking skill skills tool tools help make create""".split()
)
MAX_WORDS_SENT = 3
MIN_WORD_CHARS = 2
# A word that could name a skill: a skill's name is a-z, 0-9 and hyphens (DESIGN §3).
SKILL_WORD = re.compile(r"^[a-z0-9][a-z0-9-]*$")
DIRECTORY_LIMIT = 20
AGENT_REFUSAL = (
    "An agent does not search the community directory directly: what it sends leaves the "
    "product, so the person it works for approves it first (requestCatalogSearch)."
)
ONCE_PER_REQUEST = "the community directory is searched once per request"

Status = Literal["ok", "unavailable", "not_asked"]
Outcome = Literal["matched", "no_match", "unavailable"]
PRODUCT = "product"
COMMUNITY = "community"


@dataclass(frozen=True, slots=True)
class CatalogHit:
    """One skill found: the product's own (``origin`` product, no installs) or the
    directory's (its source ``owner/repo``, its skillId, how often it was installed)."""

    origin: str
    name: str
    description: str | None
    source: str | None
    skill_id: str
    installs: int | None
    exact: bool


@dataclass(frozen=True, slots=True)
class CatalogResults:
    """What a search found, and how each side answered."""

    hits: list[CatalogHit]
    status: Outcome
    own_status: Status
    community_status: Status
    sent: list[str]  # every text sent to the directory, in order (empty when not asked)


def skill_words(text: str) -> list[str]:
    """Up to three words of a several-word ``text`` that could name a skill, in order, without
    the stop words or repeats; none for a text of one word (the text itself is sent)."""
    words = text.lower().split()
    if len(words) < 2:
        return []
    found: list[str] = []
    for word in words:
        word = word.strip(".,;:!?\"'()[]")
        if (
            len(word) >= MIN_WORD_CHARS
            and word not in STOP_WORDS
            and SKILL_WORD.match(word)
            and word not in found
        ):
            found.append(word)
    return found[:MAX_WORDS_SENT]


def directory_texts(text: str) -> list[str]:
    """What leaves for the directory: the whole text, then each word sent alone."""
    whole = " ".join(text.split())
    return [whole, *(w for w in skill_words(text) if w != whole.lower())]


def own_hits(text: str, skills: Sequence[ShippedSkill], names: set[str]) -> list[CatalogHit]:
    """The product's skills whose name or description holds every word of the text,
    case-insensitively (a word being typed matches as a prefix does)."""
    words = text.casefold().split()
    return [
        CatalogHit(PRODUCT, s.name, s.description, None, s.name, None, s.name in names)
        for s in skills
        if all(w in f"{s.name} {s.description}".casefold() for w in words)
    ]


def merged(answers: Sequence[DirectoryAnswer], names: set[str]) -> list[CatalogHit]:
    """The directory's skills, each once (by source and skillId), in the first answer's order."""
    seen: dict[tuple[str, str], CatalogHit] = {}
    for answer in answers:
        for s in answer.skills:
            key = (s.source, s.skillId)
            if key not in seen:
                exact = s.name.lower() in names
                seen[key] = CatalogHit(
                    COMMUNITY, s.name, None, s.source, s.skillId, s.installs, exact
                )
    return list(seen.values())


def ranked(hits: list[CatalogHit]) -> list[CatalogHit]:
    """A skill named exactly one of the words first, then the product's own, then the most
    installed (ties keep their order)."""
    return sorted(hits, key=lambda h: (not h.exact, h.origin != PRODUCT, -(h.installs or 0)))


def check_text(text: str, field: str = "text") -> str:
    """The text searched, or SCHEMA_VALIDATION_FAILED (at ``field``)."""
    if not text.strip() or len(text) > MAX_QUERY_CHARS:
        raise invalid([Problem(f"is 1 to {MAX_QUERY_CHARS} characters, not blank", field)])
    return text


async def ask_directory(
    settings: CatalogSettings, texts: list[str]
) -> tuple[list[DirectoryAnswer], Status]:
    """Every text asked of the directory at once; ``unavailable`` when none answered."""
    found = await asyncio.gather(
        *(search_directory(settings, t, DIRECTORY_LIMIT) for t in texts), return_exceptions=True
    )
    answers = [a for a in found if isinstance(a, DirectoryAnswer)]
    for failure in found:
        if isinstance(failure, BaseException) and not isinstance(failure, CatalogError):
            raise failure
    return answers, ("ok" if answers else "unavailable")


def own_search(
    text: str, names: set[str], skills: Callable[[], Sequence[ShippedSkill]]
) -> tuple[list[CatalogHit], Status]:
    """Our own results, or none and ``unavailable`` when they cannot be read (logged once)."""
    try:
        return own_hits(text, skills(), names), "ok"
    except Exception:  # the directory's results must still come back
        log.exception("the product's own skills could not be searched")
        return [], "unavailable"


async def catalog_search(
    settings: CatalogSettings,
    principal: Principal,
    text: str,
    community: bool = False,
    skills: Callable[[], Sequence[ShippedSkill]] | None = None,
) -> CatalogResults:
    """The catalogue's skills for ``text``; the directory asked only when ``community`` (an
    agent may not: FORBIDDEN, a person must search)."""
    check_text(text)
    if community and principal.kind == "agent":
        raise DomainError(Code.FORBIDDEN, AGENT_REFUSAL)
    texts = directory_texts(text)
    names = {t.lower() for t in texts}
    own, own_status = own_search(text, names, skills or shipped_skills)
    answers: list[DirectoryAnswer] = []
    community_status: Status = "not_asked"
    if community:
        answers, community_status = await ask_directory(settings, texts)
    hits = ranked(own + merged(answers, names))
    if hits:
        status: Outcome = "matched"
    elif "unavailable" in (own_status, community_status):
        status = "unavailable"
    else:
        status = "no_match"
    sent = texts if community else []
    return CatalogResults(hits, status, own_status, community_status, sent)
