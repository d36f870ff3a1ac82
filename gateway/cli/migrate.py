"""`skillmem migrate` and `skillmem demo`: the database brought up to date, the demo loaded."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from gateway.cli.common import database, run, settings

if TYPE_CHECKING:
    from gateway.settings import Settings


def register(app: typer.Typer) -> None:
    app.command("migrate")(migrate_command)
    app.command("demo")(demo_command)


def migrate_command() -> None:
    """Apply pending migrations (DATABASE_URL, or the embedded PostgreSQL)."""
    run(migrate(settings()))


def demo_command() -> None:
    """Load the demo workspace (once) and print a new demo token; the previous demo token is
    revoked."""
    run(demo(settings()))


async def migrate(settings: Settings) -> int:
    async with database(settings):
        print("Migrations applied.")
    return 0


async def demo(settings: Settings) -> int:
    from gateway.demo import ensure_demo

    async with database(settings) as conn:
        start = await ensure_demo(conn)
    print(
        f"demo workspace {'loaded' if start.created else 'present'}; "
        f"token for {start.member_email}: {start.token}\n"
        "(the previous demo token, if any, is revoked: only this one works now)"
    )
    return 0
