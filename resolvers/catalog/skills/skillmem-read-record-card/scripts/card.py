#!/usr/bin/env python3
"""Print the card of one record as an agent reads it, and the sources it links to.

    SKILLMEM_TOKEN=smk_... python3 scripts/card.py RECORD_ID [--message TEXT] \
        [--url http://127.0.0.1:8000]

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import urllib.request

OPERATION = """
query Card($message: String!, $recordId: ID) {
  turnContext(input: { message: $message, attachedRecordId: $recordId }) {
    cards { recordId label souvenirs { line } }
    budget { used dropped { recordId kind key } }
    text
  }
}
"""
SOURCE = re.compile(r" → (record:[A-Za-z0-9_-]+) — ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("record", help="the record's id")
    parser.add_argument("--message", default="What do we know about this record?")
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the skillmem server")
    args = parser.parse_args()
    token = os.environ.get("SKILLMEM_TOKEN")
    if not token:
        print("set SKILLMEM_TOKEN to a skillmem token", file=sys.stderr)
        return 2
    body = {"query": OPERATION, "variables": {"message": args.message, "recordId": args.record}}
    request = urllib.request.Request(
        args.url.rstrip("/") + "/graphql",
        data=json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            answer = json.load(response)
    except urllib.error.HTTPError as error:
        answer = json.load(error)
    if answer.get("errors"):
        for problem in answer["errors"]:
            code = problem.get("extensions", {}).get("code", "ERROR")
            print(f"{code}: {problem.get('message')}", file=sys.stderr)
        return 1
    context = answer["data"]["turnContext"]
    print(context["text"])
    sources = sorted(
        {
            m.group(1)
            for card in context["cards"]
            for s in card["souvenirs"]
            for m in [SOURCE.search(s["line"])]
            if m
        }
    )
    for source in sources:
        print(f"source to read: {source}")
    if context["budget"]["dropped"]:
        print(f"dropped for the budget: {len(context['budget']['dropped'])} item(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
