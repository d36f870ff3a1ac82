"""Search over memory pages and skills (DESIGN §7), and recall for harness agents (from evo):
relevant memories inline and skills as catalog entries, within an item and a character
budget."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date

import asyncpg

from db import search as search_db
from db.search import SkillHit
from resolvers.agents.agents import caller_agent
from resolvers.catalog import search as catalog_search
from resolvers.catalog.preview import SHIPPED_PREFIX
from resolvers.catalog.shipped import shipped_skills
from resolvers.common import clock, ids
from resolvers.common.errors import Problem, invalid
from resolvers.common.pages import DEFAULT_PAGE_SIZE
from resolvers.common.principals import Principal
from resolvers.skills.dormancy import is_dormant
from resolvers.skills.reading import SKILL_DIRECTORIES
from resolvers.turns.cards import cut

SEARCH_OBJECTS = ("memory", "skill", "catalog")
# A skill of the catalogue ranks after the workspace's own matches, unless named exactly.
CATALOG_RANK, CATALOG_EXACT_RANK = 0.0, 1.0
MAX_QUERY_CHARS = 200
MAX_RESULTS = 50
SNIPPET_CHARS = 200
RECALL_MAX_ITEMS = 40
RECALL_MAX_CHARS = 6_000
_WORD = re.compile(r"[^\W_]")


def query_text(text: str) -> str | None:
    """The text a search looks for, composed (NFC), or None when it holds no letter or digit.
    SQL cuts it into words as the index cuts souvenirs, folds and quotes each
    (search_query): nothing the caller types is query syntax."""
    composed = unicodedata.normalize("NFC", text)
    return composed if _WORD.search(composed) else None


@dataclass(frozen=True, slots=True)
class Hit:
    """One result: a memory page (by its best souvenir) or a skill."""

    object: str
    id: str
    title: str
    snippet: str
    rank: float


@dataclass(frozen=True, slots=True)
class Results:
    hits: list[Hit]
    total: int
    # More souvenirs matched than a search ranks: total is a lower bound.
    capped: bool


def _query_problems(q: str, objects: list[str], first: int, field: str = "q") -> list[Problem]:
    problems = []
    if len(q) > MAX_QUERY_CHARS:
        problems.append(Problem(f"a query is at most {MAX_QUERY_CHARS} characters", field))
    if "\x00" in q:
        problems.append(Problem("a query holds no NUL character", field))
    unknown = [o for o in objects if o not in SEARCH_OBJECTS]
    if unknown or not objects:
        problems.append(Problem(f"objects are among {', '.join(SEARCH_OBJECTS)}", "objects"))
    if not 1 <= first <= MAX_RESULTS:
        problems.append(Problem(f"first is 1 to {MAX_RESULTS}", "first"))
    return problems


async def search(
    conn: asyncpg.Connection,
    principal: Principal,
    q: str,
    objects: list[str],
    first: int = DEFAULT_PAGE_SIZE,
) -> Results:
    """Memory pages (by souvenir text) and skills (name, description, body) matching ``q``,
    ranked, among what the caller may read."""
    if problems := _query_problems(q, objects, first):
        raise invalid(problems)
    query = query_text(q)
    if query is None:
        return Results([], 0, False)
    hits: list[Hit] = []
    total = 0
    capped = False
    workspace = principal.workspace_id
    found, skills = await _memory_and_skills(conn, principal, query, objects, first)
    if "memory" in objects:
        total += found[0].total if found else 0
        capped = bool(found) and found[0].matched >= search_db.MEMORY_CANDIDATES
        hits += [
            Hit(
                "memory",
                ids.encode("MemoryPage", workspace, h.page_id),
                h.name,
                cut(h.text, SNIPPET_CHARS),
                h.rank,
            )
            for h in found
        ]
    if "skill" in objects:
        total += skills[0].total if skills else 0
        hits += [
            Hit("skill", s.name, s.name, cut(s.description, SNIPPET_CHARS), s.rank) for s in skills
        ]
    if "catalog" in objects:
        found_in_catalog = catalog_hits(q)
        total += len(found_in_catalog)
        hits += found_in_catalog
    hits.sort(key=lambda h: -h.rank)
    return Results(hits[:first], total, capped)


async def _memory_and_skills(
    conn: asyncpg.Connection, principal: Principal, query: str, objects: list[str], first: int
) -> tuple[list[search_db.MemoryHit], list[SkillHit]]:
    """The memory pages (as the calling agent may search them) and the skills matching
    ``query``, each when ``objects`` asks for it: both in one statement when it asks for both."""
    readable, person = principal.readable_objects, principal.person_id
    agent = caller_agent(principal)
    if "memory" in objects and "skill" in objects:
        return await search_db.search_memory_and_skills(conn, query, readable, person, first, agent)
    if "memory" in objects:
        return await search_db.search_memory(conn, query, readable, person, first, agent), []
    if "skill" in objects:
        return [], await search_db.search_skills(conn, query, readable, person, first)
    return [], []


def catalog_hits(q: str) -> list[Hit]:
    """The catalogue's own skills matching ``q`` (as catalogSearch finds them, the text
    staying on the server), each read with ``catalog:shipped:<name>``. The community directory
    is never asked here: an agent asks its person first (requestCatalogSearch)."""
    names = {t.lower() for t in catalog_search.directory_texts(q)}
    return [
        Hit(
            "catalog",
            f"{SHIPPED_PREFIX}{h.name}",
            h.name,
            cut(h.description or "", SNIPPET_CHARS),
            CATALOG_EXACT_RANK if h.exact else CATALOG_RANK,
        )
        for h in catalog_search.own_hits(q, shipped_skills(), names)
    ]


# Recall ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RecalledMemory:
    page: str
    type: str
    text: str
    day: date

    @property
    def line(self) -> str:
        return f"- [{self.type}] **{self.page}**: {self.text} ({self.day.isoformat()})"


@dataclass(frozen=True, slots=True)
class RecalledSkill:
    name: str
    # Empty for a dormant skill, listed by its name only (as the catalog lists it).
    trigger: str
    path: str

    @property
    def line(self) -> str:
        if not self.trigger:
            return f"- **{self.name}** → `{self.path}`"
        return f"- **{self.name}**: {self.trigger} → `{self.path}`"


@dataclass(frozen=True, slots=True)
class Recall:
    memories: list[RecalledMemory]
    skills: list[RecalledSkill]
    text: str


MEMORY_HEADING = "# Relevant memory"
SKILLS_HEADING = "# Available skills (Read SKILL.md on use)"


def trigger_of(skill: SkillHit) -> str:
    """When to use a skill, on one line: the first line of its "When to use" section, or its
    description."""
    lines = skill.content.split("\n")
    for index, line in enumerate(lines):
        if line.strip().lower().rstrip(":") in ("## when to use", "## trigger"):
            for text in lines[index + 1 :]:
                if text.startswith("#"):
                    break
                if text.strip():
                    return cut(text.strip().lstrip("-* ").strip(), 160)
    return cut(skill.description, 160)


def recall_text(memories: list[RecalledMemory], skills: list[RecalledSkill]) -> str:
    """The ready-to-inject text: memories, then the skills catalog."""
    parts = []
    if memories:
        parts += [MEMORY_HEADING, *(m.line for m in memories)]
    if skills:
        parts += [SKILLS_HEADING, *(s.line for s in skills)]
    return "\n".join(parts)


def assemble(
    memories: list[RecalledMemory], skills: list[RecalledSkill], limit: int, max_chars: int
) -> Recall:
    """Memories first, then skills, in rank order: each item that keeps both budgets (items
    and characters of the text) is taken, one that does not is left out."""
    kept_memories: list[RecalledMemory] = []
    kept_skills: list[RecalledSkill] = []
    for memory in memories:
        if len(kept_memories) < limit:
            if len(recall_text([*kept_memories, memory], kept_skills)) <= max_chars:
                kept_memories.append(memory)
    for skill in skills:
        if len(kept_memories) + len(kept_skills) < limit:
            if len(recall_text(kept_memories, [*kept_skills, skill])) <= max_chars:
                kept_skills.append(skill)
    return Recall(kept_memories, kept_skills, recall_text(kept_memories, kept_skills))


async def recall(
    conn: asyncpg.Connection,
    principal: Principal,
    query: str | None,
    limit: int = RECALL_MAX_ITEMS,
    max_chars: int = RECALL_MAX_CHARS,
) -> Recall:
    """What a harness agent is handed: memories matching the query inline, then skills as
    catalog entries (name, trigger, path), at most ``limit`` items and ``max_chars``."""
    problems = []
    if not 1 <= limit <= RECALL_MAX_ITEMS:
        problems.append(Problem(f"limit is 1 to {RECALL_MAX_ITEMS}", "limit"))
    if not 1 <= max_chars <= RECALL_MAX_CHARS:
        problems.append(Problem(f"maxChars is 1 to {RECALL_MAX_CHARS}", "maxChars"))
    if query is not None:
        problems += _query_problems(query, ["memory"], 1, "query")
    if problems:
        raise invalid(problems)
    readable, person = principal.readable_objects, principal.person_id
    terms = query_text(query) if query else None
    memories: list[RecalledMemory] = []
    agent = caller_agent(principal)
    if terms is not None:
        found = await search_db.recall_memory(conn, terms, readable, person, limit, agent)
        memories = [RecalledMemory(h.name, h.type, h.text, h.day) for h in found]
        skill_rows = await search_db.search_skills(conn, terms, readable, person, limit, agent)
    else:
        skill_rows = await search_db.recall_skills(conn, readable, person, limit, agent)
    today = clock.now()
    skills = [
        RecalledSkill(
            s.name,
            "" if is_dormant(s.use_count, s.updated_at, today) else trigger_of(s),
            SKILL_DIRECTORIES["harness"].format(name=s.name) + "SKILL.md",
        )
        for s in skill_rows
    ]
    return assemble(memories, skills, limit, max_chars)
