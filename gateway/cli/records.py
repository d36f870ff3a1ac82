"""`skillmem records search memory|skill --query TEXT`: the seed's search of memory pages (or
skills) the caller may read, over GraphQL, as a table or JSON."""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated

import typer

from gateway.cli.client import Client
from gateway.cli.common import TokenOption, UrlOption
from gateway.cli.tables import print_table

group = typer.Typer(help="Records, over the GraphQL API.", no_args_is_help=True)

SEARCH = """
query Search($q: String!, $objects: [SearchObject!], $first: Int!) {
  search(q: $q, objects: $objects, first: $first) { hits { object id title snippet rank } }
}
"""


class Searched(StrEnum):
    memory = "memory"
    skill = "skill"


class Format(StrEnum):
    table = "table"
    json = "json"


def register(app: typer.Typer) -> None:
    app.add_typer(group, name="records")


@group.command("search")
def search(
    object_: Annotated[Searched, typer.Argument(metavar="OBJECT", help="memory or skill.")],
    query: Annotated[
        str, typer.Option("--query", "-q", help="The words to find.", show_default=False)
    ],
    output: Annotated[
        Format, typer.Option("--format", help="A table, or the hits as JSON.")
    ] = Format.table,
    first: Annotated[int, typer.Option(min=1, max=100, help="At most this many hits.")] = 20,
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """Memory pages (by their souvenirs' words) or skills matching --query, best first, among
    what the token may read; accents fold (preference finds préférence)."""
    client = Client(url, token)
    variables = {"q": query, "objects": [object_.value.upper()], "first": first}
    hits = client.graphql(SEARCH, variables)["search"]["hits"]
    if output is Format.json:
        print(json.dumps(hits, ensure_ascii=False, indent=2))
        return
    rows = [(hit["id"], hit["title"], hit["snippet"], f"{hit['rank']:.3f}") for hit in hits]
    print_table(("id", "title", "snippet", "rank"), rows)
