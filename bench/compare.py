"""Two or more commits' benchmarks, run in turn, and their ratios side by side.

`python -m bench.compare 29c99ae 2e82cc7` (or `make bench-compare ARGS="29c99ae 2e82cc7"`)
checks each commit out in a worktree of its own (`.data/compare/<commit>`, detached), installs it
with that commit's own Makefile, then runs each make target (`--targets`, by default the three of
issue 9: `bench`, `bench-memory` and `bench-turns`) in each checkout, one after the other, for
`--rounds` rounds, reversing the commits' order every other round so that a machine whose speed
drifts weighs on each commit alike. Every run is that commit's own benchmark: its own embedded
PostgreSQL in its checkout, its own migrations, data and baseline. `.` names this checkout as it
is, uncommitted changes included.

It reads each run's result file and prints, for every benchmark, endpoint and concurrency, the
GraphQL/baseline ratio of each commit (the median of its rounds, and every round) and each
commit's difference from the first. A ratio is read two ways: as the benchmark reports it (the
requests of all slices over all slices' seconds), and as the median of the slices' own ratios,
each GraphQL slice over the baseline slice next to it (the two alternate, so a pair ran within
seconds of each other: the speed of the machine, which can change by half within a run, cancels
out). `--summary FILE ...` prints the tables again from earlier comparisons' JSON or from
result files, without running anything.

The figures go to bench/results/compare-<time>.json.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

CHECKOUT = Path(__file__).resolve().parent.parent
RESULTS = CHECKOUT / "bench" / "results"
WORKTREES = CHECKOUT / ".data" / "compare"
TARGETS = ("bench", "bench-memory", "bench-turns")
THIS = "."
RESULT_LINE = "results: "


# --- reading result files -------------------------------------------------------------------


def paired_ratio(graphql: list[float], baseline: list[float]) -> float | None:
    """The median of each GraphQL slice's requests/s over the baseline slice beside it."""
    pairs = [g / b for g, b in zip(graphql, baseline, strict=False) if b]
    return round(statistics.median(pairs), 3) if pairs else None


