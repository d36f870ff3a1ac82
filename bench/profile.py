"""Where the GraphQL server's time goes: py-spy samples it under the benchmark's load.

`python -m bench.profile [--seconds 20] [--concurrency 8] [--server graphql]` needs py-spy
(`pip install py-spy`). It writes the collapsed stacks to bench/results/ and prints the
functions with the most samples on top of the stack (self) and anywhere in it (total), and
the share of samples per area (GraphQL execution, Strawberry, asyncpg, HTTP, ...).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

from bench import client
from bench.generate import ensure, server_dsn
from bench.records import PAGE_SIZE, RESULTS, serve

# Areas by the path of a frame's file, checked in order; the first that matches wins.
AREAS = (
    ("graphql-core", "/graphql/"),
    ("strawberry", "/strawberry/"),
    ("asyncpg", "/asyncpg/"),
    ("uvicorn+httptools", "/uvicorn/"),
    ("starlette", "/starlette/"),
    ("app: schema", "/schema/"),
    ("app: resolvers", "/resolvers/"),
    ("app: db", "/db/"),
    ("app: gateway", "/gateway/"),
    ("baseline", "/bench/"),
    ("asyncio", "/asyncio/"),
)


def area(frame: str) -> str:
    """The area a `function (file:line)` frame belongs to."""
    where = "/" + frame.rsplit("(", 1)[-1]
    for name, marker in AREAS:
        if marker in where:
            return name
    return "other"


def summarize(path: Path, top: int = 25) -> str:
    """The self, total and per-area sample counts of a collapsed-stacks file."""
    own: Counter[str] = Counter()
    total: Counter[str] = Counter()
    areas: Counter[str] = Counter()
    samples = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack:
            continue
        count = int(count_text)
        frames = [f.strip() for f in stack.split(";")[1:]]  # the first is the process
        if not frames:
            continue
        samples += count
        own[frames[-1]] += count
        for frame in set(frames):
            total[frame] += count
        if frames[-1].startswith("Runner.run "):
            # No Python frame above the loop: uvloop's C code, with the Cython protocol
            # callbacks it runs (httptools parsing, asyncpg decoding rows), or a wait.
            areas["event loop (C)"] += count
            continue
        # Otherwise a sample belongs to the innermost frame of a known area.
        inner = next((area(f) for f in reversed(frames) if area(f) != "other"), "other")
        areas[inner] += count
    out = [f"{samples} samples", "", "share by area (innermost known frame):"]
    out += [f"  {n / samples:6.1%}  {name}" for name, n in areas.most_common()]
    out += ["", f"top {top} self:"]
    out += [f"  {n / samples:6.1%}  {frame}" for frame, n in own.most_common(top)]
    out += ["", f"top {top} total:"]
    out += [f"  {n / samples:6.1%}  {frame}" for frame, n in total.most_common(top)]
    return "\n".join(out)


def py_spy_path() -> str:
    """The py-spy executable: on PATH or beside this Python."""
    found = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(found).exists():
        raise SystemExit("py-spy is not installed: pip install py-spy")
    return found


async def profile(py_spy: str, name: str, seconds: float, concurrency: int) -> Path:
    """Sample one server under load; return the collapsed-stacks file."""
    server, _handle = server_dsn()
    data = await ensure(server)
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    out = RESULTS / f"profile-{name}-{stamp}.txt"
    async with serve(name, data.dsn) as app:
        request = app.request(data.token, PAGE_SIZE)
        await client.load(app.port, request, concurrency, 3.0)
        spy = await asyncio.create_subprocess_exec(
            py_spy,
            "record",
            "--pid",
            str(app.process.pid),
            "--duration",
            str(int(seconds)),
            "--rate",
            "200",
            "--nonblocking",
            "--format",
            "raw",
            "--output",
            str(out),
        )
        run = await client.load(app.port, request, concurrency, seconds + 1.0)
        await spy.wait()
    print(f"{name}: {len(run.latencies_ns) / run.seconds:.0f} req/s while sampled")
    return out


def main() -> int:
    """Profile a server and print the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=("graphql", "baseline"), default="graphql")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    path = asyncio.run(profile(py_spy_path(), args.server, args.seconds, args.concurrency))
    print(summarize(path))
    print(f"\nstacks: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
