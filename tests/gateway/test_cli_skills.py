"""`skillmem skills push DIR` and `skillmem skills pull DIR [NAME ...]` against the real server
(`skillmem serve --demo` in a subprocess, on a fresh database of the session server)."""

from __future__ import annotations

import asyncio
import io
import os
import random
import stat
import subprocess
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path

import anthropic
import asyncpg
import httpx
import pytest

from resolvers.skills.skill_md import SkillDraft, render_skill_md
from tests.gateway.cli_kit import run_soon
from tests.gateway.test_cli import Server, environment
from tests.skills.test_skills_ref_agreement import run_cli

RUN_TIMEOUT = 20.0


@pytest.fixture(scope="module")
async def served(new_database) -> AsyncIterator[tuple[str, str, str]]:  # type: ignore[no-untyped-def]
    """The server's URL, the demo token and the database's DSN."""
    dsn = await new_database()
    server = Server(dsn)
    try:
        token = await asyncio.to_thread(server.wait_for_token, 30)
        async with httpx.AsyncClient(timeout=10) as client:
            await server.wait_until_serving(client)
        yield server.url, token, dsn
    finally:
        server.stop()


async def skills(
    served: tuple[str, str, str], *args: str, token: str | None = None
) -> subprocess.CompletedProcess[str]:
    url, demo_token, dsn = served
    return await run_soon(
        ["skills", *args, "--url", url, "--token", token or demo_token], environment(dsn)
    )


def write(root: Path, folder: str, files: dict[str, tuple[bytes, int]]) -> None:
    for path, (content, mode) in files.items():
        target = root / folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        target.chmod(mode)


