"""`skillmem migrate` and `skillmem demo`: the database brought up to date, the demo loaded."""

from __future__ import annotations

from typing import Any

from gateway.cli.common import database
from gateway.demo import ensure_demo
from gateway.settings import Settings


def register(commands: Any) -> None:
    commands.add_parser("migrate", help="apply pending migrations")
    commands.add_parser("demo", help="load the demo workspace and print a fresh demo token")


async def migrate(settings: Settings) -> int:
    async with database(settings):
        print("Migrations applied.")
    return 0


async def demo(settings: Settings) -> int:
    async with database(settings) as conn:
        start = await ensure_demo(conn)
    print(
        f"demo workspace {'loaded' if start.created else 'present'}; "
        f"token for {start.member_email}: {start.token}"
    )
    return 0
