"""One Dreamer pass in a process of its own (the rules reader, the system clock): what a
worker in another process does, for tests/gateway/test_subscriptions.py.

    python -m tests.gateway.pass_child DSN WORKSPACE_ID OWNER_KIND OWNER_ID
"""

from __future__ import annotations

import asyncio
import sys
from uuid import UUID

from db.pool import api_dsn, create_pool
from resolvers.memory.dreamer.passes import PassSettings, owner_of, run_pass


async def main(dsn: str, workspace_id: str, kind: str, owner_id: str) -> int:
    pool = await create_pool(api_dsn(dsn), min_size=1, max_size=3)
    try:
        owner = owner_of(UUID(workspace_id), kind, UUID(owner_id))
        report = await run_pass(pool, owner, PassSettings())
    finally:
        await pool.close()
    print(report.written, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(*sys.argv[1:5])))
