"""`skillmem skills pull|push`: skills as folders on disk, over the HTTP API."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from gateway.cli import skills
from gateway.cli.client import Client
from gateway.cli.common import REFUSED, Failure, TokenOption, UrlOption

group = typer.Typer(help="Skills as folders on disk, over the HTTP API.", no_args_is_help=True)

DirArgument = Annotated[
    Path, typer.Argument(metavar="DIR", help="The folder holding one folder per skill.")
]


def register(app: typer.Typer) -> None:
    app.add_typer(group, name="skills")


def _refused(answer: object) -> Failure:
    print(json.dumps(answer, indent=2), file=sys.stderr)
    return Failure("the server refused the request (above)", REFUSED)


@group.command("push")
def push(directory: DirArgument, url: UrlOption = None, token: TokenOption = None) -> None:
    """Import every skill folder in DIR (a folder holding SKILL.md); all or nothing."""
    client = Client(url, token)
    if not directory.is_dir():
        raise Failure(f"{directory} is not a folder")
    status, answer, skipped = skills.push(directory, client)
    for path in skipped:
        print(f"skipped {path} (not a regular file)", file=sys.stderr)
    if status != 200:
        raise _refused(answer)
    listed = answer.get("skills", [])
    for item in listed if isinstance(listed, list) else []:
        print(f"{item['operation']:9} {item['name']} (version {item['version']})")


@group.command("pull")
def pull(
    directory: DirArgument,
    names: Annotated[
        list[str] | None,
        typer.Argument(metavar="NAMES", help="Only these skills (default: every one)."),
    ] = None,
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """Write the caller's skills (or the NAMES given) as folders in DIR, replacing each
    skill's folder whole; other folders are left alone."""
    client = Client(url, token)
    status, result = skills.pull(directory, client, names or None)
    if status != 200:
        raise _refused(result)
    for name in result:
        print(f"wrote {directory / name}/")
