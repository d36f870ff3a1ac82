"""The skills benchmark: import and export of a 500-file archive, and activation and the prompt
catalog of a workspace with 2,000 skills, GraphQL against a hand-written baseline.

`python -m bench.skills` (or `make bench-skills`) starts PostgreSQL like bench.records
(DATABASE_URL's server, or the embedded one in .data/bench-postgres), remakes the
`skillmem_bench_skills` database, then:

1. imports a skill archive of 50 and of 500 files (a few MB: scripts, prose, binary assets)
   through the real app in-process (httpx.ASGITransport, the app over a pool of its login
   role): the time per import (a new skill, the same archive again, a changed archive) and
   the SQL statements of each request; then exports it again (time, statements);
2. fills a second workspace with 2,000 skills in one transaction (a few files each) and counts
   the statements of `skillActivation` and `skillCatalog` in-process, for the app and for the
   baseline (plain Starlette running the `skill_activation` / `skill_catalog_entries` SQL text of
   db/queries/skills.sql and returning the same JSON);
3. runs both under uvicorn and loads each endpoint at every concurrency, in alternating slices
   (bench/client.py), reporting requests/s, p50 and p99 latency and CPU per request.

It prints Markdown tables and writes the figures to bench/results/skills-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import NAMESPACE_URL, UUID, uuid4, uuid5

import asyncpg
import httpx
import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bench import client, records
from bench.baseline import plain_app
from bench.generate import with_database
from bench.records import CpuMeter, Server, machine, wait_quiet
from db import identity
from db.migrate import apply_migrations
from db.pool import api_dsn, connect, create_pool
from db.sql import queries
from gateway.app import create_app
from gateway.settings import Settings
from resolvers.common.principals import issue_token
from resolvers.records.workspaces import create_workspace
from resolvers.skills.archive.members import ArchiveFile, ArchiveFolder
from resolvers.skills.archive.read import read_archive
from resolvers.skills.archive.write import write_zip
from resolvers.skills.dormancy import dormant_since
from resolvers.skills.drive import is_script
from resolvers.skills.folder import check_folder
from resolvers.skills.reading import SKILL_DIRECTORIES
from resolvers.skills.skill_md import SkillDraft, render_skill_md

CHECKOUT = Path(__file__).resolve().parent.parent
RESULTS = CHECKOUT / "bench" / "results"
DATABASE = "skillmem_bench_skills"
SEED = 20_240_602
SKILLS = 2_000
OTHER_MEMBERS = 20
IMPORT_SIZES = (50, 500)
IMPORTED = "bench-import"
ACTIVATED = "skill-1000"  # a skill of the 2,000 the caller may read, with a few files
TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")

ACTIVATION_QUERY = (
    '{ skillActivation(name: "%s") { name version body directory '
    "files { path size sha256 script executable } } }"
)
CATALOG_QUERY = "{ skillCatalog { name description dormant } }"
ENDPOINTS = ("activation", "catalog")
SERVERS = {"graphql": "gateway.app:create_app", "baseline": "bench.skills:create_baseline"}

WORDS = (
    "invoice customer report weekly figures chart export import review summary draft email "
    "follow-up payment reminder contract renewal pipeline forecast budget meeting notes agenda "
    "action owner deadline ticket release deploy rollback incident postmortem checklist "
    "template script folder reference example guide step check reflex output format table"
).split()


# --- the archive ----------------------------------------------------------------------------


def _prose(rng: random.Random, size: int) -> bytes:
    """Markdown-like text of about ``size`` bytes (compresses like prose)."""
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    lines = [" ".join(words[i : i + 12]) for i in range(0, len(words), 12)]
    return ("# Notes\n\n" + "\n".join(lines) + "\n").encode()


def _drive(count: int, seed: int) -> dict[str, ArchiveFile]:
    """``count`` files: a tenth scripts (executable), half prose, the rest binary assets,
    nested up to 5 folders deep."""
    rng = random.Random(seed)
    files: dict[str, ArchiveFile] = {}
    for n in range(count):
        kind = n % 10
        depth = [f"d{(n // 7 + level) % 5}" for level in range(rng.randint(0, 3))]
        if kind == 0:
            path = f"scripts/{'/'.join(depth) + '/' if depth else ''}task-{n:03}.sh"
            body = b"#!/bin/sh\nset -eu\n" + _prose(rng, rng.randint(800, 3_000))
            files[path] = ArchiveFile(path, body, 0o755)
        elif kind <= 5:
            path = f"references/{'/'.join(depth) + '/' if depth else ''}doc-{n:03}.md"
            files[path] = ArchiveFile(path, _prose(rng, rng.randint(2_000, 10_000)), 0o644)
        else:
            path = f"assets/{'/'.join(depth) + '/' if depth else ''}blob-{n:03}.bin"
            files[path] = ArchiveFile(path, rng.randbytes(rng.randint(4_000, 16_000)), 0o644)
    return files


def import_folder(count: int, variant: int = 0) -> ArchiveFolder:
    """The imported skill with ``count`` files; each ``variant`` changes the body and a tenth
    of the files (a new version)."""
    rng = random.Random(SEED + variant)
    body = "## Overview\n\nThe bench skill.\n\n## Instructions\n\n" + _prose(rng, 3_000).decode()
    draft = SkillDraft(
        IMPORTED,
        "Import benchmark: a skill of many files, used to time imports and exports.",
        body,
        {"license": "MIT", "metadata": {"variant": str(variant)}},
    )
    files = _drive(count, SEED)
    if variant:
        for path in list(files)[variant % 10 :: 10]:
            old = files[path]
            files[path] = ArchiveFile(path, old.content + f"\nv{variant}\n".encode(), old.mode)
    skill_md = ArchiveFile("SKILL.md", render_skill_md(draft).encode(), 0o644)
    return ArchiveFolder(IMPORTED, {"SKILL.md": skill_md, **files})


# --- databases and workspaces ---------------------------------------------------------------


async def fresh_database(server: str) -> str:
    """Drop and create the bench database; migrate it; return its DSN."""
    dsn = with_database(server, DATABASE)
    admin = await asyncpg.connect(server)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
        await admin.execute(f'CREATE DATABASE "{DATABASE}"')
    finally:
        await admin.close()
    conn = await connect(dsn)
    try:
        await apply_migrations(conn)
    finally:
        await conn.close()
    return dsn


async def new_workspace(conn: asyncpg.Connection, name: str) -> tuple[UUID, str, dict[str, Any]]:
    """A workspace with one member (role `member`); its id, that member's token and the
    workspace's roles and objects."""
    async with conn.transaction():
        made = await create_workspace(conn, name)
        member = await identity.insert_member(
            conn,
            uuid4(),
            "Caller",
            "caller@bench.example",
            made.roles["member"],
        )
        token = await issue_token(conn, "member", member_id=member.id, purpose="test")
    return (
        made.workspace_id,
        token,
        {"roles": made.roles, "objects": made.objects, "caller": member.id},
    )


