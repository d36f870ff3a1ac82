"""A side load in a process of its own, so that the clients being measured share no event loop
(and no CPU time slice of the soak's process) with the load they are measured beside: the
abusive clients, or one workspace's heavy clients and slow bodies. Its outcomes come back as
JSON on standard output. The process says "ready" once started (its imports take a CPU-second
of the machine) and begins on "go": the load it is measured beside starts with it, not with it
being started.

    python -m bench.soak.side abuse|heavy SETUP_JSON
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any
from uuid import UUID

from bench.soak import abuse
from bench.soak.processes import Process
from bench.soak.tenants import Tenant
from bench.soak.traffic import Outcome, Traffic, mixed
from tests.factories import Workspace

HEAVY = ("turn", "records", "search")


def tenant_setup(tenant: Tenant) -> dict[str, Any]:
    """What the side process needs of a workspace."""
    return {
        "id": str(tenant.id),
        "name": tenant.ws.name,
        "token": tenant.token,
        "marker": tenant.marker,
        "acme": tenant.acme,
        "profile_page": tenant.profile_page,
        "store_id": tenant.store_id,
    }


def side_setup(tenant: Tenant, gateway: Process, seconds: float, **more: Any) -> dict[str, Any]:
    """The side process's argument: the workspace, the gateway, the time, and ``more``."""
    return {
        "tenant": tenant_setup(tenant),
        "base_url": gateway.base_url,
        "port": gateway.port,
        "seconds": seconds,
        **more,
    }


def tenant_of(setup: dict[str, Any]) -> Tenant:
    ws = Workspace(UUID(setup["id"]), setup["name"], {}, {}, {}, {"member": setup["token"]})
    return Tenant(ws, setup["marker"], setup["acme"], setup["profile_page"], setup["store_id"])


async def side(kind: str, setup: dict[str, Any]) -> Traffic:
    traffic = Traffic()
    tenant = tenant_of(setup["tenant"])
    seconds, base_url, port = setup["seconds"], setup["base_url"], setup["port"]
    if kind == "abuse":
        only = setup.get("only", ())
        await abuse.abuse(base_url, port, tenant.token, seconds, traffic, setup["rate"], only)
    else:
        deadline = time.monotonic() + seconds
        await asyncio.gather(
            mixed([base_url], [tenant], setup["lanes"], seconds, traffic, HEAVY),
            *(
                abuse.slow_body(port, tenant.token, deadline, traffic)
                for _ in range(setup["slow_bodies"])
            ),
        )
    return traffic


@dataclass
class Side:
    """A side process started and ready: ``go()`` begins its load, ``done()`` its outcomes."""

    process: asyncio.subprocess.Process

    def go(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"go\n")

    async def done(self) -> Traffic:
        """Its outcomes, on this process's clock (both are the machine's monotonic clock), and
        the CPU seconds it used for its load (``cpu_seconds``)."""
        out, _ = await self.process.communicate()
        traffic = Traffic()
        found = json.loads(out or b"{}")
        traffic.outcomes = [Outcome(**o) for o in found.get("outcomes", [])]
        traffic.cpu_seconds = float(found.get("cpu_seconds", 0.0))
        for workspace, paths in found.get("paths", {}).items():
            for path in paths:
                traffic.ledger.ack("paths", UUID(workspace), path)
        for workspace, edits in found.get("edits", {}).items():
            for edit in edits:
                traffic.ledger.ack("edits", UUID(workspace), edit)
        return traffic


async def start_side(kind: str, setup: dict[str, Any]) -> Side:
    """The side process, started and ready for ``go``."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.soak.side",
        kind,
        json.dumps(setup),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    ready = await process.stdout.readline()
    if ready.strip() != b"ready":
        raise RuntimeError(f"the {kind} side process did not start: {ready!r}")
    return Side(process)


async def run_side(kind: str, setup: dict[str, Any]) -> Traffic:
    """The side load in a child process for its time, from the moment it is ready."""
    started = await start_side(kind, setup)
    started.go()
    return await started.done()


def main() -> int:
    kind, setup = sys.argv[1], json.loads(sys.argv[2])
    print("ready", flush=True)
    sys.stdin.readline()
    used = time.process_time()
    traffic = asyncio.run(side(kind, setup))
    used = time.process_time() - used
    print(
        json.dumps(
            {
                "cpu_seconds": round(used, 3),
                "outcomes": [asdict(o) for o in traffic.outcomes],
                "paths": {str(k): sorted(v) for k, v in traffic.ledger.paths.items()},
                "edits": {str(k): v for k, v in traffic.ledger.edits.items()},
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
