"""`skillmem catalog search TEXT [--community]`: the catalogue's search (the product's own
skills and, when asked, the community directory), over GraphQL, as a table or JSON.
`skillmem catalog add SOURCE [--yes]`: its preview, a confirmation, then exactly the previewed
commit installed."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import Annotated, Any

import typer

from gateway.cli.client import Client
from gateway.cli.common import REFUSED, USAGE_ERROR, Failure, TokenOption, UrlOption
from gateway.cli.tables import print_table

group = typer.Typer(help="The catalogue of skills, over the GraphQL API.", no_args_is_help=True)

SEARCH = """
query CatalogSearch($text: String!, $community: Boolean!) {
  catalogSearch(text: $text, community: $community) {
    results { origin name description source skillId installs exact }
    status ownStatus communityStatus sent
  }
}
"""


PREVIEW = """
query CatalogPreview($source: String!) {
  catalogPreview(source: $source) {
    source shipped name description visibility nameTaken acceptable commit
    problems { field line message }
    files { path size script scriptRule }
  }
}
"""

INSTALL = """
mutation CatalogInstall($source: String!, $commit: String) {
  catalogInstall(source: $source, commit: $commit) { name visibility version }
}
"""

WHO = {"WORKSPACE": "the whole workspace", "PRIVATE": "only you"}


class Format(StrEnum):
    table = "table"
    json = "json"


def register(app: typer.Typer) -> None:
    app.add_typer(group, name="catalog")


@group.command("search")
def search(
    text: Annotated[str, typer.Argument(help="The words to find (a skill's name, a file type).")],
    community: Annotated[
        bool,
        typer.Option(
            "--community",
            help="Also ask the community directory: the text, and up to three of its words, "
            "leave the server.",
        ),
    ] = False,
    output: Annotated[
        Format, typer.Option("--format", help="A table, or the whole answer as JSON.")
    ] = Format.table,
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """Skills of the catalogue matching TEXT: a skill named exactly one of its words first,
    then the product's own, then the most installed. Says so when a side did not answer."""
    client = Client(url, token)
    found = client.graphql(SEARCH, {"text": text, "community": community})["catalogSearch"]
    if output is Format.json:
        print(json.dumps(found, ensure_ascii=False, indent=2))
        return
    rows = [
        (
            hit["origin"].lower(),
            hit["name"],
            hit["source"] or "",
            "" if hit["installs"] is None else str(hit["installs"]),
        )
        for hit in found["results"]
    ]
    print_table(("origin", "name", "source", "installs"), rows)
    for side, status in (("own", found["ownStatus"]), ("community", found["communityStatus"])):
        if status == "UNAVAILABLE":
            print(f"the {side} search is unavailable: it did not answer", file=sys.stderr)
    if found["status"] == "NO_MATCH":
        print("no skill matched", file=sys.stderr)


@group.command("add")
def add(
    source: Annotated[
        str,
        typer.Argument(
            help="shipped:<name> (a skill the product ships) or owner/repo[/path][@ref] "
            "(a folder of a community repository)."
        ),
    ],
    yes: Annotated[
        bool,
        typer.Option(
            "--yes", "-y", help="Add without asking (needed when there is no terminal to ask on)."
        ),
    ] = False,
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """Show what adding SOURCE would land (name, who will see it, the pinned commit, its files
    and which are scripts), ask, then add exactly the previewed commit. A folder the product
    refuses is shown with every problem and nothing is added (exit code 1)."""
    client = Client(url, token)
    shown = client.graphql(PREVIEW, {"source": source})["catalogPreview"]
    print_preview(shown)
    if not shown["acceptable"]:
        raise Failure(f"{source} cannot be added", REFUSED, problem_lines(shown["problems"]))
    if not yes:
        if not sys.stdin.isatty():
            raise Failure("no terminal to confirm on: pass --yes to add it", USAGE_ERROR)
        if not typer.confirm(f"Add {shown['name']}?", default=False):
            raise Failure("not added: declined", REFUSED)
    variables = {"source": source, "commit": None if shown["shipped"] else shown["commit"]}
    added = client.graphql(INSTALL, variables)["catalogInstall"]
    print(
        f"added {added['name']} (version {added['version']}), "
        f"visible to {WHO.get(added['visibility'], added['visibility'].lower())}"
    )


def print_preview(shown: dict[str, Any]) -> None:
    """What would land: its name, who sees it, the pinned commit, the files (scripts marked)."""
    print(f"name:        {shown['name']}")
    if shown["description"]:
        print(f"description: {shown['description']}")
    print(f"visible to:  {WHO.get(shown['visibility'], shown['visibility'].lower())}")
    print(f"source:      {shown['source']}")
    if shown["commit"]:
        print(f"commit:      {shown['commit']}")
    if shown["nameTaken"]:
        print("note:        a skill of this name is already in the workspace")
    rows = [
        (
            file["path"],
            str(file["size"]),
            f"script ({(file['scriptRule'] or '').lower()})" if file["script"] else "",
        )
        for file in shown["files"]
    ]
    print_table(("file", "bytes", "script"), rows)


def problem_lines(problems: list[dict[str, Any]]) -> list[str]:
    lines = []
    for problem in problems:
        where = problem["field"] or "-"
        if problem["line"] is not None:
            where += f" (line {problem['line']})"
        lines.append(f"{where}: {problem['message']}")
    return lines