# --- 2,000 skills ---------------------------------------------------------------------------


def _skill_rows(
    caller: UUID, others: list[UUID]
) -> tuple[dict[str, list[Any]], dict[str, bytes], dict[str, int]]:
    """Deterministic columns for 2,000 skills: records, skills, versions and files; the blobs
    by sha256; and what was made."""
    rng = random.Random(SEED)
    now = datetime.now(UTC)
    columns: dict[str, list[Any]] = {
        key: []
        for key in (
            "id",
            "name",
            "visibility",
            "owner",
            "created",
            "updated",
            "use_count",
            "latest",
            "v_skill",
            "v_version",
            "v_description",
            "v_content",
            "v_extra",
            "v_created",
            "f_skill",
            "f_version",
            "f_path",
            "f_sha",
            "f_size",
            "f_mode",
        )
    }
    blobs: dict[str, bytes] = {}
    shared_scripts = [b"#!/bin/sh\n# shared helper %d\necho run\n" % n for n in range(10)]
    made = {
        "skills": 0,
        "private_of_others": 0,
        "private_of_caller": 0,
        "disabled": 0,
        "dormant": 0,
        "two_versions": 0,
        "files_latest": 0,
    }

    def add_file(skill_id: UUID, version: int, path: str, content: bytes, mode: int) -> None:
        sha = hashlib.sha256(content).hexdigest()
        blobs[sha] = content
        for key, value in (
            ("f_skill", skill_id),
            ("f_version", version),
            ("f_path", path),
            ("f_sha", sha),
            ("f_size", len(content)),
            ("f_mode", mode),
        ):
            columns[key].append(value)

    for n in range(SKILLS):
        skill_id = uuid5(NAMESPACE_URL, f"skillmem:bench-skill:{n}")
        name = f"skill-{n:04d}"
        draw = rng.random()
        visibility, owner = "workspace", None
        if name != ACTIVATED and draw < 0.05:
            visibility, owner = "private", rng.choice(others)
            made["private_of_others"] += 1
        elif name != ACTIVATED and draw < 0.06:
            visibility, owner = "private", caller
            made["private_of_caller"] += 1
        created = now - timedelta(days=rng.uniform(30, 400))
        updated = now - timedelta(days=rng.uniform(0, 60)) if rng.random() < 0.8 else created
        use_count = rng.randint(1, 50) if rng.random() < 0.7 else 0
        if use_count == 0 and now - updated >= timedelta(days=21):
            made["dormant"] += 1
        extra: dict[str, Any] = {}
        if rng.random() < 0.3:
            extra["license"] = "MIT"
        if name != ACTIVATED and rng.random() < 0.03:
            extra["disable-model-invocation"] = True
            made["disabled"] += 1
        latest = 2 if rng.random() < 0.25 else 1
        made["two_versions"] += latest == 2
        for key, value in (
            ("id", skill_id),
            ("name", name),
            ("visibility", visibility),
            ("owner", owner),
            ("created", created),
            ("updated", updated),
            ("use_count", use_count),
            ("latest", latest),
        ):
            columns[key].append(value)
        words = " ".join(rng.choices(WORDS, k=rng.randint(12, 60)))
        description = f"Use when asked to {words}."[:1024]
        files = [
            ("scripts/run.sh", rng.choice(shared_scripts), 0o755),
            ("references/guide.md", _prose(rng, rng.randint(500, 3_000)), 0o644),
        ]
        files += [
            (f"assets/icon-{k}.png", rng.randbytes(rng.randint(500, 3_000)), 0o644)
            for k in range(rng.randint(0, 3))
        ]
        body = "## Overview\n\n" + _prose(rng, rng.randint(800, 4_000)).decode()
        for version in range(1, latest + 1):
            for key, value in (
                ("v_skill", skill_id),
                ("v_version", version),
                ("v_description", description if version == latest else "An older version."),
                ("v_content", body),
                ("v_extra", orjson.dumps(extra).decode()),
                ("v_created", created if version == 1 else updated),
            ):
                columns[key].append(value)
            for path, content, mode in files:
                add_file(skill_id, version, path, content, mode)
        made["files_latest"] += len(files)
        made["skills"] += 1
    return columns, blobs, made


