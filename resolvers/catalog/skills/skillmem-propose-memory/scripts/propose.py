#!/usr/bin/env python3
"""Send one proposal to skillmem's Dreamer and print its id and status.

    SKILLMEM_TOKEN=smk_... python3 scripts/propose.py "Acme wants every message in French" \
        --record RECORD_ID [--url http://127.0.0.1:8000]

The text is checked here first as the server checks it (not blank, at most 2,000 characters,
no control character but tab and newline), so a refused text never leaves. Standard library
only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import unicodedata
import urllib.request

MAX_CHARS = 2_000
OPERATION = """
mutation Propose($text: String!, $recordId: ID) {
  proposeMemory(text: $text, recordId: $recordId) { id status }
}
"""


def problems(text: str) -> list[str]:
    """Why the server would refuse this text (empty when it would not)."""
    if not text.strip():
        return ["a proposal says something"]
    if len(text) > MAX_CHARS:
        return [f"a proposal is at most {MAX_CHARS} characters"]
    if any(unicodedata.category(c) in ("Cc", "Cs") and c not in "\n\t" for c in text):
        return ["a proposal holds no control character"]
    return []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("text", help="what was said, in one sentence")
    parser.add_argument("--record", help="the id of the record it is about")
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the skillmem server")
    args = parser.parse_args()
    found = problems(args.text)
    if found:
        print("refused before sending: " + "; ".join(found), file=sys.stderr)
        return 1
    token = os.environ.get("SKILLMEM_TOKEN")
    if not token:
        print("set SKILLMEM_TOKEN to a skillmem token", file=sys.stderr)
        return 2
    body = {"query": OPERATION, "variables": {"text": args.text, "recordId": args.record}}
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
    proposal = answer["data"]["proposeMemory"]
    print(f"{proposal['id']} {proposal['status']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
