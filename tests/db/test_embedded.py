"""The embedded PostgreSQL: handles of killed processes are forgotten, and the server such a
process left running is reused rather than doubled, then stopped by the last live handle."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import asyncpg
import psutil

from db.embedded import HANDLE_PIDS_FILE, drop_dead_handles

CHECKOUT = Path(__file__).resolve().parents[2]


def dead_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_drop_dead_handles_forgets_dead_pids_and_keeps_live_ones(tmp_path):
    gone = dead_pid()
    live = os.getpid()
    (tmp_path / HANDLE_PIDS_FILE).write_text(json.dumps([gone, live]))
    assert drop_dead_handles(tmp_path) == [gone]
    assert json.loads((tmp_path / HANDLE_PIDS_FILE).read_text()) == [live]
    # A second pass has nothing left to drop.
    assert drop_dead_handles(tmp_path) == []
    assert json.loads((tmp_path / HANDLE_PIDS_FILE).read_text()) == [live]


def test_drop_dead_handles_leaves_a_file_of_live_handles_alone(tmp_path):
    path = tmp_path / HANDLE_PIDS_FILE
    path.write_text(json.dumps([os.getpid(), os.getppid()]))
    before = path.stat().st_mtime_ns
    time.sleep(0.01)
    assert drop_dead_handles(tmp_path) == []
    assert path.read_text() == json.dumps([os.getpid(), os.getppid()])
    assert path.stat().st_mtime_ns == before


def test_drop_dead_handles_without_a_file(tmp_path):
    assert drop_dead_handles(tmp_path) == []
    assert not (tmp_path / HANDLE_PIDS_FILE).exists()


def test_drop_dead_handles_survives_an_unreadable_file(tmp_path):
    (tmp_path / HANDLE_PIDS_FILE).write_text("{not json")
    assert drop_dead_handles(tmp_path) == []


def test_drop_dead_handles_drops_entries_that_are_not_pids(tmp_path):
    (tmp_path / HANDLE_PIDS_FILE).write_text(json.dumps([os.getpid(), "x", None]))
    drop_dead_handles(tmp_path)
    assert json.loads((tmp_path / HANDLE_PIDS_FILE).read_text()) == [os.getpid()]


# A child that starts (or reuses) the embedded server, reports it, then waits for stdin.
CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from db.embedded import start_embedded

    server = start_embedded(Path(sys.argv[1]), cleanup_mode="stop")
    print("READY", server.get_pid(), server.get_uri(), flush=True)
    sys.stdin.readline()
    server.cleanup()
    print("STOPPED", flush=True)
    """
)


def postmasters(pgdata: Path) -> list[psutil.Process]:
    """The postgres processes whose command line names this data folder."""
    found = []
    for proc in psutil.process_iter(attrs=["name", "cmdline"]):
        cmdline = proc.info["cmdline"] or []
        if proc.info["name"] == "postgres" and any(str(pgdata) in part for part in cmdline):
            found.append(proc)
    return found


def start_child(pgdata: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD, str(pgdata)],
        cwd=CHECKOUT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def ready_line(child: subprocess.Popen[str], timeout: float) -> tuple[int, str]:
    """The child's READY line: (postmaster pid, uri); bounded by ``timeout``."""
    lines: queue.Queue[str] = queue.Queue()
    assert child.stdout is not None
    stdout = child.stdout
    threading.Thread(target=lambda: lines.put(stdout.readline()), daemon=True).start()
    try:
        line = lines.get(timeout=timeout)
    except queue.Empty:
        raise AssertionError(f"no READY line within {timeout}s (exit {child.poll()})") from None
    assert line.startswith("READY "), f"unexpected line {line!r} (exit {child.poll()})"
    _, pid, uri = line.strip().split(" ", 2)
    return int(pid), uri


async def test_a_server_left_by_a_killed_process_is_reused_then_stopped():
    folder = Path(tempfile.mkdtemp(prefix="skillmem-emb-"))
    pgdata = folder / "pgdata"
    children: list[subprocess.Popen[str]] = []
    try:
        first = start_child(pgdata)
        children.append(first)
        pid, _ = ready_line(first, timeout=30)
        assert [p.pid for p in postmasters(pgdata)] == [pid]
        handles = json.loads((pgdata / HANDLE_PIDS_FILE).read_text())
        assert first.pid in handles

        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        # The killed process could not clean up: its handle and its server remain.
        assert first.pid in json.loads((pgdata / HANDLE_PIDS_FILE).read_text())
        assert psutil.pid_exists(pid)

        second = start_child(pgdata)
        children.append(second)
        reused, uri = ready_line(second, timeout=20)
        assert reused == pid
        assert [p.pid for p in postmasters(pgdata)] == [pid]
        assert json.loads((pgdata / HANDLE_PIDS_FILE).read_text()) == [second.pid]
        conn = await asyncpg.connect(uri)
        try:
            assert await conn.fetchval("SELECT 1") == 1
        finally:
            await conn.close()

        # The last live handle stops the server (it does not wait for the dead one).
        assert second.stdin is not None
        out, _ = second.communicate("\n", timeout=20)
        assert "STOPPED" in out
        assert second.returncode == 0
        psutil.wait_procs([psutil.Process(pid)] if psutil.pid_exists(pid) else [], timeout=10)
        assert postmasters(pgdata) == []
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait(timeout=10)
        for proc in postmasters(pgdata):  # only ever the server this test started
            with contextlib.suppress(psutil.Error):
                proc.kill()
        shutil.rmtree(folder, ignore_errors=True)