async def fill_skills(conn: asyncpg.Connection) -> dict[str, Any]:
    """The catalog workspace: a caller, 20 other members and 2,000 skills, in one transaction
    through row-level security (one INSERT ... SELECT FROM unnest(...) per table)."""
    started = time.perf_counter()
    async with conn.transaction():
        made = await create_workspace(conn, "Bench skills")
        caller = await identity.insert_member(
            conn,
            uuid5(NAMESPACE_URL, "skills:caller"),
            "Caller",
            "caller@bench.example",
            made.roles["member"],
        )
        others = [
            (
                await identity.insert_member(
                    conn,
                    uuid5(NAMESPACE_URL, f"skills:other:{n}"),
                    f"Other {n}",
                    f"other{n}@bench.example",
                    made.roles["member"],
                )
            ).id
            for n in range(OTHER_MEMBERS)
        ]
        token = await issue_token(conn, "member", member_id=caller.id, purpose="test")
        c, blobs, counts = _skill_rows(caller.id, others)
        skill_object = made.objects["skill"]
        await conn.execute(
            """INSERT INTO records (workspace_id, id, object_id, label, visibility,
                                    owner_member_id, created_at, updated_at)
               SELECT app_workspace_id(), r.id, $1, r.name, r.visibility, r.owner, r.created,
                      r.updated
                 FROM unnest($2::uuid[], $3::text[], $4::text[], $5::uuid[],
                             $6::timestamptz[], $7::timestamptz[])
                      AS r(id, name, visibility, owner, created, updated)""",
            skill_object,
            c["id"],
            c["name"],
            c["visibility"],
            c["owner"],
            c["created"],
            c["updated"],
        )
        await conn.execute(
            """INSERT INTO skills (workspace_id, id, name, latest_version, use_count,
                                   created_at, updated_at)
               SELECT app_workspace_id(), s.* FROM unnest($1::uuid[], $2::text[], $3::int[],
                      $4::int[], $5::timestamptz[], $6::timestamptz[]) AS s""",
            c["id"],
            c["name"],
            c["latest"],
            c["use_count"],
            c["created"],
            c["updated"],
        )
        await conn.execute(
            """INSERT INTO skill_versions (workspace_id, skill_id, version, description, content,
                                           extra_frontmatter, author_kind, author_id,
                                           author_name, created_at)
               SELECT app_workspace_id(), v.skill, v.version, v.description, v.content,
                      v.extra::jsonb, 'member', $7, 'Caller', v.created
                 FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::text[],
                             $6::timestamptz[])
                      AS v(skill, version, description, content, extra, created)""",
            c["v_skill"],
            c["v_version"],
            c["v_description"],
            c["v_content"],
            c["v_extra"],
            c["v_created"],
            caller.id,
        )
        await conn.execute(
            """INSERT INTO skill_blobs (workspace_id, sha256, size, content)
               SELECT app_workspace_id(), b.sha, length(b.content), b.content
                 FROM unnest($1::text[], $2::bytea[]) AS b(sha, content)""",
            list(blobs),
            list(blobs.values()),
        )
        await conn.execute(
            """INSERT INTO skill_files (workspace_id, skill_id, version, path, sha256, size, mode)
               SELECT app_workspace_id(), f.* FROM unnest($1::uuid[], $2::int[], $3::text[],
                      $4::text[], $5::int[], $6::int[]) AS f""",
            c["f_skill"],
            c["f_version"],
            c["f_path"],
            c["f_sha"],
            c["f_size"],
            c["f_mode"],
        )
    for table in ("records", "skills", "skill_versions", "skill_files", "skill_blobs"):
        await conn.execute(f"VACUUM (ANALYZE) {table}")
    described: dict[str, Any] = {
        **counts,
        "versions": len(c["v_skill"]),
        "file_rows": len(c["f_skill"]),
        "blobs": len(blobs),
        "blob_bytes": sum(len(b) for b in blobs.values()),
        "seconds": round(time.perf_counter() - started, 2),
    }
    return {"workspace_id": str(made.workspace_id), "token": token, "made": described}


