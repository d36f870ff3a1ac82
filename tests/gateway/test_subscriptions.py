"""Subscriptions over graphql-transport-ws on /graphql (issue 13, item 2), with gql's
websockets transport against the app under uvicorn: a subscriber hears the "Memory updated"
line of its own pass and of nobody else's (another person's, another workspace's), the
decision on its own proposal and not on another's; a connection without a valid token is
closed with 4403; subscriptions are not served over HTTP, nor queries over WebSocket."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, cast
from uuid import UUID

import pytest
from gql import Client, gql
from gql.transport.exceptions import TransportConnectionFailed, TransportQueryError
from gql.transport.websockets import WebsocketsTransport
from starlette.applications import Starlette
from strawberry.exceptions import ConnectionRejectionError
from websockets.exceptions import ConnectionClosed, InvalidStatus

import gateway.http.graphql as graphql_http
from db import identity
from db.pool import begin_workspace
from gateway.http.graphql import GraphQLEndpoint
from gateway.http.subscriptions import SubscriptionView
from resolvers.common.principals import issue_token
from schema.context import SubscriptionContext
from schema.schema import schema
from tests.factories import codes, company, data, local
from tests.factories import gql as post_gql
from tests.gateway.server import serving_app
from tests.memory.dreamer.dreaming import lines_of, said
from tests.memory.dreamer.intake_api import PROPOSE
from tests.memory.dreamer.rulebook import SOON, T0, dream_at, mention

MEMORY_UPDATED = "subscription { memoryUpdated { pageId pageName key line verdict } }"
PROPOSAL_DECIDED = "subscription { proposalDecided { id text status verdict } }"
# The longest a test waits for the server (never what it checks).
WAIT_SECONDS = 30.0


@pytest.fixture(scope="module")
def server(dsn: str) -> Any:
    with serving_app(dsn) as served:
        yield served


def transport(
    base_url: str, init: dict[str, Any] | None, origin: str | None = None
) -> WebsocketsTransport:
    return WebsocketsTransport(
        url=base_url.replace("http://", "ws://") + "/graphql",
        headers={"Origin": origin} if origin else None,
        init_payload=init,
        subprotocols=[WebsocketsTransport.GRAPHQLWS_SUBPROTOCOL],
    )


async def until_subscribed(app: Starlette, kind: str, workspace_id: UUID) -> None:
    """Wait until the server holds the subscription (its listener's queue is in place)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    while app.state.events.subscribers(kind, workspace_id) < 1:
        assert loop.time() < deadline, "the subscription never reached the server"
        await asyncio.sleep(0.02)


async def until_read(app: Starlette, kind: str, workspace_id: UUID, received: int) -> None:
    """Wait until the server received an event after ``received`` and its subscribers' queues
    are drained, and a moment more for the read that follows."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    events = app.state.events
    while events.received <= received or any(
        not q.empty() for q in events.queues.get((kind, workspace_id), ())
    ):
        assert loop.time() < deadline, "the event never reached the subscriber"
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.5)


@contextlib.asynccontextmanager
async def subscribed(
    server: Any, token: str, document: str, kind: str, workspace_id: UUID
) -> AsyncIterator[asyncio.Future[dict[str, Any]]]:
    """A subscription as ``token``, in place on the server; its first message to come."""
    base_url, app = server
    init = {"authorization": f"Bearer {token}"}
    async with Client(transport=transport(base_url, init)) as session:
        stream = session.subscribe(gql(document))
        first = asyncio.ensure_future(anext(stream))
        try:
            await until_subscribed(app, kind, workspace_id)
            yield first
        finally:
            first.cancel()
            with contextlib.suppress(BaseException):
                await first
            await stream.aclose()


async def test_a_subscriber_hears_its_passs_line_and_no_one_elses(pool, ws, ws2, server, stand):
    acme = await company(pool, ws, "Acme")
    rival_acme = await company(pool, ws2, "Acme")
    async with subscribed(server, ws.tokens["member"], MEMORY_UPDATED, "memory", ws.id) as first:
        # Another person's passes (their profile; the Acme page the member reads), another
        # workspace's: none reaches the member, and they all come before the member's own.
        stand(T0)
        await said(pool, ws, "other", "Remember: I always drink tea at 4pm.", T0)
        await said(pool, ws, "other", f"Remember: {mention('Acme', acme)} pays in 60 days.", T0)
        await said(pool, ws2, "member", f"Remember: {mention('Acme', rival_acme)} pays late.", T0)
        await dream_at(pool, ws, T0 + SOON)
        await dream_at(pool, ws2, T0 + SOON)
        assert len(await lines_of(pool, ws, "record", local(ws, acme))) == 1
        later = T0 + 2 * SOON
        text = f"Remember: {mention('Acme', acme)} wants every message in French."
        await said(pool, ws, "member", text, later)
        await dream_at(pool, ws, later + SOON)
        got = (await asyncio.wait_for(first, WAIT_SECONDS))["memoryUpdated"]
    lines = await lines_of(pool, ws, "record", local(ws, acme))
    mine = next(line for line in lines if "French" in line["text"])
    assert got["pageId"] == ws.gid(mine["page_id"], "MemoryPage")
    assert (got["pageName"], got["key"], got["verdict"]) == ("Acme", mine["key"], "WRITTEN")
    assert got["line"].startswith("- Acme wants every message in French.")
    assert got["line"].endswith("[relation]")


async def test_a_pass_run_by_another_process_is_heard(pool, dsn, ws, server, stand):
    acme = await company(pool, ws, "Acme")
    async with subscribed(server, ws.tokens["member"], MEMORY_UPDATED, "memory", ws.id) as first:
        stand(T0)
        text = f"Remember: {mention('Acme', acme)} wants every message in French."
        await said(pool, ws, "member", text, T0)
        owner = [dsn, str(ws.id), "member", str(ws.members["member"])]
        child = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.gateway.pass_child",
            *owner,
            cwd=README.parent,
            stdout=asyncio.subprocess.PIPE,
        )
        written, _ = await asyncio.wait_for(child.communicate(), WAIT_SECONDS)
        assert (child.returncode, written.strip()) == (0, b"1")
        got = (await asyncio.wait_for(first, WAIT_SECONDS))["memoryUpdated"]
    assert got["line"].startswith("- Acme wants every message in French.")


async def memory_read(pool, ws, allowed: bool) -> None:
    """Grant or take away the member role's right to read memory."""
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        rights = {"read": allowed, "create": False, "update": allowed, "delete": False}
        await identity.upsert_role_permission(
            conn, ws.roles["member"], ws.objects["memory"], **rights
        )


async def test_a_line_on_a_page_the_subscriber_may_not_read_is_not_heard(pool, ws, server, stand):
    acme = await company(pool, ws, "Acme")
    async with subscribed(server, ws.tokens["member"], MEMORY_UPDATED, "memory", ws.id) as first:
        # The member's own pass writes while their role may not read memory: not heard (each
        # event is read with the subscriber's rights as they are then).
        await memory_read(pool, ws, False)
        stand(T0)
        await said(pool, ws, "member", f"Remember: {mention('Acme', acme)} pays in 60 days.", T0)
        received = server[1].state.events.received
        await dream_at(pool, ws, T0 + SOON)
        assert len(await lines_of(pool, ws, "record", local(ws, acme))) == 1
        # The rights are read when the event is: only once the subscriber has read it (the
        # server received it, its queue is drained, its read done) may they come back.
        await until_read(server[1], "memory", ws.id, received)
        await memory_read(pool, ws, True)
        later = T0 + 2 * SOON
        text = f"Remember: {mention('Acme', acme)} wants every message in French."
        await said(pool, ws, "member", text, later)
        await dream_at(pool, ws, later + SOON)
        got = (await asyncio.wait_for(first, WAIT_SECONDS))["memoryUpdated"]
    assert got["line"].startswith("- Acme wants every message in French.")


async def test_a_token_revoked_since_ends_the_subscription(pool, ws, server, stand):
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        token = await issue_token(conn, "member", member_id=ws.members["member"], purpose="cli")
    async with subscribed(server, token, MEMORY_UPDATED, "memory", ws.id) as first:
        async with pool.acquire() as conn, conn.transaction():
            await begin_workspace(conn, ws.id)
            assert await identity.revoke_tokens_by_purpose(conn, "cli") == 1
        stand(T0)
        await said(pool, ws, "member", "Remember: I always drink tea at 4pm.", T0)
        await dream_at(pool, ws, T0 + SOON)
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(first, WAIT_SECONDS)


async def test_a_proposer_hears_its_proposal_decided_and_not_anothers(
    pool, ws, server, client, stand
):
    acme = await company(pool, ws, "Acme")
    async with subscribed(server, ws.tokens["agent"], PROPOSAL_DECIDED, "proposal", ws.id) as first:
        stand(T0)
        data(await post_gql(client, ws.tokens["other"], PROPOSE, {"t": "Does Acme pay late?"}))
        await dream_at(pool, ws, T0 + SOON)
        later = T0 + 2 * SOON
        stand(later)
        rule = f"Always write to {mention('Acme', acme)} in French"
        made = data(await post_gql(client, ws.tokens["agent"], PROPOSE, {"t": rule, "r": acme}))
        await dream_at(pool, ws, later + SOON)
        got = (await asyncio.wait_for(first, WAIT_SECONDS))["proposalDecided"]
    assert got == {
        "id": made["proposeMemory"]["id"],
        "text": rule,
        "status": "WRITTEN",
        "verdict": "written",
    }


README = Path(__file__).resolve().parents[2] / "README.md"


def readme_subscriber() -> str:
    """The Python subscriber of README.md's "Subscriptions" section."""
    text = README.read_text()
    section = text[text.index("### Subscriptions") : text.index("### CORS")]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


async def test_the_readme_subscriber_prints_the_line_of_a_pass(pool, ws, server, stand, tmp_path):
    base_url, app = server
    acme = await company(pool, ws, "Acme")
    script = tmp_path / "subscribe.py"
    script.write_text(readme_subscriber())
    env = {
        **os.environ,
        "TOKEN": ws.tokens["member"],
        "SKILLMEM_WS_URL": base_url.replace("http://", "ws://") + "/graphql",
    }
    child = await asyncio.create_subprocess_exec(
        sys.executable, str(script), env=env, stdout=asyncio.subprocess.PIPE
    )
    try:
        await until_subscribed(app, "memory", ws.id)
        stand(T0)
        text = f"Remember: {mention('Acme', acme)} wants every message in French."
        await said(pool, ws, "member", text, T0)
        await dream_at(pool, ws, T0 + SOON)
        assert child.stdout is not None
        printed = await asyncio.wait_for(child.stdout.readline(), WAIT_SECONDS)
    finally:
        child.kill()
        await child.wait()
    assert printed.decode().startswith(
        "Memory updated · Acme: - Acme wants every message in French."
    )


async def close_code(server: Any, init: dict[str, Any] | None) -> int:
    """The code the server closes a connection with, sending ``init`` (or nothing)."""
    base_url, _ = server
    used = transport(base_url, init)
    with pytest.raises(TransportConnectionFailed) as failed:
        async with Client(transport=used):
            pass
    closed = failed.value.__cause__
    assert isinstance(closed, ConnectionClosed) and closed.rcvd is not None
    return closed.rcvd.code


@pytest.mark.parametrize(
    "init",
    [
        None,
        {"authorization": "Bearer smk_" + "x" * 43},
        {"authorization": "smk_not_bearer"},
        {"token": "anything"},
    ],
)
async def test_a_connection_without_a_valid_token_is_closed_4403(server, init):
    assert await close_code(server, init) == 4403


@pytest.fixture(scope="module")
def browser_server(dsn: str) -> Any:
    with serving_app(dsn, cors_origins="http://localhost:5173") as served:
        yield served


async def test_a_browser_connects_only_from_an_origin_cors_lets_in(ws, browser_server):
    base_url, _ = browser_server
    init = {"authorization": f"Bearer {ws.tokens['member']}"}
    async with Client(transport=transport(base_url, init, "http://localhost:5173")):
        pass
    refused = transport(base_url, init, "https://elsewhere.example")
    with pytest.raises(TransportConnectionFailed) as failed:
        async with Client(transport=refused):
            pass
    handshake = failed.value.__cause__
    assert isinstance(handshake, InvalidStatus)
    assert handshake.response.status_code == 403


async def test_an_api_key_is_refused_memory_updated(ws, server):
    base_url, _ = server
    init = {"authorization": f"Bearer {ws.tokens['api_key']}"}
    async with Client(transport=transport(base_url, init)) as session:
        with pytest.raises(TransportQueryError) as refused:
            async for _ in session.subscribe(gql(MEMORY_UPDATED)):
                pass
    assert refused.value.errors[0]["extensions"]["code"] == "FORBIDDEN"


async def test_queries_are_not_served_over_websocket(ws, server):
    base_url, _ = server
    init = {"authorization": f"Bearer {ws.tokens['member']}"}
    async with Client(transport=transport(base_url, init)) as session:
        with pytest.raises(TransportQueryError) as refused:
            await session.execute(gql("{ me { name } }"))
    assert refused.value.errors[0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    assert "over HTTP" in refused.value.errors[0]["message"]


async def test_subscriptions_are_not_served_over_http(client, ws):
    answer = await post_gql(client, ws.tokens["member"], MEMORY_UPDATED)
    assert answer.status_code == 400
    assert codes(answer) == ["GRAPHQL_VALIDATION_FAILED"]
    assert "WebSocket" in answer.json()["errors"][0]["message"]


async def test_a_subscription_over_a_limit_is_refused_unvalidated(
    ws, server, settings, monkeypatch
):
    """The WebSocket path refuses a document over a limit before graphql-core's validation, as
    HTTP does (the server runs in this process: the spy sees its calls)."""
    validated: list[object] = []
    real = graphql_http.validate

    def counting(*args: Any, **kwargs: Any) -> Any:
        validated.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(graphql_http, "validate", counting)
    base_url, _ = server
    limit = settings.max_aliases  # the served app's too: both are the default settings
    fields = " ".join(f"a{i}: pageId" for i in range(limit + 1))
    init = {"authorization": f"Bearer {ws.tokens['member']}"}
    async with Client(transport=transport(base_url, init)) as session:
        with pytest.raises(TransportQueryError) as refused:
            document = gql(f"subscription {{ memoryUpdated {{ {fields} }} }}")
            async for _ in session.subscribe(document):
                pass
    assert refused.value.errors == [
        {
            "message": f"The document has {limit + 1} aliases; the alias limit is {limit}.",
            "extensions": {"limit": "aliases", "code": "GRAPHQL_VALIDATION_FAILED"},
        }
    ]
    assert validated == []


class NoPool:
    """A pool that fails the test when a connection is asked of it."""

    def acquire(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a connection was asked for")


@pytest.mark.parametrize("token", ["smk_abc", "smk_" + "x" * 42 + "!", "x" * 47])
async def test_a_token_of_no_issued_shape_is_refused_without_the_database(settings, token):
    endpoint = GraphQLEndpoint(schema._schema, settings, None)
    view = SubscriptionView(endpoint, settings)
    params = {"authorization": f"Bearer {token}"}
    context = SubscriptionContext(cast(Any, NoPool()), cast(Any, object()), "r", params)
    with pytest.raises(ConnectionRejectionError):
        await view.on_ws_connect(context)
    context.connection_params = {"authorization": "Bearer smk_" + "x" * 43}
    with pytest.raises(AssertionError, match="a connection was asked for"):
        await view.on_ws_connect(context)  # the shape of one: the database is asked
