"""What the MCP tools answer: the resolvers' rows as JSON objects (camelCase keys, as the
GraphQL API names them), and an error as its DESIGN §8 code, message and problems."""

from __future__ import annotations

import base64
import dataclasses
from typing import Any
from uuid import UUID

from pydantic.alias_generators import to_camel

from db.memory_proposals import ProposalRow
from db.records import RecordRow
from db.skills import FileRow
from resolvers.common import ids
from resolvers.common.errors import DomainError
from resolvers.memory.reading import Page
from resolvers.search.search import Recall, Results
from resolvers.skills.reading import Activation, script_flag
from resolvers.turns.cards import Card, cards_text
from resolvers.turns.turns import TurnContext


def error(found: DomainError) -> dict[str, Any]:
    return {
        "code": found.code.value,
        "message": found.message,
        "problems": [p.as_dict() for p in found.problems],
    }


def camel(value: Any) -> Any:
    """A plain value with every dictionary key in camelCase."""
    if isinstance(value, dict):
        return {to_camel(str(k)): camel(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [camel(v) for v in value]
    return value


def search_results(found: Results) -> dict[str, Any]:
    return {
        "hits": [
            {
                "kind": hit.object,
                "ref": f"{hit.object}:{hit.id}",
                "id": hit.id,
                "title": hit.title,
                "snippet": hit.snippet,
            }
            for hit in found.hits
        ],
        "total": found.total,
        "capped": found.capped,
    }


def memory_page(page: Page, workspace: UUID) -> dict[str, Any]:
    row = page.row
    page_id = ids.encode("MemoryPage", workspace, row.id)
    return {
        "ref": f"memory:{page_id}",
        "id": page_id,
        "name": row.name,
        "description": row.description,
        "aboutKind": row.about_kind,
        "version": row.version,
        "updatedAt": row.updated_at.isoformat(),
        "content": page.content,
        "contentSha256": page.content_sha256,
        "souvenirs": [{"key": s.key, "line": s.line} for s in page.souvenirs],
    }


def files(found: list[FileRow]) -> list[dict[str, Any]]:
    return [{"path": f.path, "size": f.size, "script": script_flag(f)} for f in found]


def skill(found: Activation) -> dict[str, Any]:
    return {
        "ref": f"skill:{found.name}",
        "name": found.name,
        "version": found.version,
        "body": found.body,
        "directory": found.directory,
        "files": files(found.files),
        "subSkills": found.sub_skills,
    }


def skill_file(name: str, file: FileRow, content: bytes) -> dict[str, Any]:
    """One file: its text when it is UTF-8 (encoding "utf-8"), else base64."""
    try:
        text, encoding = content.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        text, encoding = base64.b64encode(content).decode(), "base64"
    return {
        "ref": f"skill:{name}/{file.path}",
        "name": name,
        "path": file.path,
        "size": file.size,
        "sha256": file.sha256,
        "script": script_flag(file),
        "encoding": encoding,
        "content": text,
    }


def record(found: RecordRow, workspace: UUID) -> dict[str, Any]:
    record_id = ids.encode("Record", workspace, found.id)
    return {
        "ref": f"record:{record_id}",
        "id": record_id,
        "object": found.object,
        "label": found.label,
        "values": found.values,
        "visibility": found.visibility,
        "createdAt": found.created_at.isoformat(),
        "updatedAt": found.updated_at.isoformat(),
    }


def proposal(found: ProposalRow, workspace: UUID) -> dict[str, Any]:
    return {
        "id": ids.encode("MemoryProposal", workspace, found.id),
        "text": found.text,
        "recordId": ids.encode("Record", workspace, found.record_id) if found.record_id else None,
        "status": found.status,
        "createdAt": found.created_at.isoformat(),
    }


def recall(found: Recall) -> dict[str, Any]:
    return {
        "text": found.text,
        "memories": [
            {"page": m.page, "type": m.type, "text": m.text, "day": m.day.isoformat()}
            for m in found.memories
        ],
        "skills": [{"name": s.name, "trigger": s.trigger, "path": s.path} for s in found.skills],
    }


def card(found: Card) -> dict[str, Any]:
    plain: dict[str, Any] = camel(dataclasses.asdict(found))
    plain.pop("writtenText")
    plain["text"] = found.text
    return plain


def turn_context(found: TurnContext) -> dict[str, Any]:
    budget = found.budget
    return {
        "profiles": dataclasses.asdict(found.profiles),
        "cards": [card(c) for c in found.cards],
        "budget": {
            "limit": budget.limit,
            "used": budget.used,
            "dropped": [camel(dataclasses.asdict(d)) for d in budget.dropped],
        },
        "text": cards_text(found.cards),
        "replayed": found.replayed,
    }