def ratios(result: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """One result file's ratios by "benchmark endpoint c=N": as reported, and paired."""
    benchmark = Path(str(result.get("file", "run"))).name.split("-")[0]
    found: dict[str, dict[str, float | None]] = {}
    for row in result.get("load", []):
        if "ratio" not in row or "graphql" not in row or "baseline" not in row:
            continue
        endpoint = row.get("endpoint", "page")
        key = f"{benchmark} {endpoint} c={row['concurrency']}"
        found[key] = {
            "reported": row["ratio"],
            "paired": paired_ratio(
                row["graphql"].get("slice_rps", []), row["baseline"].get("slice_rps", [])
            ),
        }
    return found


def read_result(path: Path) -> dict[str, Any]:
    """A benchmark's result file, with its own name kept for ratios()."""
    result: dict[str, Any] = orjson.loads(path.read_bytes())
    result["file"] = path.name
    return result


# --- summarising ----------------------------------------------------------------------------


def summarise(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """For every cell (benchmark, endpoint, concurrency): each commit's rounds, their median,
    and the median's difference from the first commit's, both ways of reading a ratio."""
    cells: dict[str, dict[str, Any]] = {}
    first = next(iter(runs), None)
    for commit, results in runs.items():
        for result in results:
            for key, values in ratios(result).items():
                cell = cells.setdefault(key, {})
                for way, value in values.items():
                    if value is not None:
                        cell.setdefault(way, {}).setdefault(commit, []).append(value)
    table: dict[str, Any] = {}
    for key, ways in sorted(cells.items(), key=lambda item: _order(item[0])):
        table[key] = {}
        for way, by_commit in ways.items():
            medians = {c: round(statistics.median(v), 3) for c, v in by_commit.items()}
            table[key][way] = {
                "rounds": by_commit,
                "median": medians,
                "minus_first": {
                    c: round(m - medians[first], 3)
                    for c, m in medians.items()
                    if first in medians and c != first
                },
            }
    return table


def _order(key: str) -> tuple[str, int]:
    """By name, then by concurrency (c=8 before c=32)."""
    name, _, concurrency = key.rpartition(" c=")
    return name, int(concurrency) if concurrency.isdigit() else 0


def markdown(table: dict[str, Any], commits: list[str]) -> list[str]:
    """The summary as a Markdown table: medians (rounds) and differences from the first."""
    others = commits[1:]
    head = ["cell", *(f"{c} (rounds)" for c in commits), *(f"{c} − {commits[0]}" for c in others)]
    lines = [
        "| "
        + " | ".join(head)
        + " | paired: "
        + ", ".join(f"{c} − {commits[0]}" for c in others)
        + " |",
        "|---" * (len(head) + 1) + "|",
    ]
    for key, ways in table.items():
        reported = ways.get("reported", {})
        paired = ways.get("paired", {})
        cols = [key]
        for commit in commits:
            rounds = reported.get("rounds", {}).get(commit, [])
            median = reported.get("median", {}).get(commit)
            cols.append(f"{median:.2f} ({', '.join(f'{r:.2f}' for r in rounds)})" if rounds else "")
        cols += [_signed(reported.get("minus_first", {}).get(c)) for c in others]
        cols.append(", ".join(_signed(paired.get("minus_first", {}).get(c)) for c in others))
        lines.append("| " + " | ".join(cols) + " |")
    return lines


def _signed(value: float | None) -> str:
    return "" if value is None else f"{value:+.2f}"


# --- running --------------------------------------------------------------------------------


def git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=CHECKOUT, check=True, capture_output=True, text=True
    ).stdout.strip()


def checkout(commit: str) -> Path:
    """This checkout for ".", else a detached worktree of ``commit``, installed."""
    if commit == THIS:
        return CHECKOUT
    sha = git("rev-parse", "--verify", f"{commit}^{{commit}}")
    path = WORKTREES / sha[:12]
    if not (path / ".git").exists():
        git("worktree", "add", "--force", "--detach", str(path), sha)
    subprocess.run(["make", "install"], cwd=path, check=True, stdout=subprocess.DEVNULL)
    return path


def run_target(path: Path, target: str) -> Path:
    """Run one make target in a checkout; the result file it wrote."""
    env = {**os.environ, "SKILLMEM_WORKER": "false"}  # the API alone, in every commit
    done = subprocess.run(
        ["make", target], cwd=path, env=env, check=True, capture_output=True, text=True
    )
    for line in reversed(done.stdout.splitlines()):
        if line.startswith(RESULT_LINE):
            return path / line.removeprefix(RESULT_LINE).strip()
    raise RuntimeError(f"make {target} in {path} printed no result file")


def compare(commits: list[str], targets: Iterable[str], rounds: int) -> dict[str, Any]:
    paths = {commit: checkout(commit) for commit in commits}
    runs: dict[str, list[dict[str, Any]]] = {commit: [] for commit in commits}
    log = []
    for index in range(rounds):
        order = commits if index % 2 == 0 else commits[::-1]
        for target in targets:
            for commit in order:
                started = datetime.now(UTC).strftime("%H:%M:%S")
                result = run_target(paths[commit], target)
                runs[commit].append(read_result(result))
                log.append(
                    {
                        "round": index + 1,
                        "target": target,
                        "commit": commit,
                        "started": started,
                        "file": str(result.relative_to(paths[commit])),
                    }
                )
                print(f"{started} round {index + 1} {target} {commit}: {result.name}", flush=True)
    return {"runs": log, "table": summarise(runs)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("commits", nargs="*", help='commits to compare, "." for this checkout')
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--summary", nargs="+", metavar="COMMIT=FILE", help="summarise result files already made"
    )
    args = parser.parse_args()
    if args.summary:
        runs: dict[str, list[dict[str, Any]]] = {}
        for item in args.summary:
            commit, _, file = item.partition("=")
            runs.setdefault(commit, []).append(read_result(Path(file)))
        print("\n".join(markdown(summarise(runs), list(runs))))
        return 0
    if len(args.commits) < 2:
        parser.error("name at least two commits")
    report = compare(args.commits, args.targets.split(","), args.rounds)
    print("\n".join(markdown(report["table"], args.commits)))
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"compare-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    out.write_bytes(orjson.dumps({"commits": args.commits, **report}, option=orjson.OPT_INDENT_2))
    print(f"results: {out.relative_to(CHECKOUT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
