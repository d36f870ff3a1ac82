"""How the sweep asks each door: a call per slot, its id spelled as that door spells ids,
everything else given the least valid value (or what ``GRAPHQL_ARGS``, ``ROUTE_BODIES`` and
``TOOL_ARGS`` give where the least value would be refused before the id is read), and the
answer normalized: the id sent replaced by ``<id>``, request ids dropped."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
from graphql import GraphQLNonNull, GraphQLSchema
from graphql.pyutils import Undefined

from tests.factories import bearer
from tests.isolation.doors import (
    PARAM_KINDS,
    REF_SLOT_KINDS,
    Slot,
    minimal,
    operation,
    path_kind,
    sdk_style,
    with_value,
)
from tests.isolation.sdk_inputs import SdkCall
from tests.isolation.world import Thing, World

Send = Callable[[str], Awaitable[Any]]
MCP_HEADERS = {"accept": "application/json, text/event-stream"}
# Kinds a door names by a string of their own rather than an id.
TEXT_KINDS = {"Conversation", "SkillName"}
# Kinds the GraphQL API takes in the SDK's spelling (memoryStoreId, skillId: Strings).
SDK_IN_GRAPHQL = {"MemoryStore", "Skill"}

MAIL = {
    "externalId": "fresh",
    "threadId": "thread-1",
    "filed": "RECEIVED",
    "from": "claire@acme.example",
    "at": "2026-12-01T09:00:00+00:00",
}
# GraphQL arguments a valid call needs beyond the least values, by field (ids of the home
# workspace as ``"home:<Kind>"``).
GRAPHQL_ARGS: dict[str, dict[str, Any]] = {
    "memoryProfile": {"kind": "MEMBER"},
    "editMemoryPage": {"content": "- Pays at 30 days — Claire, 2026-11-02 [relation]"},
    "deleteSouvenir": {"key": "k1"},
    "setAgentSkills": {"id": "home:Agent", "skills": [{"type": "custom"}]},
    "recordMessage": {"input": {"role": "USER", "text": "Hello."}},
    "recordMeeting": {"input": {"title": "Review", "transcript": "Claire: noted."}},
    "recordRun": {"input": {"mission": "Chase."}},
    "recordRun input.messages.speakerId": {"input": {"mission": "Chase.", "agentId": "home:Agent"}},
    "recordRun input.conversationId": {"input": {"mission": "Chase.", "agentId": "home:Agent"}},
    "putSkillFile": {"path": "notes.md", "text": "Notes."},
    "createMailbox": {"input": {"kind": "PERSONAL", "name": "Box"}},
    "recordMail": {"mailboxId": "home:Mailbox", "messages": [MAIL]},
    "startConversation": {"conversationId": "fresh"},
}
# Bodies of the routes that take one.
ROUTE_BODIES: dict[str, Any] = {
    "PATCH /v1/records/{object}/{id}/memory": {"pageId": "home:MemoryPage", "key": "k1"},
    "POST /agents/sessions/{id}/messages": {"role": "user", "text": "Hello."},
    "POST /v1/memory_stores/{store_id}": {"name": "Renamed"},
    "POST /v1/memory_stores/{store_id}/memories": {"path": "/b.md", "content": "B\n"},
    "POST /v1/memory_stores/{store_id}/memories/{memory_id}": {"content": "A2\n"},
    "POST /v1/mailboxes/{id}/messages": {"messages": [{**MAIL, "filed": "received"}]},
    "POST /v1/meetings": {"externalId": "fresh", "title": "Review", "transcript": "Claire: ok."},
    "POST /v1/mailboxes": {"externalId": "fresh", "kind": "personal", "name": "Box"},
}
# Routes that take files (multipart/form-data) rather than JSON: a new version of the home
# workspace's skill, as the SDK uploads it.
SKILL_MD = b"---\nname: sweep-acmecorp-admin\ndescription: Chase invoices.\n---\n\n# Chase\n"
ROUTE_FILES = {
    "POST /v1/skills/{skill_id}/versions": [
        ("files[]", ("sweep-acmecorp-admin/SKILL.md", SKILL_MD, "text/markdown"))
    ],
}
# Values of the path parameters that name no thing.
PATH_VALUES = {"object": "companies", "key": "share_with_team"}
TOOL_ARGS: dict[str, dict[str, Any]] = {
    "search": {"query": "Acme"},
    "propose_memory": {"text": "Acme pays at 60 days."},
    "turn_context": {"message": "About Acme."},
}


def spell(kind: str, thing: Thing, sdk: bool) -> str:
    """How a door writes ``thing``: its own string, an SDK id or a GraphQL id."""
    if kind in TEXT_KINDS:
        return thing.text
    return thing.sdk() if sdk else thing.gid()


def normalized(answer: Any, *sent: str) -> Any:
    """An answer with the ids sent replaced and request ids dropped."""
    text = orjson.dumps(answer).decode()
    for value in sent:
        text = text.replace(value, "<id>")
    text = re.sub(r'"request_id":"[^"]*"', '"request_id":"-"', text)
    text = re.sub(r'"request[_iI]+d":"[0-9a-f]{32}"', '"request_id":"-"', text)
    # What a call makes anew: its own ids and times.
    text = re.sub(r"[0-9a-f]{32}", "<new>", text)
    text = re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+(\+00:00|Z)", "<time>", text)
    return orjson.loads(text)


@dataclass
class Sweep:
    client: httpx.AsyncClient
    world: World
    schema: GraphQLSchema

    @property
    def token(self) -> str:
        return self.world.a.tokens["admin"]

    def resolved(self, value: Any) -> Any:
        """``"home:<Kind>"`` placeholders as the home workspace's ids."""
        if isinstance(value, dict):
            return {k: self.resolved(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.resolved(v) for v in value]
        if isinstance(value, str) and value.startswith("home:"):
            kind = value.removeprefix("home:")
            return spell(kind, self.world.home[kind], False)
        if value == "fresh":
            return spell("Conversation", self.world.missing("Conversation"), False)
        return value

    # GraphQL

    def graphql(self, slot: Slot) -> Send:
        root_name, field_name = slot.door.split(".")
        root = self.schema.get_type(root_name)
        field = root.fields[field_name]  # type: ignore[union-attr]
        head, *rest = slot.where.split(".")
        sdk = slot.kind in SDK_IN_GRAPHQL
        extra = GRAPHQL_ARGS.get(f"{field_name} {slot.where}", GRAPHQL_ARGS.get(field_name, {}))

        async def send(variant: str) -> Any:
            thing = self.world.get(variant, slot.kind or "")
            arguments = {
                name: minimal(arg.type)
                for name, arg in field.args.items()
                if isinstance(arg.type, GraphQLNonNull) and arg.default_value is Undefined
            }
            for name, value in self.resolved(extra).items():
                arguments[name] = merged(arguments.get(name), value)
            value = spell(slot.kind or "", thing, sdk)
            target = field.args[head].type
            arguments[head] = with_value(target, arguments.get(head), rest, value)
            query = operation(root_name, field_name, field, arguments)
            response = await self.client.post(
                "/graphql",
                json={"query": query, "variables": arguments},
                headers=bearer(self.token),
            )
            return normalized({"status": response.status_code, **response.json()}, value)

        return send

    # Routes

    def route(self, slot: Slot, method: str, path: str) -> Send:
        door = slot.door
        sdk = sdk_style(path)
        params = [p.strip("{}") for p in re.findall(r"\{[^}]+\}", path)]

        async def send(variant: str) -> Any:
            values = {}
            for param in params:
                kind = path_kind(door, path, param)
                moved = slot.where in (param, "*") and kind != "-"
                if kind in (None, "-"):
                    values[param] = PATH_VALUES[param]
                elif moved:
                    values[param] = spell(kind, self.world.get(variant, kind), sdk)
                else:
                    values[param] = spell(kind, self.world.home[kind], sdk)
            url = path.format(**values)
            body = self.resolved(ROUTE_BODIES.get(door, {}))
            sent: dict[str, Any] = {"json": body} if method in ("POST", "PUT", "PATCH") else {}
            if door in ROUTE_FILES:
                sent = {"files": ROUTE_FILES[door]}
            response = await self.client.request(method, url, headers=bearer(self.token), **sent)
            try:
                answer: Any = response.json()
            except ValueError:
                answer = response.text
            moved = [values[p] for p in params if slot.where in (p, "*") and p not in PATH_VALUES]
            return normalized({"status": response.status_code, "body": answer}, *moved)

        return send

    def body(self, slot: Slot, method: str, path: str) -> Send:
        """A route with the id in its JSON body, its path's ids the home workspace's."""
        params = re.findall(r"\{([^}]+)\}", path)

        async def send(variant: str) -> Any:
            thing = self.world.get(variant, slot.kind or "")
            value = spell(slot.kind or "", thing, sdk_style(path))
            values = {}
            for param in params:
                kind = path_kind(slot.door, path, param)
                home = kind not in (None, "-")
                values[param] = (
                    spell(kind, self.world.home[kind], False) if home else PATH_VALUES[param]
                )  # type: ignore[index]
            body = placed(self.resolved(ROUTE_BODIES.get(slot.door, {})), slot.where, value)
            url = path.format(**values)
            response = await self.client.request(method, url, headers=bearer(self.token), json=body)
            return normalized({"status": response.status_code, "body": response.json()}, value)

        return send

    def sdk_input(self, slot: Slot, call: SdkCall) -> Send:
        """An SDK route with the id in its body or query string."""

        def home(kind: str) -> str:
            return self.world.home[kind].sdk()

        async def send(variant: str) -> Any:
            value = self.world.get(variant, call.kind).sdk()
            url = call.path.format(store_id=home("MemoryStore"))
            sent: dict[str, Any] = {}
            if call.body is not None:
                sent["json"] = call.body(value, home)
            if call.query:
                sent["params"] = {call.query: value}
            response = await self.client.request(
                call.method, url, headers=bearer(self.token), **sent
            )
            return normalized({"status": response.status_code, "body": response.json()}, value)

        return send

    # MCP

    def tool(self, slot: Slot) -> Send:
        name = slot.door.removeprefix("mcp tool ")

        async def send(variant: str) -> Any:
            thing = self.world.get(variant, slot.kind or "")
            arguments = dict(TOOL_ARGS.get(name, {}))
            if slot.where.startswith("ref:"):
                prefix = slot.where.removeprefix("ref:")
                value = spell(REF_SLOT_KINDS[prefix], thing, False)
                arguments["ref"] = f"{prefix}:{value}"
            elif slot.where == "records":
                value = thing.gid()
                arguments["records"] = [{"object": "companies", "id": value, "label": "Renamed"}]
            else:
                value = spell(slot.kind or "", thing, False)
                arguments[to_camel(slot.where)] = value
            params = {"name": name, "arguments": arguments}
            return normalized(await self.rpc("tools/call", params), value)

        return send

    def resource(self, slot: Slot) -> Send:
        template = slot.door.removeprefix("mcp resource ")

        async def send(variant: str) -> Any:
            value = self.world.get(variant, slot.kind or "").text
            uri = template.replace("{name}", value).replace("{path}", "SKILL.md")
            return normalized(await self.rpc("resources/read", {"uri": uri}), value)

        return send

    async def rpc(self, method: str, params: dict[str, Any]) -> Any:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        response = await self.client.post(
            "/mcp", json=body, headers=bearer(self.token, **MCP_HEADERS)
        )
        return {"status": response.status_code, **response.json()}


def placed(body: Any, where: str, value: str) -> Any:
    """``body`` with ``value`` at ``where`` (``body.messages[].recordIds[]``): a list holds one
    item, the first of those given."""
    steps = where.removeprefix("body.").split(".")
    name, *rest = steps
    listed = name.endswith("[]")
    name = name.removesuffix("[]")
    given = dict(body or {})
    if not rest:
        given[name] = [value] if listed else value
        return given
    inner = given.get(name)
    item = (inner[0] if inner else {}) if listed else inner
    moved = placed(item, "body." + ".".join(rest), value)
    given[name] = [moved] if listed else moved
    return given


def merged(base: Any, extra: Any) -> Any:
    if isinstance(base, dict) and isinstance(extra, dict):
        return {**base, **extra}
    return extra


def to_camel(name: str) -> str:
    return re.sub(r"_(\w)", lambda m: m.group(1).upper(), name)


__all__ = ["PARAM_KINDS", "Sweep", "spell"]
