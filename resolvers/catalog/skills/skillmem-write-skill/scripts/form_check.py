#!/usr/bin/env python3
"""Print a skillmem skill's L1 form check; exit 1 when a check fails.

    SKILLMEM_TOKEN=smk_... python3 scripts/form_check.py NAME [--url http://127.0.0.1:8000]

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.request

OPERATION = """
query FormCheck($name: String!) {
  skillFormCheck(name: $name) { check passed why }
}
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("name", help="the skill's name")
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the skillmem server")
    args = parser.parse_args()
    token = os.environ.get("SKILLMEM_TOKEN")
    if not token:
        print("set SKILLMEM_TOKEN to a skillmem token", file=sys.stderr)
        return 2
    body = {"query": OPERATION, "variables": {"name": args.name}}
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
    rows = answer["data"]["skillFormCheck"]
    for row in rows:
        print(f"{'ok  ' if row['passed'] else 'FAIL'} {row['check']}: {row['why']}")
    return 0 if all(row["passed"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
