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
from gateway.mcp import catalog as mcp_catalog
from gateway.mcp.inputs import (
    CopyInput,
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
from gateway.mcp.refs import read_ref, split_ref
from resolvers.catalog.settings import CatalogSettings
from resolvers.common import ids
from resolvers.common.errors import DomainError, Problem, invalid
from resolvers.common.principals import Principal
from resolvers.memory import proposals
from resolvers.records import trash
from resolvers.records.write import summary, write_records
from resolvers.search import search as search_resolvers
from resolvers.turns import turns

Answer = dict[str, Any]
COPY_FROM = (
    "copy takes catalog:<source> (catalog:shipped:<name> or catalog:owner/repo[/path][@ref])"
)


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call's connection, caller, and how the catalogue reaches its sources."""

    conn: asyncpg.Connection
    principal: Principal
    catalog: CatalogSettings


Run = Callable[[Call, Any], Awaitable[Answer]]


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


async def _search(call: Call, given: SearchInput) -> Answer:
    conn, principal = call.conn, call.principal
    found = await search_resolvers.search(
        conn, principal, given.query, list(given.kinds), given.first
    )
    answer = answers.search_results(found)
    if given.community:
        answer |= await mcp_catalog.community(conn, principal, call.catalog, given.query)
    return answer


async def _read(call: Call, given: ReadInput) -> Answer:
    return await read_ref(call.conn, call.principal, call.catalog, given.ref)


async def _copy(call: Call, given: CopyInput) -> Answer:
    kind, source = split_ref(given.from_)
    if kind != "catalog":
        raise invalid([Problem(COPY_FROM, "from")])
    return await mcp_catalog.copy(call.conn, call.principal, call.catalog, source, given.commit)


async def _propose(call: Call, given: ProposeMemoryInput) -> Answer:
    conn, principal = call.conn, call.principal
    row = await proposals.propose(
        conn, principal, given.text, given.record_id, given.conversation_id
    )
    return answers.proposal(row, principal.workspace_id)


async def _recall(call: Call, given: RecallInput) -> Answer:
    conn, principal = call.conn, call.principal
    found = await search_resolvers.recall(
        conn, principal, given.query, given.limit, given.max_chars
    )
    return answers.recall(found)


async def _turn_context(call: Call, given: TurnContextInput) -> Answer:
    conn, principal = call.conn, call.principal
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


async def _write_records(call: Call, given: WriteRecordsInput) -> Answer:
    conn, principal = call.conn, call.principal
    return summary(await write_records(conn, principal, list(given.records)))


async def _trash_record(call: Call, given: TrashRecordInput) -> Answer:
    conn, principal = call.conn, call.principal
    local = ids.decode(given.id, "Record", principal.workspace_id)
    await trash.set_trashed(conn, principal, local, True)
    return {"id": given.id, "trashed": True}


TOOLS = (
    Tool(
        "search",
        "Search memory and skills",
        "Memory pages (by souvenir text), skills (name, description, body) and, with kinds"
        " catalog, the catalogue's own skills matching the query, ranked, among what you may"
        " read. Read a hit with `read` and its ref. community: also the community directory"
        " (an agent's search asks its person first: an approval).",
        SearchInput,
        _search,
    ),
    Tool(
        "read",
        "Read a memory page, a skill, a skill's file, a record, a catalogue skill or an approval",
        "memory:<pageId> (the page as you may see it), skill:<name> (its body and file list),"
        " skill:<name>/<path> (one file), record:<id>, catalog:<source> (what a copy would"
        " land: SKILL.md as plain text, files, commit, who will see it) or approval:<id>."
        " NOT_FOUND when absent or not readable.",
        ReadInput,
        _read,
    ),
    Tool(
        "copy",
        "Copy a skill from the catalogue",
        "Install the skill catalog:<source> names. An agent's copy asks the person it works"
        " for: the answer is an approval with its card (the source pinned to the commit, who"
        " will see the skill, how many files land, which are scripts); read approval:<id> to"
        " see it decided. Refused at once when the folder would be refused or its name is"
        " taken. The only way a skill found elsewhere lands.",
        CopyInput,
        _copy,
        read_only=False,
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


async def run_tool(call: Call, tool: Tool, arguments: dict[str, Any]) -> Answer:
    """One call: its arguments read, its resolver run; DomainError for what is refused."""
    return await tool.run(call, parse(tool.model, arguments))


__all__ = ["BY_NAME", "TOOLS", "Call", "DomainError", "Tool", "run_tool"]
