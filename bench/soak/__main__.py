"""`python -m bench.soak` (`make soak`): the six fault and load tests, their figures printed as
each ends, RELIABILITY.md written at the end; exit 1 when any failed.

    python -m bench.soak [--seconds S] [--lanes N] [--outage S] [--abuse-rate R] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from bench.soak import faults, load, report
from bench.soak.abuse import RATE_PER_KIND
from bench.soak.common import Result, Soak
from bench.soak.postgres import embedded, fresh_database
from bench.soak.tenants import make_tenant
from db.pool import create_pool
from gateway.settings import CHECKOUT

SCENARIOS: dict[str, Callable[[Soak], Awaitable[Result]]] = {
    "steady": load.steady,
    "postgres_killed": faults.postgres_killed,
    "exhaustion": load.exhaustion,
    "sigterm": faults.sigterm,
    "abuse": load.abused,
    "two_of_everything": faults.two_of_everything,
}


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__)
    parser.add_argument("--seconds", type=float, default=40.0, help="load time per scenario")
    parser.add_argument("--lanes", type=int, default=8, help="clients of the mixed workload")
    parser.add_argument("--outage", type=float, default=3.0, help="seconds PostgreSQL is down")
    parser.add_argument(
        "--abuse-rate",
        type=float,
        default=RATE_PER_KIND,
        help="bad requests a second of each kind in the abuse scenario",
    )
    parser.add_argument("--only", nargs="*", choices=sorted(SCENARIOS), help="these scenarios")
    parser.add_argument("--out", default=str(CHECKOUT / "RELIABILITY.md"), help="the report")
    parser.add_argument("--note", default="", help="a line for the report (how it was run)")
    return parser.parse_args(argv)


async def soak(args: argparse.Namespace) -> int:
    names = args.only or list(SCENARIOS)
    results: list[Result] = []
    with embedded() as server:
        dsn = await fresh_database(server)
        owner = await create_pool(dsn, min_size=1, max_size=2)
        try:
            tenants = [await make_tenant(owner, name) for name in ("Northwind", "Contoso")]
            version = str(await owner.fetchval("SHOW server_version"))
        finally:
            await owner.close()
        logs = Path(tempfile.mkdtemp(prefix="skillmem-soak-logs-"))
        run = Soak(server, dsn, tenants, logs, args.seconds, args.lanes, args.outage)
        run.abuse_rate = args.abuse_rate
        for name in names:
            started = time.monotonic()
            print(f"== {name}", flush=True)
            result = await SCENARIOS[name](run)
            # The machine's load as the scenario ended: other sessions may share it.
            result.figures["machine_load_average"] = [round(x, 2) for x in os.getloadavg()]
            verdict = "pass" if result.passed else "FAIL " + "; ".join(result.failures)
            print(json.dumps(result.figures, indent=1, ensure_ascii=False), flush=True)
            print(f"== {name}: {verdict} ({time.monotonic() - started:.0f} s)", flush=True)
            results.append(result)
    command = "python -m bench.soak " + shlex.join(sys.argv[1:])
    text = report.markdown(command.strip(), report.machine(version), results, args.note)
    await asyncio.to_thread(Path(args.out).write_text, text)
    print(f"wrote {args.out} (process logs in {logs})")
    return 0 if all(r.passed for r in results) else 1


def main() -> int:
    return asyncio.run(soak(arguments()))


if __name__ == "__main__":
    sys.exit(main())
