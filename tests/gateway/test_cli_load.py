"""`skillmem load` of 3,000 lines: three batches of 1,000; a refused line named by its line
number in the file; the batches before it stay (and a second load after the fix finds them
unchanged); with --all-or-nothing, nothing is written unless every line is accepted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from db.pool import begin_workspace, connect
from gateway.demo import DEMO_WORKSPACE_ID
from tests.gateway.test_cli import api_key_token, demo_token, skillmem

LINES = 3_000
BLANK = 10  # a blank line here: records after it sit one line further in the file
REFUSED = 2_503  # in the third batch


@pytest.fixture(scope="module")
async def loaded_db(new_database) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """A database with the demo: (dsn, an API key's token)."""
    dsn = await new_database()
    done = await skillmem(dsn, "demo")
    assert done.returncode == 0, done.stderr
    demo_token(done.stdout)
    return dsn, await api_key_token(dsn)


def bulk_file(path: Path, prefix: str, refused_at: int | None) -> Path:
    """3,000 companies and one blank line; the line at ``refused_at`` (in the file) carries a
    value that is not a number."""
    lines: list[str] = []
    for n in range(LINES):
        line: dict[str, Any] = {"object": "companies", "external_id": f"{prefix}-{n}"}
        line["label"] = f"{prefix} {n}"
        lines.append(json.dumps(line))
    lines.insert(BLANK - 1, "")
    if refused_at is not None:
        bad = json.loads(lines[refused_at - 1])
        bad["values"] = {"employees": "many"}
        lines[refused_at - 1] = json.dumps(bad)
    path.write_text("\n".join(lines) + "\n")
    return path


async def count(dsn: str, prefix: str) -> int:
    conn = await connect(dsn)
    try:
        async with conn.transaction():
            await begin_workspace(conn, DEMO_WORKSPACE_ID)
            found: int = await conn.fetchval(
                "SELECT count(*) FROM records WHERE label LIKE $1", f"{prefix} %"
            )
        return found
    finally:
        await conn.close()


async def test_a_refused_line_is_named_by_its_file_line_and_earlier_batches_stay(
    loaded_db, tmp_path
):
    dsn, token = loaded_db
    file = bulk_file(tmp_path / "bulk.jsonl", "Batched", REFUSED)
    refused = await skillmem(dsn, "load", str(file), "--token", token)
    assert refused.returncode == 1, refused.stdout
    assert "Traceback" not in refused.stderr
    assert refused.stdout == ""
    assert "SCHEMA_VALIDATION_FAILED: 1 line(s) refused in the batch from line 2002" in (
        refused.stderr
    )
    assert f"  line {REFUSED}: values.employees: must be a number" in refused.stderr
    assert "The 2 batch(es) before the refused one stay written (2000 line(s): create 2000" in (
        refused.stderr
    )
    # The first two batches (file lines 1 to 2001, one blank) stay; nothing of the third.
    assert await count(dsn, "Batched") == 2_000

    fixed = bulk_file(tmp_path / "fixed.jsonl", "Batched", None)
    again = await skillmem(dsn, "load", str(fixed), "--token", token)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "3000 line(s): create 1000, update 0, unchanged 2000"
    assert await count(dsn, "Batched") == LINES


async def test_all_or_nothing_writes_nothing_when_a_line_is_refused_then_everything(
    loaded_db, tmp_path
):
    dsn, token = loaded_db
    file = bulk_file(tmp_path / "bulk.jsonl", "Whole", REFUSED)
    refused = await skillmem(dsn, "load", str(file), "--all-or-nothing", "--token", token)
    assert refused.returncode == 1, refused.stdout
    assert f"  line {REFUSED}: values.employees: must be a number" in refused.stderr
    assert "Nothing was written (--all-or-nothing)." in refused.stderr
    assert "Traceback" not in refused.stderr
    assert await count(dsn, "Whole") == 0

    fixed = bulk_file(tmp_path / "fixed.jsonl", "Whole", None)
    loaded = await skillmem(dsn, "load", str(fixed), "--all-or-nothing", "--token", token)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "3000 line(s): create 3000, update 0, unchanged 0"
    assert await count(dsn, "Whole") == LINES


async def test_all_or_nothing_refuses_a_file_over_its_size(loaded_db, tmp_path):
    dsn, token = loaded_db
    big = tmp_path / "big.jsonl"
    with big.open("wb") as out:
        out.truncate(20_000_001)  # sparse: over the stated 20 MB
    refused = await skillmem(dsn, "load", str(big), "--all-or-nothing", "--token", token)
    assert refused.returncode == 2
    assert "larger than 20,000,000 bytes: --all-or-nothing loads files up to that size" in (
        refused.stderr
    )
