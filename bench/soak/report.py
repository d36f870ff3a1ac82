"""RELIABILITY.md: the command, the machine, each scenario's verdict and figures, and what
was lost."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.soak.common import Result
from gateway.settings import CHECKOUT


def _proc_field(path: str, name: str) -> str:
    with contextlib.suppress(OSError):
        for line in Path(path).read_text().splitlines():
            if line.startswith(name):
                return line.split(":", 1)[1].strip()
    return ""


def machine(postgresql: str) -> dict[str, Any]:
    """What the figures were measured on (/proc/cpuinfo, /proc/meminfo)."""
    memory_kb = _proc_field("/proc/meminfo", "MemTotal").split()
    commit = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=CHECKOUT, capture_output=True, text=True
    ).stdout.strip()
    return {
        "cpu": _proc_field("/proc/cpuinfo", "model name"),
        "cores": len(os.sched_getaffinity(0)),
        "memory_gib": round(int(memory_kb[0]) / 2**20, 1) if memory_kb else None,
        "kernel": platform.release(),
        "python": platform.python_version(),
        "postgresql": postgresql,
        "commit": commit,
    }


def markdown(command: str, found: dict[str, Any], results: Sequence[Result], note: str) -> str:
    lost = sum(r.lost for r in results)
    doubled = sum(r.doubled for r in results)
    lines = [
        "# Reliability",
        "",
        "The fault and load tests of `make soak` (issue 16, item 2; `bench/soak/`): real",
        "`skillmem serve` and `skillmem worker` processes on an embedded PostgreSQL of the run's",
        "own, driven by httpx clients on 127.0.0.1. Written by the run itself.",
        "",
        f"Command: `{command}`",
        "",
        f"Machine: {found['cpu']}, {found['cores']} cores, {found['memory_gib']} GiB;"
        f" Linux {found['kernel']}, Python {found['python']}, PostgreSQL {found['postgresql']};"
        f" commit {found['commit']}.",
        "",
    ]
    if note:
        lines += [note, ""]
    lines += [
        f"**Lost: {lost} acknowledged writes; written twice: {doubled}.**",
        "",
        "| # | scenario | verdict | lost | doubled |",
        "| --- | --- | --- | --- | --- |",
    ]
    for number, r in enumerate(results, 1):
        verdict = "pass" if r.passed else "FAIL: " + "; ".join(r.failures)
        lines.append(f"| {number} | {r.title} | {verdict} | {r.lost} | {r.doubled} |")
    for number, r in enumerate(results, 1):
        lines += ["", f"## {number}. {r.title}", ""]
        if r.how:
            lines += [r.how, ""]
        lines += ["```json"]
        lines += [json.dumps(r.figures, indent=1, ensure_ascii=False), "```"]
    return "\n".join(lines) + "\n"