# --- statements -----------------------------------------------------------------------------


def _statement_name(query: str) -> str:
    for domain in ("identity", "records", "skills"):
        for name, text in queries(domain).items():
            if text == query.strip():
                return name
    if "app_begin_request" in query:
        return "begin_request"
    return " ".join(query.split())[:50]


class Logged:
    """An in-process app (or baseline) over a one-connection pool that logs every statement."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.queries: list[str] = []

    async def __aenter__(self) -> Logged:
        self.pool = await create_pool(self.dsn, min_size=1, max_size=1)
        async with self.pool.acquire() as conn:
            conn.add_query_logger(lambda record: self.queries.append(record.query))
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.pool.close()

    def http(self, app: Any) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://bench", timeout=120
        )

    async def send(self, call: Callable[[], Any]) -> tuple[httpx.Response, float, dict[str, Any]]:
        """Run one request; its response, seconds and statements."""
        await asyncio.sleep(0.01)
        self.queries.clear()
        started = time.perf_counter()
        response = await call()
        seconds = time.perf_counter() - started
        await asyncio.sleep(0.01)  # query loggers run soon after, not inline
        control = [q for q in self.queries if q.strip().upper().startswith(TRANSACTION_CONTROL)]
        data = [q for q in self.queries if q not in control]
        return (
            response,
            seconds,
            {
                "data": len(data),
                "transaction_control": len(control),
                "statements": [_statement_name(q) for q in self.queries],
            },
        )


def _ms(values: list[float]) -> dict[str, float]:
    return {
        "median_ms": round(1000 * statistics.median(values), 1),
        "min_ms": round(1000 * min(values), 1),
        "max_ms": round(1000 * max(values), 1),
        "runs": len(values),
    }


async def bench_import(app_dsn: str, owner_dsn: str, repeats: int) -> dict[str, Any]:
    """Import (new skill, same archive, changed archive) and export, per archive size."""
    found: dict[str, Any] = {}
    owner = await connect(owner_dsn)
    try:
        async with (
            Logged(app_dsn) as logged,
            logged.http(
                create_app(Settings(database_url=None, introspection=False), pool=logged.pool)
            ) as http,
        ):

            def post(path: str, token: str, **kw: Any) -> Callable[[], Any]:
                headers = {"authorization": f"Bearer {token}", **kw.pop("headers", {})}
                return lambda: http.post(path, headers=headers, **kw)

            def imported(token: str, data: bytes) -> Callable[[], Any]:
                return post(
                    "/skills/import",
                    token,
                    content=data,
                    headers={"content-type": "application/zip"},
                )

            # Warm the app and the connection (asyncpg introspects types on first use).
            _, warm_token, _ = await new_workspace(owner, "Bench warm-up")
            warm = write_zip([import_folder(5)])
            for _ in range(2):
                await http.post(
                    "/skills/import",
                    content=warm,
                    headers={"authorization": f"Bearer {warm_token}"},
                )
            await http.post(
                "/skills/export", json={}, headers={"authorization": f"Bearer {warm_token}"}
            )

            for count in IMPORT_SIZES:
                folder = import_folder(count)
                data = write_zip([folder])
                row: dict[str, Any] = {
                    "files": count,
                    "archive_bytes": len(data),
                    "file_bytes": sum(len(f.content) for f in folder.files.values()),
                }
                # Reading and checking the archive alone (pure Python, no database).
                pure = []
                for _ in range(repeats):
                    started = time.perf_counter()
                    (read,) = read_archive(data)
                    _, _, problems = check_folder(
                        read.name, {p: f.content for p, f in read.files.items()}
                    )
                    assert not problems
                    pure.append(time.perf_counter() - started)
                row["read_and_check"] = _ms(pure)

                times: dict[str, list[float]] = {"create": [], "unchanged": [], "update": []}
                statements: dict[str, Any] = {}
                for attempt in range(repeats):
                    _, token, _ = await new_workspace(owner, f"Bench import {count} {attempt}")
                    steps = [
                        ("create", data),
                        ("unchanged", data),
                        ("update", write_zip([import_folder(count, variant=attempt + 1)])),
                    ]
                    for operation, archive in steps:
                        response, seconds, sent = await logged.send(imported(token, archive))
                        assert response.status_code == 200, response.text[:500]
                        assert response.json()["skills"][0]["operation"] == operation
                        times[operation].append(seconds)
                        statements[operation] = sent
                    response, seconds, sent = await logged.send(
                        post("/skills/export", token, json={"names": [IMPORTED]})
                    )
                    assert response.status_code == 200, response.text[:500]
                    (back,) = read_archive(response.content)
                    expected = import_folder(count, variant=attempt + 1).files
                    assert {
                        p: (f.content, f.mode) for p, f in back.files.items() if p != "SKILL.md"
                    } == {p: (f.content, f.mode) for p, f in expected.items() if p != "SKILL.md"}
                    times.setdefault("export", []).append(seconds)
                    statements["export"] = sent
                    row["export_bytes"] = len(response.content)
                row["times"] = {op: _ms(values) for op, values in times.items()}
                row["statements"] = statements
                found[str(count)] = row
                print(
                    f"import {count} files ({len(data) / 2**20:.1f} MB zip): "
                    + ", ".join(
                        f"{op} {row['times'][op]['median_ms']} ms "
                        f"({statements[op]['data']} statements)"
                        for op in times
                    ),
                    flush=True,
                )
    finally:
        await owner.close()
    return found


async def count_reads(app_dsn: str, token: str) -> dict[str, Any]:
    """Statements of one activation and one catalog request, app and baseline, in-process."""
    found: dict[str, Any] = {}
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    async with Logged(app_dsn) as logged:
        app = create_app(Settings(database_url=None, introspection=False), pool=logged.pool)
        baseline = create_baseline(pool=logged.pool)
        async with logged.http(app) as graphql, logged.http(baseline) as plain:
            requests: dict[tuple[str, str], Callable[[], Awaitable[httpx.Response]]] = {
                ("graphql", "activation"): lambda: graphql.post(
                    "/graphql", json={"query": ACTIVATION_QUERY % ACTIVATED}, headers=headers
                ),
                ("graphql", "catalog"): lambda: graphql.post(
                    "/graphql", json={"query": CATALOG_QUERY}, headers=headers
                ),
                ("baseline", "activation"): lambda: plain.post(
                    "/activation", json={"name": ACTIVATED}, headers=headers
                ),
                ("baseline", "catalog"): lambda: plain.post("/catalog", json={}, headers=headers),
            }
            for (server, endpoint), call in requests.items():
                await call()  # warm-up
                response, _, sent = await logged.send(call)
                assert response.status_code == 200, response.text[:300]
                assert "errors" not in response.json()
                found.setdefault(server, {})[endpoint] = sent
    return found


# --- the baseline ---------------------------------------------------------------------------

BEGIN_REQUEST = "SELECT * FROM app_begin_request($1)"
SKILL_ACTIVATION = queries("skills")["skill_activation"]
SKILL_CATALOG = queries("skills")["skill_catalog_entries"]


def _reply(status: int, body: Any) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json")


def _token_hash(request: Request) -> str | None:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return hashlib.sha256(token.strip().encode()).hexdigest()


async def baseline_activation(request: Request) -> Response:
    """POST {"name": ...}: the GraphQL `skillActivation` data, by hand."""
    token_hash = _token_hash(request)
    if token_hash is None:
        return _reply(401, {"error": "A bearer token is required."})
    name = orjson.loads(await request.body())["name"]
    async with request.app.state.pool.acquire() as conn, conn.transaction():
        principal = await conn.fetchrow(BEGIN_REQUEST, token_hash)
        if principal is None:
            return _reply(401, {"error": "The token is not valid."})
        # $5: the agent asking (none: a person), since agents attach skills (issue 14).
        row = await conn.fetchrow(
            SKILL_ACTIVATION, name, None, principal["readable"], principal["member_id"], None
        )
    if row is None:
        return _reply(404, {"error": "No skill with this name."})
    files = [
        {
            "path": f["path"],
            "size": f["size"],
            "sha256": f["sha256"],
            "script": is_script(f["path"], f["mode"]),
            "executable": bool(f["mode"] & 0o111),
        }
        for f in row["files"]
    ]
    activation = {
        "name": row["name"],
        "version": row["version"],
        "body": row["content"],
        "directory": SKILL_DIRECTORIES["sandbox"].format(name=row["name"]),
        "files": files,
    }
    return _reply(200, {"data": {"skillActivation": activation}})


async def baseline_catalog(request: Request) -> Response:
    """POST: the GraphQL `skillCatalog` data, by hand (the app's statement: dormancy and the
    dropped descriptions decided in SQL)."""
    token_hash = _token_hash(request)
    if token_hash is None:
        return _reply(401, {"error": "A bearer token is required."})
    since = dormant_since(datetime.now(UTC))
    async with request.app.state.pool.acquire() as conn, conn.transaction():
        principal = await conn.fetchrow(BEGIN_REQUEST, token_hash)
        if principal is None:
            return _reply(401, {"error": "The token is not valid."})
        rows = await conn.fetch(  # $3: the agent asking (none: a person), as for activation
            SKILL_CATALOG, principal["readable"], principal["member_id"], None, since
        )
    entries = [
        {"name": row["name"], "description": row["description"], "dormant": row["dormant"]}
        for row in rows
    ]
    return _reply(200, {"data": {"skillCatalog": entries}})


def create_baseline(pool: asyncpg.Pool | None = None) -> Starlette:
    """The baseline app: over ``pool``, or a pool to DATABASE_URL sized like the app's."""
    return plain_app(
        [
            Route("/activation", baseline_activation, methods=["POST"]),
            Route("/catalog", baseline_catalog, methods=["POST"]),
        ],
        pool,
    )


