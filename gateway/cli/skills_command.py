"""`skillmem skills pull|push`: skills as folders on disk, over the HTTP API."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gateway.cli import skills
from gateway.cli.common import env_token, fail


def register(commands: Any) -> None:
    skills_cmd = commands.add_parser("skills", help="skills as folders on disk, over HTTP")
    skills_actions = skills_cmd.add_subparsers(dest="action", required=True)
    for action, text in (
        ("pull", "write the caller's skills as folders in DIR"),
        ("push", "import every skill folder in DIR"),
    ):
        sub = skills_actions.add_parser(action, help=text)
        sub.add_argument("dir")
        sub.add_argument("--url", default="http://127.0.0.1:8000", help="the API's base URL")
        sub.add_argument("--token", help="a bearer token (or SKILLMEM_TOKEN)")
        if action == "pull":
            sub.add_argument("names", nargs="*", help="only these skills")


def _push(root: Path, url: str, token: str) -> int:
    if not root.is_dir():
        return fail(f"{root} is not a folder")
    status, answer, skipped = skills.push(root, url, token)
    for path in skipped:
        print(f"skipped {path} (not a regular file)", file=sys.stderr)
    if status != 200:
        print(json.dumps(answer, indent=2), file=sys.stderr)
        return 1
    listed = answer.get("skills", [])
    for item in listed if isinstance(listed, list) else []:
        print(f"{item['operation']:9} {item['name']} (version {item['version']})")
    return 0


def _pull(root: Path, url: str, token: str, names: list[str] | None) -> int:
    status, result = skills.pull(root, url, token, names)
    if status != 200:
        print(json.dumps(result, indent=2), file=sys.stderr)
        return 1
    for name in result:
        print(f"wrote {root / name}/")
    return 0


def skills_command(args: argparse.Namespace) -> int:
    token = args.token or env_token()
    if not token:
        return fail("give --token or set SKILLMEM_TOKEN")
    if args.action == "push":
        return _push(Path(args.dir), args.url, token)
    return _pull(Path(args.dir), args.url, token, args.names or None)
