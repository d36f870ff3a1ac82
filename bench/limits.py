"""What it costs to refuse an abusive GraphQL document, against a normal small query.

`python -m bench.limits [--repeats N]` parses and validates each document with the gateway's
own document cache (gateway/http/graphql.py), in this process, no database and no HTTP: the
cache is emptied before each call, so every call parses and validates. It prints, for each
document, its outcome (passed, or the limit that refused it) and the median and the slowest
of N calls in milliseconds. With --no-gc the garbage collector is off while it measures (the
slowest calls otherwise hold a full collection, whatever the document); with --freeze the heap
is settled first, as `skillmem serve` does once started (gateway/heap.py).
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import sys
import time

from graphql import Source
from graphql.language import Lexer, TokenKind

from gateway import heap
from gateway.http.graphql import DocumentCache
from gateway.settings import Settings
from schema.schema import schema

SMALL = "{ me { name } }"


def aliased(count: int) -> str:
    return "{ " + " ".join(f"a{i}: me {{ name }}" for i in range(count)) + " }"


def nested(depth: int) -> str:
    """A query ``depth`` fields deep (depth even), through relations { record { ... } }."""
    pairs = (depth - 2) // 2
    return '{ record(id: "x") { ' + "relations { record { " * pairs + "id" + " } }" * pairs + " } }"


def lexical_tokens(source: str) -> int:
    lexer = Lexer(Source(source))
    count = 0
    while lexer.advance().kind is not TokenKind.EOF:
        count += 1
    return count


def with_tokens(count: int) -> str:
    """A valid query of exactly ``count`` lexical tokens, padded by a long list literal."""
    template = (
        '{ records(object: "companies", filter: {values: [{attribute: "domain", '
        "equals: [%s]}]}) { nodes { id } } }"
    )
    return template % ("1 " * (count - lexical_tokens(template % "")))


def documents(settings: Settings) -> dict[str, str]:
    return {
        "normal small query `{ me { name } }`": SMALL,
        f"{settings.max_aliases} aliases (at the limit)": aliased(settings.max_aliases),
        "200 aliases": aliased(200),
        f"{settings.max_depth} levels (at the limit)": nested(settings.max_depth),
        "120 levels": nested(120),
        f"largest allowed: {settings.max_tokens} tokens": with_tokens(settings.max_tokens),
        f"{settings.max_tokens + 1} tokens (over)": with_tokens(settings.max_tokens + 1),
        "malformed": "{ me { name " * 200,
    }


def outcome(cache: DocumentCache, text: str) -> str:
    prepared = cache.get(text)
    if prepared.document is not None:
        return "passed"
    first = prepared.errors[0]["extensions"]
    return f"{first['code']} ({first.get('limit', 'no limit')}, {len(prepared.errors)} errors)"


def timed(cache: DocumentCache, text: str, repeats: int) -> list[float]:
    spent = []
    for _ in range(repeats):
        cache.entries.clear()
        started = time.perf_counter()
        cache.get(text)
        spent.append((time.perf_counter() - started) * 1000)
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--no-gc", action="store_true", help="the garbage collector off")
    parser.add_argument(
        "--freeze", action="store_true", help="the heap settled first, as `serve` does"
    )
    args = parser.parse_args()
    if args.no_gc:
        gc.disable()
    settings = Settings(database_url=None)
    cache = DocumentCache(schema._schema, settings)
    if args.freeze:
        heap.settle()
    collector = "off" if args.no_gc else "on, heap settled" if args.freeze else "on"
    python = sys.version.split()[0]
    print(f"python {python}, {platform.machine()}, repeats {args.repeats}, gc {collector}")
    print(f"{'document':42} {'median ms':>10} {'max ms':>8}  outcome")
    for name, text in documents(settings).items():
        timed(cache, text, 3)  # warm-up
        spent = timed(cache, text, args.repeats)
        median, worst = statistics.median(spent), max(spent)
        print(f"{name:42} {median:10.2f} {worst:8.2f}  {outcome(cache, text)}")


if __name__ == "__main__":
    main()