# --- servers and load -----------------------------------------------------------------------


def serve(name: str, dsn: str) -> contextlib.AbstractAsyncContextManager[Server]:
    """Run the app or the skills baseline under uvicorn, as the records benchmark does (the app
    with graphql-core alone for records.UNPLANNED)."""
    if name == records.UNPLANNED:
        return records.serve(name, dsn, SERVERS["graphql"], "", records.UNPLANNED_ENV)
    return records.serve(name, dsn, SERVERS[name], "")


def request_bytes(server: Server, endpoint: str, token: str) -> bytes:
    if server.name in ("graphql", records.UNPLANNED):
        query = ACTIVATION_QUERY % ACTIVATED if endpoint == "activation" else CATALOG_QUERY
        return client.post(server.port, "/graphql", orjson.dumps({"query": query}), token)
    body = orjson.dumps({"name": ACTIVATED} if endpoint == "activation" else {})
    return client.post(server.port, f"/{endpoint}", body, token)


async def check_same_data(servers: dict[str, Server], token: str) -> dict[str, Any]:
    """Both servers answer the same data for both endpoints."""
    seen: dict[str, Any] = {}
    for endpoint in ENDPOINTS:
        bodies = {}
        for name, server in servers.items():
            status, raw = await client.fetch(server.port, request_bytes(server, endpoint, token))
            body = orjson.loads(raw)
            assert status == 200 and "errors" not in body, (name, endpoint, status, raw[:300])
            bodies[name] = body["data"]
        if bodies["graphql"] != bodies["baseline"]:
            raise AssertionError(f"GraphQL and the baseline differ for {endpoint}")
        if bodies.get(records.UNPLANNED, bodies["graphql"]) != bodies["graphql"]:
            raise AssertionError(f"planned and unplanned differ for {endpoint}")
        data = bodies["graphql"]
        if endpoint == "catalog":
            entries = data["skillCatalog"]
            seen[endpoint] = {
                "entries": len(entries),
                "dormant": sum(e["dormant"] for e in entries),
                "bytes": len(orjson.dumps(data)),
            }
        else:
            seen[endpoint] = {
                "files": len(data["skillActivation"]["files"]),
                "bytes": len(orjson.dumps(data)),
            }
    return seen


