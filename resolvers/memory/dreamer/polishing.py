"""The reader interface's third operation (issue 12, item 4): what a reader gets to polish one
skill, what it answers (a draft of the new body), and the protocol of a reader that polishes;
with the chat model's prompt and answer schema for it.

A reader only drafts: code judges the draft with the polish guards
(``resolvers/skills/polish.polish_problems``: steps grown by more than 50 %, an absolute path
introduced, a reflex over 500 characters) and the body's own rules, keeps the original when
one refuses it, and records why (``resolvers/skills/autopolish.py``). Pure.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal, Protocol, cast

import orjson
from pydantic import BaseModel, ConfigDict, Field

from resolvers.memory.dreamer.reader import Usage

POLISH_SCHEMA_NAME = "skill_polish"
PolishTrigger = Literal["lessons", "form"]


class _Model(BaseModel):
    """Strict and frozen, like the reader's models."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class PolishLesson(_Model):
    """A lesson waiting to be folded into the body."""

    day: date = Field(description="The day it was recorded.")
    text: str = Field(description="What a use of the skill taught, one line.")


class PolishBatch(_Model):
    """Everything a reader gets to polish one skill."""

    name: str = Field(description="The skill's name.")
    description: str = Field(description="The skill's description (never changed by polish).")
    body: str = Field(description="The body of SKILL.md (Markdown, without the frontmatter).")
    lessons: tuple[PolishLesson, ...] = Field(
        default=(), description="The lessons waiting to be folded in, oldest first."
    )
    form_problems: tuple[str, ...] = Field(
        default=(), description="Why the body fails its form check, one line per check failed."
    )
    trigger: PolishTrigger = Field(
        description="Why polish runs: 3 or more lessons wait, or the form check fails."
    )
    today: date = Field(description="The day of the polish.")


class PolishAnswer(_Model):
    """A reader's draft of the new body."""

    body: str = Field(description="The whole new body of SKILL.md (the body as it is: no change).")
    usage: Usage = Field(default=Usage(), description="What drafting cost.")


class Polisher(Protocol):
    """A reader that polishes: drafts a skill's new body, reports its usage; raises
    ``ReaderError`` (with the usage spent) when it could not."""

    async def polish(self, batch: PolishBatch) -> PolishAnswer:
        """The draft of the body of ``batch``'s skill, and the tokens spent."""
        ...


def polisher_of(reader: object) -> Polisher | None:
    """``reader`` when it polishes (a callable ``polish``), else None (automatic polish is then
    skipped, and says so)."""
    if callable(getattr(reader, "polish", None)):
        return cast(Polisher, reader)
    return None


POLISH_RULES = """\
You polish one skill: a SKILL.md body that tells an agent how to do one task. Rewrite the \
body so that it keeps what it says and folds in what its uses taught (the lessons), or fixes \
what its form check found. Answer the whole new body.

Keep its sections: an overview (what the skill is for), when to use it (with "don't use \
when ..."), the steps (a numbered or bulleted list), a check (how to verify the result), and \
an optional reflex (at most 500 characters). Fold each lesson where it belongs (a step, the \
check, the reflex), or under a "## Lessons" section as "- YYYY-MM-DD: text".

Code refuses a draft, and keeps the body as it is, when the steps grow by more than half, \
when it writes an absolute path (use ~/ or a relative path), or when the reflex is over 500 \
characters. Prefer a short, precise body; when nothing should change, answer the body as it \
is."""


class Drafted(_Model):
    """The model's answer: the new body."""

    body: str = Field(description="The whole new body of SKILL.md.")


def polish_prompt() -> str:
    return POLISH_RULES


def polish_message(batch: PolishBatch) -> str:
    """The batch as JSON, what the model reads."""
    return orjson.dumps(batch.model_dump(mode="json")).decode()


def polish_schema() -> dict[str, Any]:
    """The JSON schema of ``Drafted`` in the strict structured outputs form."""
    return {
        "type": "object",
        "properties": {"body": {"type": "string", "description": "The whole new body."}},
        "required": ["body"],
        "additionalProperties": False,
    }
