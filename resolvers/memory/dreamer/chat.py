"""The chat model reader (issue 10, item 5): any OpenAI-compatible chat completions server
(``base_url``), through the official ``openai`` package, asked for structured output.

The package carries the request: authentication, the timeout, and retries with backoff on a
timeout, a lost connection, 408, 409, 429 and 5xx (``max_retries``, honouring
``Retry-After``). The answer is read from the raw body with small models of our own rather
than the package's ``ChatCompletion``, so that a compatible server omitting a field we do not
read (``id``, ``created``) is still understood, and a body that is not a chat completion is a
``ReaderError`` instead of a half-built object. Anything that keeps a batch from being read
raises ``ReaderError``: the pass keeps its items for a retry. Consolidation (issue 11) asks
the same server with its own prompt and schema (``consolidate``), and so does a skill's
polish (issue 12: ``polish``, the new body drafted whole).
"""

from __future__ import annotations

from typing import TypeVar

from openai import APIError, APIStatusError, APITimeoutError, AsyncOpenAI, omit
from openai.types.chat import ChatCompletionMessageParam
from openai.types.shared_params import ResponseFormatJSONSchema
from pydantic import BaseModel, Field, ValidationError

from resolvers.memory.dreamer.chat_settings import ChatSettings
from resolvers.memory.dreamer.consolidating import ConsolidationAnswer, ConsolidationBatch
from resolvers.memory.dreamer.polishing import (
    POLISH_SCHEMA_NAME,
    Drafted,
    PolishAnswer,
    PolishBatch,
    polish_message,
    polish_prompt,
    polish_schema,
)
from resolvers.memory.dreamer.prompt import (
    ANSWER_SCHEMA_NAME,
    CONSOLIDATION_SCHEMA_NAME,
    Consolidations,
    Learnings,
    answer_schema,
    batch_message,
    consolidation_message,
    consolidation_prompt,
    consolidation_schema,
    system_prompt,
)
from resolvers.memory.dreamer.reader import Batch, ItemLearnings, ReaderAnswer, ReaderError, Usage

CHAT_READER = "openai"


class ChatReader:
    """The ``openai`` reader: implements ``reader.Reader`` with a chat model."""

    name = CHAT_READER

    def __init__(self, settings: ChatSettings) -> None:
        missing = settings.missing()
        if missing:
            raise ValueError(f"the chat reader needs {', '.join(missing)}")
        self.settings = settings

    async def read(self, batch: Batch) -> ReaderAnswer:
        """The model's learnings for each item of ``batch``, and the tokens it spent; a
        ``ReaderError`` when the model could not be asked or answered something malformed."""
        return parse_answer(await self._ask(messages(batch), response_format()), batch)

    async def consolidate(self, batch: ConsolidationBatch) -> ConsolidationAnswer:
        """The model's proposals for the pages of ``batch``, and the tokens it spent; a
        ``ReaderError`` when it could not be asked or answered something malformed."""
        sent = consolidation_messages(batch)
        return parse_consolidation(await self._ask(sent, consolidation_format()))

    async def polish(self, batch: PolishBatch) -> PolishAnswer:
        """The model's draft of the skill's new body, and the tokens it spent; a
        ``ReaderError`` when it could not be asked or answered something malformed."""
        sent: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": polish_prompt()},
            {"role": "user", "content": polish_message(batch)},
        ]
        format_: ResponseFormatJSONSchema = {
            "type": "json_schema",
            "json_schema": {"name": POLISH_SCHEMA_NAME, "schema": polish_schema(), "strict": True},
        }
        return parse_polish(await self._ask(sent, format_))

    async def _ask(
        self, sent: list[ChatCompletionMessageParam], format_: ResponseFormatJSONSchema
    ) -> str:
        """The raw body of the model's answer (a client per batch: passes are rare, and
        nothing is left open between them)."""
        settings = self.settings
        client = AsyncOpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key,
            timeout=settings.timeout,
            max_retries=settings.max_retries,
        )
        async with client:
            try:
                response = await client.chat.completions.with_raw_response.create(
                    model=settings.model,
                    messages=sent,
                    response_format=format_,
                    reasoning_effort=settings.reasoning_effort or omit,
                )
            except APITimeoutError as exc:
                raise ReaderError(
                    f"the model did not answer within {settings.timeout:g} s"
                ) from exc
            except APIStatusError as exc:
                raise ReaderError(f"the model's server answered HTTP {exc.status_code}") from exc
            except APIError as exc:
                raise ReaderError(f"the model could not be asked: {exc.message}") from exc
            return response.text


def messages(batch: Batch) -> list[ChatCompletionMessageParam]:
    """The system prompt (mission, then rules) and the batch as JSON."""
    return [
        {"role": "system", "content": system_prompt(batch)},
        {"role": "user", "content": batch_message(batch)},
    ]