async def measure(
    servers: dict[str, Server],
    endpoint: str,
    token: str,
    concurrency: int,
    seconds: float,
    slices: int,
    warmup: float,
    meter: CpuMeter,
) -> dict[str, Any]:
    """Load each server on one endpoint (see records.load_slices)."""
    requests: dict[str, bytes | Callable[[], bytes]] = {
        name: request_bytes(s, endpoint, token) for name, s in servers.items()
    }
    result = await records.load_slices(
        servers, requests, concurrency, seconds, slices, warmup, meter
    )
    return {"endpoint": endpoint, **result}


# --- report ---------------------------------------------------------------------------------


def markdown(report: dict[str, Any]) -> str:
    lines = [
        "| files | zip MB | files MB | read+check ms | create ms | unchanged ms | update ms "
        "| export ms | statements create / unchanged / update / export |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for count, row in report["import"].items():
        t, s = row["times"], row["statements"]
        lines.append(
            f"| {count} | {row['archive_bytes'] / 2**20:.2f} | {row['file_bytes'] / 2**20:.2f} "
            f"| {row['read_and_check']['median_ms']} | {t['create']['median_ms']} "
            f"| {t['unchanged']['median_ms']} | {t['update']['median_ms']} "
            f"| {t['export']['median_ms']} | {s['create']['data']} / {s['unchanged']['data']} "
            f"/ {s['update']['data']} / {s['export']['data']} |"
        )
    lines += ["", "| request | statements in order |", "|---|---|"]
    for count, row in report["import"].items():
        for op, sent in row["statements"].items():
            lines.append(f"| {op} ({count} files) | {', '.join(sent['statements'])} |")
    for server, endpoints in report["read_statements"].items():
        for endpoint, sent in endpoints.items():
            lines.append(f"| {server} {endpoint} | {', '.join(sent['statements'])} |")
    lines += [
        "",
        "| endpoint | concurrency | GraphQL req/s | p50 ms | p99 ms | baseline req/s | p50 ms "
        "| p99 ms | GraphQL/baseline | server CPU ms/req G / B |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in report["load"]:
        g, b = row["graphql"], row["baseline"]
        lines.append(
            f"| {row['endpoint']} | {row['concurrency']} | {g['rps']:,.0f} | {g['p50_ms']:.2f} "
            f"| {g['p99_ms']:.2f} | {b['rps']:,.0f} | {b['p50_ms']:.2f} | {b['p99_ms']:.2f} "
            f"| {row['ratio']:.2f}x | {g['server_cpu_ms_per_request']} / "
            f"{b['server_cpu_ms_per_request']} |"
        )
    rows = [row for row in report["load"] if records.UNPLANNED in row]
    if rows:
        lines += [
            "",
            "| endpoint | concurrency | planned req/s | graphql-core alone req/s | planned/alone "
            "| server CPU ms/req planned / alone |",
            "|---|---:|---:|---:|---:|---:|",
        ]
    for row in rows:
        g, u = row["graphql"], row[records.UNPLANNED]
        lines.append(
            f"| {row['endpoint']} | {row['concurrency']} | {g['rps']:,.0f} | {u['rps']:,.0f} "
            f"| {row['planned_ratio']:.2f}x | {g['server_cpu_ms_per_request']} / "
            f"{u['server_cpu_ms_per_request']} |"
        )
    return "\n".join(lines)


async def bench(args: argparse.Namespace, server: str, postmaster_pid: int | None) -> int:
    dsn = await fresh_database(server)
    # The app's login role where the server trusts local connections (the embedded one);
    # DATABASE_URL's own role otherwise (the app then switches role in each transaction).
    app_dsn = api_dsn(dsn) if postmaster_pid is not None else dsn
    conn = await connect(dsn)
    try:
        server_version = str(await conn.fetchval("SHOW server_version"))
        filled = await fill_skills(conn)
    finally:
        await conn.close()
    print(f"catalog workspace: {filled['made']}", flush=True)
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": "python -m bench.skills " + " ".join(sys.argv[1:]),
        "machine": machine(server_version),
        "app_role": "skillmem_api" if app_dsn != dsn else "DATABASE_URL's role",
        "settings": {
            "seconds": args.seconds,
            "slices": args.slices,
            "warmup": args.warmup,
            "concurrency": args.concurrency,
            "repeats": args.repeats,
            "activation_query": ACTIVATION_QUERY % ACTIVATED,
            "catalog_query": CATALOG_QUERY,
        },
        "catalog_workspace": filled["made"],
    }
    report["import"] = await bench_import(app_dsn, dsn, args.repeats)
    report["read_statements"] = await count_reads(app_dsn, filled["token"])
    print("read statements:", report["read_statements"], flush=True)
    report["load"] = []
    if args.concurrency:
        names = [*SERVERS, records.UNPLANNED] if args.unplanned else list(SERVERS)
        async with contextlib.AsyncExitStack() as stack:
            servers = {name: await stack.enter_async_context(serve(name, dsn)) for name in names}
            report["same_data"] = await check_same_data(servers, filled["token"])
            print("same data:", report["same_data"], flush=True)
            meter = CpuMeter(postmaster_pid)
            report["idle_load_before"] = []
            for endpoint in ENDPOINTS:
                for concurrency in args.concurrency:
                    idle = await wait_quiet(meter, args.wait_quiet)
                    report["idle_load_before"].append(idle)
                    if idle >= 0.25:
                        print(f"warning: the machine is busy ({idle} cores)", flush=True)
                    row = await measure(
                        servers,
                        endpoint,
                        filled["token"],
                        concurrency,
                        args.seconds,
                        args.slices,
                        args.warmup,
                        meter,
                    )
                    report["load"].append(row)
                    g, b = row["graphql"], row["baseline"]
                    print(
                        f"{endpoint} c={concurrency}: graphql {g['rps']} req/s p50 "
                        f"{g['p50_ms']} p99 {g['p99_ms']}; baseline {b['rps']} req/s p50 "
                        f"{b['p50_ms']} p99 {b['p99_ms']}; ratio {row['ratio']}; "
                        f"planned/alone {row.get('planned_ratio')}",
                        flush=True,
                    )
    records.write_results("skills", report, markdown(report))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measured time per server")
    parser.add_argument("--slices", type=int, default=4, help="alternating slices per server")
    parser.add_argument("--warmup", type=float, default=3.0, help="warm-up seconds per server")
    parser.add_argument(
        "--concurrency", type=records.levels, default=[1, 8, 32], help="comma-separated levels"
    )
    parser.add_argument("--repeats", type=int, default=5, help="imports timed per archive size")
    parser.add_argument(
        "--unplanned",
        action="store_true",
        help="also load the app with graphql-core alone (SKILLMEM_PLANNED_EXECUTION=false)",
    )
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=60.0,
        help="seconds to wait at most for an idle machine before each load level",
    )
    return records.run(bench, parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
