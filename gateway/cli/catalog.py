"""`skillmem catalog search TEXT [--community]`: the catalogue's search (the product's own
skills and, when asked, the community directory), over GraphQL, as a table or JSON."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import Annotated

import typer

from gateway.cli.client import Client
from gateway.cli.common import TokenOption, UrlOption
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