def response_format() -> ResponseFormatJSONSchema:
    """Structured output: the answer must follow ``prompt.answer_schema``, strictly."""
    return {
        "type": "json_schema",
        "json_schema": {"name": ANSWER_SCHEMA_NAME, "schema": answer_schema(), "strict": True},
    }


def consolidation_messages(batch: ConsolidationBatch) -> list[ChatCompletionMessageParam]:
    """Consolidation's system prompt (mission, then its rules) and the batch as JSON."""
    return [
        {"role": "system", "content": consolidation_prompt(batch)},
        {"role": "user", "content": consolidation_message(batch)},
    ]


def consolidation_format() -> ResponseFormatJSONSchema:
    """Structured output: the answer must follow ``prompt.consolidation_schema``, strictly."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": CONSOLIDATION_SCHEMA_NAME,
            "schema": consolidation_schema(),
            "strict": True,
        },
    }


T = TypeVar("T", bound=BaseModel)


class _Message(BaseModel):
    content: str | None = None
    refusal: str | None = None


class _Choice(BaseModel):
    message: _Message
    finish_reason: str | None = None


class _TokenUsage(BaseModel):
    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)


class _Completion(BaseModel):
    """What we read of a chat completion (other fields are ignored)."""

    choices: list[_Choice] = Field(min_length=1)
    usage: _TokenUsage | None = None


def _answered(body: str, schema: type[T]) -> tuple[T, Usage]:
    """The model's answer in a chat completion's body, read by ``schema``, and its usage (none
    reported counts as zero); ``ReaderError``, with the usage spent, when it is malformed."""
    try:
        completion = _Completion.model_validate_json(body)
    except ValidationError as exc:
        raise ReaderError(f"the model's server sent no chat completion ({_first(exc)})") from exc
    usage = _usage(completion)
    try:
        found = schema.model_validate_json(_content(completion.choices[0]))
    except ReaderError as exc:
        raise ReaderError(str(exc), usage=usage) from exc
    except ValidationError as exc:
        raise ReaderError(f"the model's answer breaks its schema ({_first(exc)})", usage) from exc
    return found, usage


def parse_answer(body: str, batch: Batch) -> ReaderAnswer:
    """The ``ReaderAnswer`` in a chat completion's body: its message's learnings, one entry
    per item of ``batch`` in its order (an item left out teaches nothing), and its usage (none
    reported counts as zero). ``ReaderError``, with the usage spent, when it is malformed."""
    found, usage = _answered(body, Learnings)
    try:
        learnings = in_batch_order(found.learnings, batch)
    except ReaderError as exc:
        raise ReaderError(str(exc), usage=usage) from exc
    return ReaderAnswer(learnings=learnings, usage=usage)


def parse_consolidation(body: str) -> ConsolidationAnswer:
    """The ``ConsolidationAnswer`` in a chat completion's body, with its usage; ``ReaderError``,
    with the usage spent, when it is malformed (code ignores pages and keys not in the batch)."""
    found, usage = _answered(body, Consolidations)
    return ConsolidationAnswer(pages=found.pages, usage=usage)


def parse_polish(body: str) -> PolishAnswer:
    """The drafted body in a chat completion's body, with its usage; ``ReaderError``, with the
    usage spent, when it is malformed."""
    found, usage = _answered(body, Drafted)
    return PolishAnswer(body=found.body, usage=usage)


def in_batch_order(found: tuple[ItemLearnings, ...], batch: Batch) -> tuple[ItemLearnings, ...]:
    """``found`` as one entry per item of ``batch``, in its order; ``ReaderError`` for an id
    not in the batch or answered twice."""
    known = {item.id for item in batch.items}
    by_id: dict[str, ItemLearnings] = {}
    for entry in found:
        if entry.item_id not in known:
            raise ReaderError(f"the model answered for an unknown item {entry.item_id!r}")
        if entry.item_id in by_id:
            raise ReaderError(f"the model answered twice for item {entry.item_id!r}")
        by_id[entry.item_id] = entry
    return tuple(by_id.get(item.id) or ItemLearnings(item_id=item.id) for item in batch.items)


def _content(choice: _Choice) -> str:
    if choice.finish_reason == "length":
        raise ReaderError("the model's answer was cut at its length limit")
    if choice.message.refusal:
        raise ReaderError(f"the model refused: {choice.message.refusal}")
    if not choice.message.content:
        raise ReaderError("the model's answer is empty")
    return choice.message.content


def _usage(completion: _Completion) -> Usage:
    spent = completion.usage or _TokenUsage()
    return Usage(input_tokens=spent.prompt_tokens, output_tokens=spent.completion_tokens)


def _first(exc: ValidationError) -> str:
    """The count of problems and the first one, without the input (it may be long)."""
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "top level"
    return f"{exc.error_count()} problem(s), first at {where}: {error['msg']}"
