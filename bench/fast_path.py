"""The whole-operation fast path (schema/fast.py) in process: the app's work per request with
the fast path on and off, for the records page, the skill activation, the memory page read and
the memory page edit (a mutation: each request rewords the page's last souvenir).

`python -m bench.fast_path [--query records|activation|memory|edit] [--requests 200]
[--rounds 6]` finds (or makes) the bench database of that query (bench/generate.py's,
bench/skills.py's or bench/memory.py's), builds the app twice over one pool (SKILLMEM_FAST_PATH
true and false), and for a memory page bench.memory's baseline routes too, and sends the query
to each through httpx's ASGI transport after a warm-up that checks all answer the same bytes (an
edit: all but its version, which each edit moves on); then alternating rounds of CPU time per
request (as bench/planned.py).

Instruction counts, repeatable on a busy machine: `--only fast|slow|baseline --requests N` runs
one app and, under `valgrind --tool=callgrind --instr-atstart=no`, turns callgrind's
instrumentation on (callgrind_control) after the warm-up and off after the N requests, so that
the count is the N requests' alone: `callgrind_annotate` of the output's total Ir / N.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import httpx
import orjson

from bench import memory, skills
from bench.generate import ensure
from bench.records import QUERY as RECORDS_QUERY
from bench.records import run
from db.events import Listener
from db.pool import api_dsn, connect, create_pool
from db.principal_cache import PrincipalCache
from gateway import heap
from gateway.app import create_app
from gateway.settings import Settings

WARMUP_REQUESTS = 30
APPS = {"fast": True, "slow": False}
# bench.memory's baseline app (plain Starlette, the same resolver functions), for a memory page.
BASELINE = "baseline"


async def setup(query: str, server: str) -> tuple[str, str, Callable[[], dict[str, Any]]]:
    """The database's DSN, the caller's token and what makes the request body of ``query``."""
    if query == "records":
        data = await ensure(server)
        return data.dsn, data.token, lambda: {"query": RECORDS_QUERY % 20}
    if query in ("memory", "edit"):
        dsn, made = await memory.fresh_database(server)
        read = {"query": memory.READ_QUERY, "variables": {"id": made["page"]}}
        return dsn, made["token"], lambda: read
    dsn = await skills.fresh_database(server)
    conn = await connect(dsn)
    try:
        filled = await skills.fill_skills(conn)
    finally:
        await conn.close()
    return dsn, filled["token"], lambda: {"query": skills.ACTIVATION_QUERY % skills.ACTIVATED}


def _edits(read: dict[str, Any], content: str) -> Callable[[], dict[str, Any]]:
    """The edit requests of the page ``read`` asks for, whose ``content`` it answered: each
    rewords the last souvenir anew (bench.memory's)."""
    page = read["variables"]["id"]
    edits = memory.Requests(page, "", content)

    def edit() -> dict[str, Any]:
        variables = {"id": page, "content": edits.edit_content()}
        return {"query": memory.EDIT_QUERY, "variables": variables}

    return edit


def _apps(args: argparse.Namespace) -> list[str]:
    """The apps to load: the fast path on and off, and for a memory page the baseline routes."""
    names = [*APPS, *([BASELINE] if args.query in ("memory", "edit") else [])]
    return [args.only] if args.only else names


def _baseline_request(body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The baseline route (bench.memory's) and payload of a page read's or edit's GraphQL body."""
    variables = body["variables"]
    if "content" in variables:
        return "/edit", {"id": variables["id"], "content": variables["content"]}
    return "/read", {"id": variables["id"]}


def _shape(raw: bytes) -> bytes:
    """An edit's answer without its version, which every edit moves on."""
    return (
        orjson.dumps({"data": {"editMemoryPage": {"version": "n"}}}) if b'"version"' in raw else raw
    )


def callgrind(switch: str) -> None:
    """Turn callgrind's instrumentation of this process on or off (no-op without valgrind)."""
    try:
        subprocess.run(
            ["callgrind_control", "-i", switch, str(os.getpid())], check=False, capture_output=True
        )
    except FileNotFoundError:
        pass


async def bench(args: argparse.Namespace, server: str, _postmaster: int | None) -> int:
    dsn, token, body = await setup(args.query, server)
    same = (lambda raw: raw) if args.query != "edit" else _shape
    pool = await create_pool(api_dsn(dsn), min_size=1, max_size=2)
    listener = Listener(api_dsn(dsn), name="bench-fast")
    await listener.start()
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    clients = {}
    for name in _apps(args):
        if name == BASELINE:
            app = memory.create_baseline(pool)
        else:
            settings = Settings(database_url=dsn, introspection=False, fast_path=APPS[name])
            app = create_app(settings, pool=pool)
            app.state.principals = PrincipalCache(listener, ttl=3600.0, size=10)
        transport = httpx.ASGITransport(app=app)
        clients[name] = httpx.AsyncClient(transport=transport, base_url="http://bench")

    async def send(name: str) -> httpx.Response:
        path, payload = _baseline_request(body()) if name == BASELINE else ("/graphql", body())
        return await clients[name].post(path, json=payload, headers=headers)

    try:
        if args.query == "edit":  # the page read first; then its last souvenir reworded
            read = await send(next(iter(clients)))
            body = _edits(body(), read.json()["data"]["memoryPage"]["content"])
        answers = set()
        for name in clients:
            for _ in range(WARMUP_REQUESTS):
                response = await send(name)
            assert response.status_code == 200 and b'"errors"' not in response.content
            answers.add(same(response.content))
        assert len(answers) == 1, "the apps' answers differ"
        heap.settle()  # as the server does once it has started
        if args.only:
            callgrind("on")
            for _ in range(args.requests):
                await send(args.only)
            callgrind("off")
            return 0
        found: dict[str, list[float]] = {name: [] for name in clients}
        for index in range(args.rounds):
            for name in list(clients) if index % 2 == 0 else list(clients)[::-1]:
                started = time.process_time()
                for _ in range(args.requests):
                    await send(name)
                found[name].append(1000 * (time.process_time() - started) / args.requests)
    finally:
        for client in clients.values():
            await client.aclose()
        await pool.close()
        await listener.stop()
    for name, figures in found.items():
        print(f"{args.query} {name}: {min(figures):.3f} ms CPU a request (best)")
    print(f"fast / slow: {min(found['fast']) / min(found['slow']):.3f}x (best rounds)")
    if BASELINE in found:
        print(f"fast / baseline: {min(found['fast']) / min(found[BASELINE]):.3f}x (best rounds)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--query", choices=("records", "activation", "memory", "edit"), default="records"
    )
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument(
        "--only", choices=(*APPS, BASELINE), help="one app, for callgrind (baseline: memory, edit)"
    )
    return run(bench, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
