"""The MCP tools: each reads its arguments with its pydantic model and calls the resolver the
GraphQL API calls, on the call's own connection, as the token's principal.

The record tools write records as POST /v1/records and trashRecord do: a memory record is
never created, edited or deleted through them (SCHEMA_SYSTEM_ENTITY_IMMUTABLE), and no tool
edits a page's content (agents propose with propose_memory)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import asyncpg

from gateway.mcp import answers
from gateway.mcp.inputs import (
    ProposeMemoryInput,
    ReadInput,
    RecallInput,
    SearchInput,
    ToolInput,
    TrashRecordInput,
    TurnContextInput,
    WriteRecordsInput,
    parse,
    schema_of,
)
from gateway.mcp.refs import read_ref
from resolvers.common import ids
from resolvers.common.errors import DomainError
from resolvers.common.principals import Principal
from resolvers.memory import proposals
from resolvers.records import trash
from resolvers.records.write import summary, write_records
from resolvers.search import search as search_resolvers
from resolvers.turns import turns

Answer = dict[str, Any]
Run = Callable[[asyncpg.Connection, Principal, Any], Awaitable[Answer]]


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    title: str
    description: str
    model: type[ToolInput]
    run: Run
    read_only: bool = True

    @property
    def input_schema(self) -> dict[str, Any]:
        return schema_of(self.model)


async def _search(conn: asyncpg.Connection, principal: Principal, given: SearchInput) -> Answer:
    found = await search_resolvers.search(
        conn, principal, given.query, list(given.kinds), given.first
    )
    return answers.search_results(found)


async def _read(conn: asyncpg.Connection, principal: Principal, given: ReadInput) -> Answer:
    return await read_ref(conn, principal, given.ref)


async def _propose(
    conn: asyncpg.Connection, principal: Principal, given: ProposeMemoryInput
) -> Answer:
    row = await proposals.propose(
        conn, principal, given.text, given.record_id, given.conversation_id
    )
    return answers.proposal(row, principal.workspace_id)


async def _recall(conn: asyncpg.Connection, principal: Principal, given: RecallInput) -> Answer:
    found = await search_resolvers.recall(
        conn, principal, given.query, given.limit, given.max_chars
    )
    return answers.recall(found)


async def _turn_context(
    conn: asyncpg.Connection, principal: Principal, given: TurnContextInput
) -> Answer:
    found = await turns.turn_context(
        conn,
        principal,
        turns.TurnInput(
            message=given.message,
            conversation_id=given.conversation_id,
            message_id=given.message_id,
            agent_id=given.agent_id,
            attached_record_id=given.attached_record_id,
        ),
    )
    return answers.turn_context(found)


async def _write_records(
    conn: asyncpg.Connection, principal: Principal, given: WriteRecordsInput
) -> Answer:
    return summary(await write_records(conn, principal, list(given.records)))


async def _trash_record(
    conn: asyncpg.Connection, principal: Principal, given: TrashRecordInput
) -> Answer:
    local = ids.decode(given.id, "Record", principal.workspace_id)
    await trash.set_trashed(conn, principal, local, True)
    return {"id": given.id, "trashed": True}


TOOLS = (
    Tool(
        "search",
        "Search memory and skills",
        "Memory pages (by souvenir text) and skills (name, description, body) matching the"
        " query, ranked, among what you may read. Read a hit with `read` and its ref.",
        SearchInput,
        _search,
    ),
    Tool(
        "read",
        "Read a memory page, a skill, a skill's file or a record",
        "memory:<pageId> (the page as you may see it), skill:<name> (its body and file list),"
        " skill:<name>/<path> (one file) or record:<id>. NOT_FOUND when absent or not readable.",
        ReadInput,
        _read,
    ),
    Tool(
        "propose_memory",
        "Propose a learning",
        "Propose a learning for the workspace's memory pass, with the record it is about when"
        " there is one. Memory is never written directly; at most 30 proposals an hour"
        " (SCHEMA_MEMORY_PROPOSAL_RATE_LIMITED).",
        ProposeMemoryInput,
        _propose,
        read_only=False,
    ),
    Tool(
        "recall",
        "Recall memory and skills",
        "Relevant memories inline and skills as catalog entries (name, trigger, path), within"
        " limit items and maxChars characters: text ready to put in a prompt.",
        RecallInput,
        _recall,
    ),
    Tool(
        "turn_context",
        "The turn's cards",
        "What an agent reads this turn: the profiles, a card for each record the message"
        " mentions (@[Label](record:<id>)) or is sent from, read as the person the token acts"
        " for, within the cards' 4,000-character budget.",
        TurnContextInput,
        _turn_context,
        read_only=False,
    ),
    Tool(
        "write_records",
        "Create or update records",
        "Create or update records in bulk, all or nothing, with every refused line listed."
        " Memory records are never written here (SCHEMA_SYSTEM_ENTITY_IMMUTABLE).",
        WriteRecordsInput,
        _write_records,
        read_only=False,
    ),
    Tool(
        "trash_record",
        "Move a record to the trash",
        "Move a record to the trash (the delete right). Memory and skill records answer"
        " SCHEMA_SYSTEM_ENTITY_IMMUTABLE.",
        TrashRecordInput,
        _trash_record,
        read_only=False,
    ),
)
BY_NAME = {tool.name: tool for tool in TOOLS}


async def run_tool(
    conn: asyncpg.Connection, principal: Principal, tool: Tool, arguments: dict[str, Any]
) -> Answer:
    """One call: its arguments read, its resolver run; DomainError for what is refused."""
    return await tool.run(conn, principal, parse(tool.model, arguments))


__all__ = ["BY_NAME", "TOOLS", "DomainError", "Tool", "run_tool"]
