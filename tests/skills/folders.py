"""Builders for the folder-format tests: a SKILL.md from its frontmatter, the fields of problems,
and drafts drawn at random (shared with the skills-ref agreement)."""

from __future__ import annotations

from hypothesis import strategies as st

from resolvers.skills.fields import (
    COMPATIBILITY_MAX_CHARS,
    DESCRIPTION_MAX_CHARS,
    RESERVED_NAMES,
    body_problems,
)
from resolvers.skills.skill_md import SkillDraft


def fields(problems):
    return [p.field for p in problems]


def skill_md(frontmatter: str, body: str = "Body.\n") -> bytes:
    return f"---\n{frontmatter}---\n{body}".encode()


GOOD_MD = skill_md("name: demo\ndescription: A demo skill.\n")


NAMES = st.from_regex(r"[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,5}", fullmatch=True).filter(
    lambda n: n not in RESERVED_NAMES
)


TRICKY = st.sampled_from(
    [":", ": ", "#", " #", "'", '"', "\\", "---", "- ", "\n", "\t", " ", "{", "[", "&", "*", "!",
     "|", ">", "%", "@", "`", "é", "ﬁ", "技", "🙂", "\u00a0", "\u2028", "\x85", "\x00", "\x1b",
     "\ufeff", "true", "null", "yes", "~", "1", "0x1f", ".inf", "...", "? "]
)  # fmt: skip


TEXT = st.lists(
    st.one_of(TRICKY, st.text(st.characters(exclude_categories=("Cs",)), max_size=6)),
    max_size=12,
).map("".join)


DESCRIPTIONS = TEXT.filter(lambda d: d.strip() != "" and len(d) <= DESCRIPTION_MAX_CHARS)


BODIES = TEXT.map(lambda b: b.replace("\r", "")).filter(lambda b: body_problems(b) == [])


TREE = st.recursive(
    TEXT,
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3),
        st.dictionaries(TEXT, inner, min_size=1, max_size=3),
    ),
    max_leaves=6,
)


METADATA = st.dictionaries(
    TEXT.filter(lambda k: k != "disable-model-invocation"), TEXT, min_size=1, max_size=4
)


EXTRAS = st.fixed_dictionaries(
    {},
    optional={
        "license": TREE,
        "compatibility": TEXT.filter(lambda c: len(c) <= COMPATIBILITY_MAX_CHARS),
        "allowed-tools": TREE,
        "metadata": METADATA,
        "disable-model-invocation": st.booleans(),
    },
)


DRAFTS = st.builds(SkillDraft, NAMES, DESCRIPTIONS, BODIES, EXTRAS)
