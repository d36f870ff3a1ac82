"""`skillmem dreamer run [--now TIME]`: its options (dreamer.py does the work, imported when it
runs: the other commands start without the Dreamer)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer

from gateway.cli.common import run, settings

group = typer.Typer(help="The Dreamer (memory's learning passes).", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(group, name="dreamer")


def moment(text: str | datetime) -> datetime:
    """An ISO 8601 time; without a zone, UTC."""
    if isinstance(text, datetime):
        return text
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise typer.BadParameter(f"not an ISO 8601 time: {text!r}") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


@group.command("run")
def run_command(
    now: Annotated[
        datetime | None,
        typer.Option(
            parser=moment,
            metavar="TIME",
            help="The time to run at, ISO 8601 (2026-11-02T09:30:00Z; no zone: UTC) "
            "[default: now].",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run memory's periodic jobs and every Dreamer pass due at a time, here and now, without
    the queue; one line per pass and a total."""
    from gateway.cli.dreamer import dreamer_run

    run(dreamer_run(now, settings()))