def tree(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``root``: its bytes and permission bits, by relative path."""
    found = {}
    for dirpath, _, filenames in os.walk(root):
        for filename in filenames:
            path = Path(dirpath) / filename
            relative = path.relative_to(root).as_posix()
            found[relative] = (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
    return found


def skill_md(name: str, description: str, **extra: object) -> bytes:
    """SKILL.md as an export writes it, so that a pull gives back the very bytes pushed."""
    body = f"## Overview\n\n{name}.\n\n## Instructions\n\n1. Run scripts/run.sh.\n"
    return render_skill_md(SkillDraft(name, description, body, dict(extra))).encode()


FOLDERS = {
    "cli-runner": {
        "SKILL.md": (skill_md("cli-runner", "Run the nightly job.", license="MIT"), 0o644),
        "scripts/run.sh": (b"#!/bin/sh\necho nightly\n", 0o755),
        "assets/data.bin": (random.Random(7).randbytes(30_000), 0o644),
        "a/b/c/d/e/deep.md": (b"deep\n", 0o644),
    },
    "cli-runner-report": {
        "SKILL.md": (
            skill_md(
                "cli-runner-report",
                "Report on the nightly job.",
                metadata={"standards-parent": "cli-runner"},
            ),
            0o644,
        ),
        "scripts/report.py": (b"print('report')\n", 0o755),
    },
}


async def test_push_then_pull_gives_the_same_files_bytes_and_modes(served, tmp_path):
    source = tmp_path / "source"
    for name, files in FOLDERS.items():
        write(source, name, files)
    (source / "not-a-skill").mkdir()  # a folder without SKILL.md is left out
    (source / "not-a-skill" / "readme.txt").write_text("ignored")

    pushed = await skills(served, "push", str(source))
    assert pushed.returncode == 0, pushed.stderr
    assert pushed.stdout.splitlines() == [
        "create    cli-runner (version 1)",
        "create    cli-runner-report (version 1)",
    ]

    target = tmp_path / "pulled"
    pulled = await skills(served, "pull", str(target))
    assert pulled.returncode == 0, pulled.stderr
    assert f"wrote {target / 'cli-runner'}/" in pulled.stdout.splitlines()
    # The demo's own skill comes too: every skill the caller may read.
    assert sorted(p.name for p in target.iterdir()) == [
        "AGENT_MEMORY.md",
        "cli-runner",
        "cli-runner-report",
        "invoice-followup",
    ]
    for name, files in FOLDERS.items():
        assert tree(target / name) == files, name
    assert tree(target / "invoice-followup")["scripts/days-late.sh"][1] == 0o755

    again = await skills(served, "push", str(source))
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines() == [
        "unchanged cli-runner (version 1)",
        "unchanged cli-runner-report (version 1)",
    ]


async def test_pull_of_a_named_skill_replaces_only_that_folder(served, tmp_path):
    source = tmp_path / "source"
    write(source, "cli-single", {"SKILL.md": (skill_md("cli-single", "Just one."), 0o644)})
    assert (await skills(served, "push", str(source))).returncode == 0

    target = tmp_path / "pulled"
    # An older copy of the skill folder is replaced whole; other folders are not touched.
    stale = {"SKILL.md": (b"---\nname: cli-single\n---\nold\n", 0o644), "stale.txt": (b"x", 0o644)}
    write(target, "cli-single", stale)
    write(target, "untouched", {"keep.txt": (b"mine\n", 0o644)})
    pulled = await skills(served, "pull", str(target), "cli-single")
    assert pulled.returncode == 0, pulled.stderr
    assert pulled.stdout.strip() == f"wrote {target / 'cli-single'}/"
    assert sorted(p.name for p in target.iterdir()) == [
        "AGENT_MEMORY.md",
        "cli-single",
        "untouched",
    ]
    assert tree(target / "cli-single") == {"SKILL.md": (skill_md("cli-single", "Just one."), 0o644)}
    assert tree(target / "untouched") == {"keep.txt": (b"mine\n", 0o644)}

    # A folder of that name that is no skill folder is left alone, and the pull fails.
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere, "cli-single", {"notes.txt": (b"not a skill\n", 0o644)})
    refused = await skills(served, "pull", str(elsewhere), "cli-single")
    assert refused.returncode == 1
    assert "is not a skill folder" in refused.stderr
    assert tree(elsewhere) == {"cli-single/notes.txt": (b"not a skill\n", 0o644)}

    missing = await skills(served, "pull", str(tmp_path / "none"), "no-such-skill")
    assert missing.returncode == 1
    assert "NOT_FOUND" in missing.stderr
    assert not (tmp_path / "none").exists()


async def test_push_of_an_invalid_folder_fails_with_every_problem(served, tmp_path):
    source = tmp_path / "source"
    write(source, "cli-fine", {"SKILL.md": (skill_md("cli-fine", "Fine on its own."), 0o644)})
    write(
        source,
        "cli-broken",
        {
            "SKILL.md": (b"---\nname: cli-broken\ndescription: " + b"x" * 1025 + b"\n---\n", 0o644),
            "a/b/c/d/e/f/deep.md": (b"six folders deep\n", 0o644),
        },
    )
    refused = await skills(served, "push", str(source))
    assert refused.returncode == 1, refused.stdout
    assert refused.stdout == ""
    assert "SCHEMA_VALIDATION_FAILED" in refused.stderr
    assert '"cli-broken/description"' in refused.stderr
    assert '"cli-broken/files/a/b/c/d/e/f/deep.md"' in refused.stderr
    assert "Traceback" not in refused.stderr
    # Nothing was written: the valid folder was not imported either.
    pulled = await skills(served, "pull", str(tmp_path / "out"), "cli-fine")
    assert pulled.returncode == 1 and "NOT_FOUND" in pulled.stderr


async def test_a_bad_token_fails(served, tmp_path):
    source = tmp_path / "source"
    write(source, "cli-token", {"SKILL.md": (skill_md("cli-token", "Token check."), 0o644)})
    bad = "smk_" + "A" * 43
    pushed = await skills(served, "push", str(source), token=bad)
    assert pushed.returncode == 1
    assert "UNAUTHENTICATED" in pushed.stderr
    pulled = await skills(served, "pull", str(tmp_path / "out"), token=bad)
    assert pulled.returncode == 1
    assert "UNAUTHENTICATED" in pulled.stderr
    assert not (tmp_path / "out").exists()


MEMORY_BODY = """## Overview

Ship a release.

## When to use

- When the release branch is green
- Don't use when: the freeze is on
"""
LESSONS_QUERY = "query($n: String!) { skill(name: $n) { lessons { day text } } }"


async def lessons_of(served: tuple[str, str, str], name: str) -> list[tuple[str, str]]:
    url, token, _ = served
    async with httpx.AsyncClient(timeout=10) as client:
        response = await client.post(
            f"{url}/graphql",
            json={"query": LESSONS_QUERY, "variables": {"n": name}},
            headers={"authorization": f"Bearer {token}"},
        )
    return [(x["day"], x["text"]) for x in response.json()["data"]["skill"]["lessons"]]


async def test_pull_writes_memory_files_and_push_reads_them_back_once(served, tmp_path):
    source = tmp_path / "source"
    memory = b"# Lessons\n\n- 2024-03-20: Tag after the build\n- 2024-03-15: Check the freeze\n"
    write(
        source,
        "cli-release",
        {
            "SKILL.md": (
                render_skill_md(SkillDraft("cli-release", "Ship.", MEMORY_BODY, {})).encode(),
                0o644,
            ),
            ".memory.md": (memory, 0o644),
        },
    )
    write(source, "cli-asleep", {"SKILL.md": (skill_md("cli-asleep", "Rarely used."), 0o644)})
    assert (await skills(served, "push", str(source))).returncode == 0
    # cli-asleep has not changed for 30 days and was never used: dormant.
    conn = await asyncpg.connect(served[2])
    try:
        await conn.execute(
            "UPDATE skills SET updated_at = now() - interval '30 days' WHERE name = 'cli-asleep'"
        )
    finally:
        await conn.close()

    target = tmp_path / "pulled"
    pulled = await skills(served, "pull", str(target))
    assert pulled.returncode == 0, pulled.stderr
    assert (target / "cli-release" / ".memory.md").read_bytes() == (
        b"# Lessons: cli-release\n\n"
        b"- 2024-03-15: Check the freeze\n"
        b"- 2024-03-20: Tag after the build\n"
    )
    assert not (target / "cli-asleep" / ".memory.md").exists()
    catalog = (target / "AGENT_MEMORY.md").read_text(encoding="utf-8").splitlines()
    assert catalog[:2] == ["# Available skills (Read SKILL.md on use)", ""]
    assert "- **cli-asleep** → `cli-asleep/SKILL.md`" in catalog
    assert (
        "- **cli-release**: When the release branch is green; Don't use when: the freeze is on"
        " → `cli-release/SKILL.md`"
    ) in catalog
    assert len(catalog) == 2 + len([p for p in target.iterdir() if p.is_dir()])
    # Every pulled folder still passes the reference validator (its command line).
    for folder in sorted(p for p in target.iterdir() if p.is_dir()):
        checked = await asyncio.to_thread(run_cli, folder)
        assert checked.returncode == 0, (folder.name, checked.stdout, checked.stderr)

    # Pushed back, the pulled folders add no lesson; a lesson appended by an agent is added once.
    with (target / "cli-release" / ".memory.md").open("a", encoding="utf-8") as file:
        file.write("- 2024-03-25: Announce in the channel\n")
    again = await skills(served, "push", str(target))
    assert again.returncode == 0, again.stderr
    assert await lessons_of(served, "cli-release") == [
        ("2024-03-15", "Check the freeze"),
        ("2024-03-20", "Tag after the build"),
        ("2024-03-25", "Announce in the channel"),
    ]
    assert (await skills(served, "pull", str(target), "cli-release")).returncode == 0
    assert (target / "cli-release" / ".memory.md").read_text().count("\n- ") == 3


async def test_a_skill_pushed_with_the_cli_downloads_byte_identical_through_the_sdk(
    served, tmp_path
):
    """Issue 14: `skillmem skills push`, then the official `anthropic` SDK's
    `versions.download` against the same server: every file, byte for byte."""
    url, token, _ = served
    files = {
        "SKILL.md": (
            b"---\nname: sdk-roundtrip\ndescription: Check the SDK download. Use when asked.\n"
            b"---\n\n## Steps\n\n1. Run the script.\n",
            0o644,
        ),
        "scripts/run.sh": (b"#!/bin/sh\nprintf 'ok\\n'\n", 0o755),
        "data/table.bin": (bytes(range(256)), 0o644),
    }
    write(tmp_path / "source", "sdk-roundtrip", files)
    pushed = await skills(served, "push", str(tmp_path / "source"))
    assert pushed.returncode == 0, pushed.stderr

    def download() -> dict[str, bytes]:
        client = anthropic.Anthropic(base_url=url, api_key=token)
        [found] = [
            s for s in client.beta.skills.list(limit=100) if s.display_name == "sdk-roundtrip"
        ]
        latest = client.beta.skills.versions.retrieve("latest", skill_id=found.id)
        archive = client.beta.skills.versions.download(latest.id, skill_id=found.id).read()
        with zipfile.ZipFile(io.BytesIO(archive)) as opened:
            return {i.filename: opened.read(i) for i in opened.infolist() if not i.is_dir()}

    got = await asyncio.to_thread(download)
    assert {p: content for p, content in got.items()} == {
        f"sdk-roundtrip/{path}": content for path, (content, _) in files.items()
    }
