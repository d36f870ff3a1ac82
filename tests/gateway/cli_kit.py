"""The `skillmem` command run inside the test process, for speed: a subprocess spends about two
seconds importing the app before it does anything. The command line goes through the same
`gateway.cli.main.main` as the console script, with the environment a subprocess would get,
and answers as `subprocess.run` would (exit code, stdout, stderr). The tests that are about the
process itself (signals, serving, a terminal, the console script's entry point) still run it
as a subprocess (``command()`` in test_cli.py)."""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import subprocess
import threading
from collections.abc import Iterator, Mapping, Sequence

from gateway.cli.main import main

# One command at a time: the environment, stdout and stderr are the process's.
_ONE_AT_A_TIME = threading.Lock()


@contextlib.contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def _logs_to(stream: io.StringIO) -> Iterator[None]:
    """Log records of the command go to its stderr, as the console script's would."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.setLevel(logging.WARNING)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)


def run_here(args: Sequence[str], env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    """`skillmem ARGS` in this process with ``env`` as its whole environment."""
    out, err = io.StringIO(), io.StringIO()
    with (
        _ONE_AT_A_TIME,
        _environment(env),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        _logs_to(err),
    ):
        try:
            code = main(list(args))
        except SystemExit as leaving:
            code = leaving.code if isinstance(leaving.code, int) else 1
    return subprocess.CompletedProcess(["skillmem", *args], code, out.getvalue(), err.getvalue())


async def run_soon(args: Sequence[str], env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    """``run_here`` on a thread of its own: the command runs its own event loop."""
    return await asyncio.to_thread(run_here, args, env)
