"""Skills in and out as archives through the routes: POST /skills/import and /skills/export.

Archives are built here with the standard library (not the product's writers), sent through the
app, and what was stored is checked through GraphQL and, for "nothing was written", with SQL
counts over the owner's pool.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import io
import random
import stat
import tarfile
import zipfile
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import orjson
import pytest
from skills_ref.validator import validate

from gateway.http.responses import MAX_JSON_BODY_BYTES
from resolvers.skills.archive.limits import MAX_ARCHIVE_BYTES
from resolvers.skills.fields import RESERVED_NAMES
from resolvers.skills.skill_md import parse_skill_md
from tests.factories import Workspace, codes, gql, split
from tests.skills.archive.archives import Raw, raw_entry, raw_zip

MB = 1024 * 1024
# A folder's files: path inside the folder -> (bytes, mode).
Files = dict[str, tuple[bytes, int]]
# An archive's folders: folder name -> its files.
Tree = dict[str, Files]

SKILL = """query($name: String!, $version: Int) {
  skill(name: $name, version: $version) {
    name description content version latestVersion visibility parent subSkills extraFrontmatter
    files { path size sha256 script executable }
  }
}"""
CREATE = """mutation($input: CreateSkillInput!) { createSkill(input: $input) { name version } }"""
TABLES = ("skills", "skill_versions", "skill_files", "skill_blobs", "records")


# Building folders and archives ------------------------------------------------------------------


def skill_md(
    name: str, description: str = "Do one useful thing.", *lines: str, body: str = ""
) -> bytes:
    """A SKILL.md: name, description, any further frontmatter lines, then the body."""
    front = "\n".join([f"name: {name}", f"description: {description}", *lines])
    text = body or f"## Overview\n\n{name} in a few steps.\n\n## Instructions\n\n1. Do it.\n"
    return f"---\n{front}\n---\n\n{text}".encode()


def folder(name: str, *lines: str, files: Files | None = None, **options: Any) -> Files:
    """A skill folder: SKILL.md (from ``lines``) and ``files``."""
    return {"SKILL.md": (skill_md(name, *lines, **options), 0o644), **(files or {})}


def blob(seed: int, size: int) -> bytes:
    """Deterministic binary bytes (every byte value, incompressible)."""
    return random.Random(seed).randbytes(size)


def zip_of(tree: Tree) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, files in tree.items():
            for path, (content, mode) in files.items():
                info = zipfile.ZipInfo(f"{name}/{path}", date_time=(2024, 5, 1, 12, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.create_system = 3
                info.external_attr = (stat.S_IFREG | mode) << 16
                archive.writestr(info, content)
    return buffer.getvalue()


def tar_of(tree: Tree, *, compress: bool = False) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:") as archive:
        for name, files in tree.items():
            for path, (content, mode) in files.items():
                info = tarfile.TarInfo(f"{name}/{path}")
                info.size = len(content)
                info.mode = mode
                info.mtime = 1_700_000_000
                archive.addfile(info, io.BytesIO(content))
    data = buffer.getvalue()
    return gzip.compress(data) if compress else data


ARCHIVES = {
    "zip": (zip_of, "application/zip"),
    "tar": (tar_of, "application/x-tar"),
    "tar.gz": (lambda tree: tar_of(tree, compress=True), "application/gzip"),
}


def read_zip(data: bytes) -> Tree:
    """An exported zip as folders of (bytes, mode), read with the standard library."""
    tree: Tree = {}
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            name, path = info.filename.split("/", 1)
            mode = (info.external_attr >> 16) & 0o7777
            tree.setdefault(name, {})[path] = (archive.read(info), mode)
    return tree


def read_tar_gz(data: bytes) -> Tree:
    tree: Tree = {}
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(data)), mode="r:") as archive:
        for info in archive.getmembers():
            assert info.isreg(), info.name
            name, path = info.name.split("/", 1)
            stream = archive.extractfile(info)
            assert stream is not None
            tree.setdefault(name, {})[path] = (stream.read(), info.mode)
    return tree


# Talking to the routes --------------------------------------------------------------------------


async def send_import(
    client: httpx.AsyncClient,
    token: str,
    data: bytes,
    content_type: str = "application/zip",
    **params: str,
) -> httpx.Response:
    return await client.post(
        "/skills/import",
        content=data,
        params=params,
        headers={"authorization": f"Bearer {token}", "content-type": content_type},
    )


async def import_tree(
    client: httpx.AsyncClient, token: str, tree: Tree, **params: str
) -> httpx.Response:
    return await send_import(client, token, zip_of(tree), **params)


def operations(response: httpx.Response) -> dict[str, tuple[str, int]]:
    assert response.status_code == 200, response.text
    return {s["name"]: (s["operation"], s["version"]) for s in response.json()["skills"]}


async def export(
    client: httpx.AsyncClient, token: str, names: list[str] | None = None, kind: str | None = None
) -> httpx.Response:
    body: dict[str, Any] = {}
    if names is not None:
        body["names"] = names
    if kind is not None:
        body["format"] = kind
    return await client.post(
        "/skills/export", json=body, headers={"authorization": f"Bearer {token}"}
    )


def problems_of(response: httpx.Response, status: int = 400) -> list[dict[str, Any]]:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["code"] == "SCHEMA_VALIDATION_FAILED", error
    return list(error.get("problems", []))


async def skill(
    client: httpx.AsyncClient, token: str, name: str, version: int | None = None
) -> Any:
    response = await gql(client, token, SKILL, {"name": name, "version": version})
    return response.json()["data"]["skill"]


async def assert_absent(client: httpx.AsyncClient, token: str, *names: str) -> None:
    for name in names:
        response = await gql(client, token, SKILL, {"name": name})
        assert codes(response) == ["NOT_FOUND"], (name, response.text)


async def stored(pool: asyncpg.Pool, ws: Workspace) -> dict[str, int]:
    """Rows the workspace holds in every table an import writes."""
    async with pool.acquire() as conn:
        return {
            table: await conn.fetchval(
                f"SELECT count(*) FROM {table} WHERE workspace_id = $1",  # noqa: S608
                ws.id,
            )
            for table in TABLES
        }


async def assert_nothing_written(pool: asyncpg.Pool, ws: Workspace) -> None:
    counts = await stored(pool, ws)
    assert counts == {table: 0 for table in TABLES}, counts


# The skills most tests import -------------------------------------------------------------------

LOGO = b"\x89PNG\r\n\x1a\n" + blob(1, 20_000)


def report_tree() -> Tree:
    """A skill with every kind of file, and a sub-skill naming it as its parent."""
    return {
        "report-writer": folder(
            "report-writer",
            "Write the weekly sales report, when asked for the weekly numbers.",
            "license: Apache-2.0",
            "compatibility: Needs Python 3.11 and network access",
            "allowed-tools: Bash(python:*) Read",
            "metadata:",
            "  author: ops-team",
            '  version: "1.2"',
            files={
                "scripts/run.sh": (b"#!/bin/sh\nset -eu\necho report\n", 0o755),
                "assets/logo.png": (LOGO, 0o644),
                "assets/empty.txt": (b"", 0o644),
                "references/guide.md": (b"# Guide\n\nHow the report is laid out.\n", 0o644),
                "a/b/c/d/e/deep.md": (b"five folders deep\n", 0o644),
            },
        ),
        "report-charts": folder(
            "report-charts",
            ">\n  Draw the charts of the weekly report.\n  Use with report-writer.",
            "metadata:",
            "  standards-parent: report-writer",
            "  owner: ops-team",
            files={"scripts/chart.py": (b"#!/usr/bin/env python3\nprint('chart')\n", 0o755)},
        ),
        "meeting-notes": folder(
            "meeting-notes",
            "Summarise a meeting, only when the user asks for it by name.",
            "metadata:",
            '  disable-model-invocation: "true"',
            files={"templates/notes.md": ("# Notes — ünïcode ✓\n".encode(), 0o644)},
        ),
    }


# Import ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(ARCHIVES))
async def test_import_creates_skills_with_sub_skills_files_and_modes(client, ws, kind):
    token = ws.tokens["member"]
    tree = report_tree()
    del tree["meeting-notes"]
    build, content_type = ARCHIVES[kind]
    response = await send_import(client, token, build(tree), content_type)
    assert operations(response) == {
        "report-writer": ("create", 1),
        "report-charts": ("create", 1),
    }
    # The parent is created before its sub-skill, though the archive lists the sub-skill first.
    assert [s["name"] for s in response.json()["skills"]] == ["report-writer", "report-charts"]

    parent = await skill(client, token, "report-writer")
    assert parent["parent"] is None and parent["subSkills"] == ["report-charts"]
    assert parent["visibility"] == "WORKSPACE" and parent["version"] == 1
    assert parent["extraFrontmatter"] == {
        "license": "Apache-2.0",
        "compatibility": "Needs Python 3.11 and network access",
        "allowed-tools": "Bash(python:*) Read",
        "metadata": {"author": "ops-team", "version": "1.2"},
    }
    assert parent["content"].startswith("## Overview\n")
    files = {f["path"]: f for f in parent["files"]}
    assert sorted(files) == sorted(tree["report-writer"].keys() - {"SKILL.md"})
    for path, (content, mode) in tree["report-writer"].items():
        if path == "SKILL.md":
            continue
        assert files[path]["sha256"] == hashlib.sha256(content).hexdigest()
        assert files[path]["size"] == len(content)
        assert files[path]["executable"] is (mode == 0o755)
    assert files["scripts/run.sh"]["script"] is True
    assert files["assets/logo.png"]["script"] is False
    assert files["a/b/c/d/e/deep.md"]["script"] is False

    child = await skill(client, token, "report-charts")
    assert child["parent"] == "report-writer"
    assert child["description"] == "Draw the charts of the weekly report. Use with report-writer.\n"
    # The parent is the skill's parent, not a metadata entry.
    assert child["extraFrontmatter"] == {"metadata": {"owner": "ops-team"}}
    assert child["files"] == [
        {
            "path": "scripts/chart.py",
            "size": len(tree["report-charts"]["scripts/chart.py"][0]),
            "sha256": hashlib.sha256(tree["report-charts"]["scripts/chart.py"][0]).hexdigest(),
            "script": True,
            "executable": True,
        }
    ]


async def test_round_trip_keeps_bytes_modes_and_frontmatter(client, ws, tmp_path):
    token = ws.tokens["member"]
    tree = report_tree()
    created = operations(await import_tree(client, token, tree))
    assert {op for op, _ in created.values()} == {"create"}

    exported = await export(client, token)
    assert exported.status_code == 200, exported.text
    assert exported.headers["content-type"] == "application/zip"
    assert 'filename="skills.zip"' in exported.headers["content-disposition"]
    out = read_zip(exported.content)
    assert sorted(out) == sorted(tree)
    for name, files in tree.items():
        assert out[name].keys() == files.keys(), name
        for path, (content, mode) in files.items():
            if path == "SKILL.md":
                continue
            assert out[name][path] == (content, mode), (name, path)
        assert out[name]["SKILL.md"][1] == 0o644
        before, problems = parse_skill_md(files["SKILL.md"][0].decode(), folder_name=name)
        assert problems == []
        after, problems = parse_skill_md(out[name]["SKILL.md"][0].decode(), folder_name=name)
        assert problems == []
        assert after == before, name

    # The sub-skill names its parent in metadata.standards-parent.
    charts = out["report-charts"]["SKILL.md"][0].decode()
    assert "  standards-parent: report-writer\n" in charts.split("---")[1]

    # The reference validator accepts every exported folder.
    for name, files in out.items():
        for path, (content, mode) in files.items():
            target = tmp_path / name / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
            target.chmod(mode)
        assert validate(tmp_path / name) == [], name

    # Importing the export again, or the original, changes nothing.
    again = await send_import(client, token, exported.content)
    assert operations(again) == {name: ("unchanged", 1) for name in tree}
    original = await import_tree(client, token, tree)
    assert operations(original) == {name: ("unchanged", 1) for name in tree}

    # tar.gz holds the same folders, bytes and modes as the zip.
    packed = await export(client, token, kind="tar.gz")
    assert packed.status_code == 200, packed.text
    assert packed.headers["content-type"] == "application/gzip"
    assert read_tar_gz(packed.content) == out
    assert operations(await send_import(client, token, packed.content, "application/gzip")) == {
        name: ("unchanged", 1) for name in tree
    }


async def test_export_of_named_skills_and_of_everything_readable(client, ws):
    token = ws.tokens["member"]
    operations(await import_tree(client, token, report_tree()))
    one = read_zip((await export(client, token, ["report-charts"])).content)
    assert list(one) == ["report-charts"]
    draft, problems = parse_skill_md(one["report-charts"]["SKILL.md"][0].decode(), folder_name=None)
    assert problems == [] and draft is not None
    assert draft.extra_frontmatter["metadata"] == {
        "owner": "ops-team",
        "standards-parent": "report-writer",
    }
    # No names (an empty body, or an empty object): every readable skill.
    every = await client.post(
        "/skills/export", headers={"authorization": f"Bearer {token}"}, content=b""
    )
    assert sorted(read_zip(every.content)) == ["meeting-notes", "report-charts", "report-writer"]
    assert sorted(read_zip((await export(client, token)).content)) == sorted(
        read_zip(every.content)
    )
    # A name given twice is exported once.
    twice = read_zip((await export(client, token, ["meeting-notes", "meeting-notes"])).content)
    assert list(twice) == ["meeting-notes"]


async def test_an_export_body_over_its_cap_is_413_not_every_skill(client, ws):
    # Regression: an oversized body was read as an empty one, which means "every skill".
    names = ["report-writer"] * (MAX_JSON_BODY_BYTES // 10)
    body = orjson.dumps({"names": names})
    assert len(body) > MAX_JSON_BODY_BYTES
    response = await client.post(
        "/skills/export",
        content=body,
        headers={
            "authorization": f"Bearer {ws.tokens['member']}",
            "content-type": "application/json",
        },
    )
    assert response.status_code == 413
    assert response.json() == {
        "error": {
            "code": "SCHEMA_VALIDATION_FAILED",
            "message": f"The request body is larger than {MAX_JSON_BODY_BYTES} bytes.",
        }
    }


@pytest.mark.parametrize(
    "body",
    [b"[1]", b'{"names": "report-writer"}', b'{"names": [1]}', b'{"format": "rar"}', b"{oops"],
)
async def test_export_options_are_checked(client, ws, body):
    response = await client.post(
        "/skills/export",
        content=body,
        headers={
            "authorization": f"Bearer {ws.tokens['member']}",
            "content-type": "application/json",
        },
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "SCHEMA_VALIDATION_FAILED"


# One invalid folder refuses the whole import -------------------------------------------------


def many_files(count: int) -> Files:
    return {f"references/r{n:03}.md": (f"note {n}\n".encode(), 0o644) for n in range(count)}


BAD_FOLDERS: dict[str, tuple[str, Files, set[str]]] = {
    # case: (folder name, its files, the fields of its problems)
    "bad-name": ("Bad-Skill", folder("Bad-Skill"), {"Bad-Skill/name"}),
    "description-1025": (
        "long-description",
        folder("long-description", "x" * 1025),
        {"long-description/description"},
    ),
    "501-files": ("too-many", folder("too-many", files=many_files(501)), {"too-many/files"}),
    "6-deep": (
        "too-deep",
        folder("too-deep", files={"a/b/c/d/e/f/deep.md": (b"six\n", 0o644)}),
        {"too-deep/files/a/b/c/d/e/f/deep.md"},
    ),
}


@pytest.mark.parametrize("case", list(BAD_FOLDERS))
async def test_one_invalid_folder_refuses_the_whole_import(client, pool, ws, case):
    token = ws.tokens["member"]
    bad_name, bad_files, fields = BAD_FOLDERS[case]
    tree = {
        "alpha-skill": folder("alpha-skill", files={"scripts/a.sh": (b"echo a\n", 0o755)}),
        bad_name: bad_files,
        "omega-skill": folder("omega-skill", files={"assets/o.bin": (blob(2, 5000), 0o644)}),
    }
    response = await import_tree(client, token, tree)
    problems = problems_of(response)
    assert {p["field"] for p in problems} == fields, problems
    assert "nothing was written" in response.json()["error"]["message"]
    await assert_absent(client, token, "alpha-skill", "omega-skill")
    await assert_nothing_written(pool, ws)


async def test_every_problem_of_every_folder_is_listed(client, pool, ws):
    token = ws.tokens["member"]
    tree = {
        "good-skill": folder("good-skill"),
        "broken-skill": folder(
            "other-name",
            "y" * 1025,
            "colour: blue",
            files={"a/b/c/d/e/f/g.md": (b"deep\n", 0o644), "x\u2028y.md": (b"sep\n", 0o644)},
        ),
        "no-body": {"notes.md": (b"no SKILL.md here\n", 0o644)},
    }
    problems = problems_of(await import_tree(client, token, tree))
    fields = [p["field"] for p in problems]
    assert "broken-skill/name" in fields  # the folder is not named like the skill
    assert "broken-skill/description" in fields
    assert "broken-skill/frontmatter.colour" in fields
    assert "broken-skill/files/a/b/c/d/e/f/g.md" in fields
    assert any(f.startswith("broken-skill/files/x") for f in fields)  # a line separator
    assert "no-body/SKILL.md" in fields
    assert all(f.startswith(("broken-skill/", "no-body/")) for f in fields), fields
    await assert_absent(client, token, "good-skill")
    await assert_nothing_written(pool, ws)


# Boundaries through the route -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("files", "accepted"),
    [
        (many_files(500), True),
        (many_files(501), False),
        ({"a/b/c/d/e/file.md": (b"5 deep\n", 0o644)}, True),
        ({"a/b/c/d/e/f/file.md": (b"6 deep\n", 0o644)}, False),
    ],
    ids=["500-files", "501-files", "5-deep", "6-deep"],
)
async def test_file_count_and_depth_boundaries(client, pool, ws, files, accepted):
    token = ws.tokens["member"]
    response = await import_tree(client, token, {"edge-skill": folder("edge-skill", files=files)})
    if accepted:
        assert operations(response) == {"edge-skill": ("create", 1)}
        found = await skill(client, token, "edge-skill")
        assert len(found["files"]) == len(files)
    else:
        problems = problems_of(response)
        assert len(problems) == 1 and problems[0]["field"].startswith("edge-skill/files")
        if len(files) > 1:
            assert "501" in problems[0]["message"]
        await assert_nothing_written(pool, ws)


@pytest.mark.parametrize(
    ("name", "description", "accepted"),
    [
        ("a" * 64, "Short.", True),
        ("a" * 65, "Short.", False),
        ("long-text", "d" * 1024, True),
        ("long-text", "d" * 1025, False),
    ],
    ids=["name-64", "name-65", "description-1024", "description-1025"],
)
async def test_name_and_description_boundaries(client, pool, ws, name, description, accepted):
    token = ws.tokens["member"]
    response = await import_tree(client, token, {name: folder(name, description)})
    if accepted:
        assert operations(response) == {name: ("create", 1)}
        assert (await skill(client, token, name))["description"] == description
    else:
        field = "name" if len(name) > 64 else "description"
        assert [p["field"] for p in problems_of(response)] == [f"{name}/{field}"]
        await assert_nothing_written(pool, ws)


@pytest.mark.parametrize("name", sorted(RESERVED_NAMES))
async def test_reserved_names_are_refused(client, pool, ws, name):
    problems = problems_of(await import_tree(client, ws.tokens["member"], {name: folder(name)}))
    assert [(p["field"], "reserved" in p["message"]) for p in problems] == [(f"{name}/name", True)]
    await assert_nothing_written(pool, ws)


@pytest.mark.parametrize(
    "files",
    [
        {"SKILL.md": (skill_md("twin-body"), 0o644), "skill.md": (skill_md("twin-body"), 0o644)},
        {"SKILL.md": (skill_md("twin-body"), 0o644), "Skill.MD": (b"another\n", 0o644)},
        {"skill.md": (skill_md("twin-body"), 0o644), "SKILL.md": (skill_md("twin-body"), 0o644)},
        {"Skill.md": (skill_md("twin-body"), 0o644)},
    ],
    ids=["SKILL.md+skill.md", "SKILL.md+Skill.MD", "skill.md+SKILL.md", "only-Skill.md"],
)
async def test_a_second_skill_md_at_the_root_is_refused(client, pool, ws, files):
    problems = problems_of(
        await import_tree(client, ws.tokens["member"], {"twin-body": files, "fine": folder("fine")})
    )
    assert problems and all("twin-body" in p["field"] for p in problems), problems
    await assert_nothing_written(pool, ws)


async def test_a_skill_md_below_the_root_is_an_ordinary_file(client, ws):
    token = ws.tokens["member"]
    files = {"examples/SKILL.md": (b"an example of a skill\n", 0o644)}
    assert operations(await import_tree(client, token, {"nested": folder("nested", files=files)}))
    assert [f["path"] for f in (await skill(client, token, "nested"))["files"]] == [
        "examples/SKILL.md"
    ]


# Updates --------------------------------------------------------------------------------------


async def test_a_changed_folder_becomes_a_new_version_and_the_old_one_stays(client, ws):
    token = ws.tokens["member"]
    first: Files = {
        "scripts/go.sh": (b"echo one\n", 0o755),
        "references/keep.md": (b"kept\n", 0o644),
        "references/gone.md": (b"removed later\n", 0o644),
    }
    v1 = folder("changing-skill", files=first, body="## Overview\nversion one\n")
    assert operations(await import_tree(client, token, {"changing-skill": v1})) == {
        "changing-skill": ("create", 1)
    }
    second: Files = {
        "scripts/go.sh": (b"echo two\n", 0o755),
        "references/keep.md": (b"kept\n", 0o644),
        "references/new.md": (b"added\n", 0o644),
    }
    v2 = folder("changing-skill", files=second, body="## Overview\nversion two\n")
    assert operations(await import_tree(client, token, {"changing-skill": v2})) == {
        "changing-skill": ("update", 2)
    }
    # The same folder again changes nothing.
    assert operations(await import_tree(client, token, {"changing-skill": v2})) == {
        "changing-skill": ("unchanged", 2)
    }

    def listed(files: Files) -> list[dict[str, str]]:
        return [
            {"path": path, "sha256": hashlib.sha256(content).hexdigest()}
            for path, (content, _) in sorted(files.items())
        ]

    query = """query($v: Int) { skill(name: "changing-skill", version: $v) {
      version latestVersion content files { path sha256 } } }"""
    old = (await gql(client, token, query, {"v": 1})).json()["data"]["skill"]
    assert old == {
        "version": 1,
        "latestVersion": 2,
        "content": "## Overview\nversion one\n",
        "files": listed(first),
    }
    new = (await gql(client, token, query, {"v": None})).json()["data"]["skill"]
    assert new == {
        "version": 2,
        "latestVersion": 2,
        "content": "## Overview\nversion two\n",
        "files": listed(second),
    }
    # Only a mode changes: a new version too, and the export keeps the new mode.
    third = {**second, "scripts/go.sh": (b"echo two\n", 0o644)}
    v3 = folder("changing-skill", files=third, body="## Overview\nversion two\n")
    assert operations(await import_tree(client, token, {"changing-skill": v3})) == {
        "changing-skill": ("update", 3)
    }
    out = read_zip((await export(client, token, ["changing-skill"])).content)
    assert out["changing-skill"]["scripts/go.sh"] == (b"echo two\n", 0o644)


async def test_a_name_taken_by_an_unreadable_skill_is_refused(client, pool, ws):
    secret = await gql(
        client,
        ws.tokens["other"],
        CREATE,
        {"input": {"name": "private-notes", "description": "Mine.", "visibility": "PRIVATE"}},
    )
    assert secret.json()["data"]["createSkill"]["version"] == 1
    before = await stored(pool, ws)
    token = ws.tokens["member"]
    tree = {"private-notes": folder("private-notes"), "fresh-skill": folder("fresh-skill")}
    problems = problems_of(await import_tree(client, token, tree))
    assert [p["field"] for p in problems] == ["private-notes/SKILL.md"]
    assert "already has this name" in problems[0]["message"]
    await assert_absent(client, token, "fresh-skill", "private-notes")
    assert await stored(pool, ws) == before
    mine = await skill(client, ws.tokens["other"], "private-notes")
    assert (mine["version"], mine["description"]) == (1, "Mine.")


async def test_a_name_taken_by_a_readable_skill_is_updated(client, ws):
    made = await gql(
        client,
        ws.tokens["admin"],
        CREATE,
        {"input": {"name": "shared-skill", "description": "Shared by the team."}},
    )
    assert made.json()["data"]["createSkill"]["version"] == 1
    token = ws.tokens["member"]
    tree = {"shared-skill": folder("shared-skill", "Improved by a member.")}
    assert operations(await import_tree(client, token, tree)) == {"shared-skill": ("update", 2)}
    found = await skill(client, ws.tokens["admin"], "shared-skill")
    assert (found["version"], found["description"]) == (2, "Improved by a member.")
    assert (await skill(client, ws.tokens["admin"], "shared-skill", 1))["description"] == (
        "Shared by the team."
    )


async def test_a_sub_skill_may_name_an_existing_parent_but_not_a_missing_one(client, pool, ws):
    token = ws.tokens["member"]
    operations(await import_tree(client, token, {"base-skill": folder("base-skill")}))
    child = folder("child-skill", "A child.", "metadata:", "  standards-parent: base-skill")
    assert operations(await import_tree(client, token, {"child-skill": child})) == {
        "child-skill": ("create", 1)
    }
    assert (await skill(client, token, "base-skill"))["subSkills"] == ["child-skill"]
    orphan = folder("orphan-skill", "An orphan.", "metadata:", "  standards-parent: no-such-skill")
    problems = problems_of(await import_tree(client, token, {"orphan-skill": orphan}))
    assert [p["field"] for p in problems] == ["orphan-skill/SKILL.md"]
    assert "no-such-skill" in problems[0]["message"]
    await assert_absent(client, token, "orphan-skill")


# Permissions ----------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["viewer", "api_key"])
async def test_import_needs_the_skill_right(client, pool, ws, who):
    response = await import_tree(client, ws.tokens[who], {"some-skill": folder("some-skill")})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "FORBIDDEN"
    await assert_nothing_written(pool, ws)


async def test_import_needs_a_token(client, pool, ws):
    response = await client.post("/skills/import", content=zip_of({"x": folder("x")}))
    assert response.status_code == 401
    await assert_nothing_written(pool, ws)


async def test_private_import_and_export_by_a_caller_who_cannot_read(client, ws):
    member, other = ws.tokens["member"], ws.tokens["other"]
    tree = {"my-secret": folder("my-secret", files={"notes.md": (b"mine\n", 0o644)})}
    assert operations(await import_tree(client, member, tree, visibility="private")) == {
        "my-secret": ("create", 1)
    }
    assert (await skill(client, member, "my-secret"))["visibility"] == "PRIVATE"
    operations(await import_tree(client, member, {"team-skill": folder("team-skill")}))
    await assert_absent(client, other, "my-secret")

    by_name = await export(client, other, ["my-secret"])
    assert by_name.status_code == 404
    assert by_name.json()["error"]["code"] == "NOT_FOUND"
    mixed = await export(client, other, ["team-skill", "my-secret"])
    assert mixed.status_code == 404
    assert sorted(read_zip((await export(client, other)).content)) == ["team-skill"]
    assert sorted(read_zip((await export(client, member)).content)) == ["my-secret", "team-skill"]


async def test_another_workspace_exports_none_of_them(client, ws, ws2):
    operations(
        await import_tree(client, ws.tokens["member"], {"local-skill": folder("local-skill")})
    )
    assert (await export(client, ws2.tokens["member"], ["local-skill"])).status_code == 404
    every = await export(client, ws2.tokens["member"])
    assert every.status_code == 200
    assert read_zip(every.content) == {}


async def test_a_bad_visibility_is_refused(client, pool, ws):
    response = await import_tree(
        client, ws.tokens["member"], {"x-skill": folder("x-skill")}, visibility="public"
    )
    assert [p["field"] for p in problems_of(response)] == ["visibility"]
    await assert_nothing_written(pool, ws)


# Hostile archives through the route -----------------------------------------------------------


def tar_with(*extra: tarfile.TarInfo) -> bytes:
    """A tar of a valid skill folder plus ``extra`` entries (links, devices ...)."""
    buffer = io.BytesIO()
    body = skill_md("tar-skill")
    with tarfile.open(fileobj=buffer, mode="w:") as archive:
        info = tarfile.TarInfo("tar-skill/SKILL.md")
        info.size = len(body)
        archive.addfile(info, io.BytesIO(body))
        for entry in extra:
            archive.addfile(entry)
    return buffer.getvalue()


def link(name: str, kind: bytes, target: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info


def zip_with(name: str, content: bytes = b"x\n") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("zip-skill/SKILL.md", skill_md("zip-skill"))
        archive.writestr(name, content)
    return buffer.getvalue()


async def test_hostile_archives_are_refused_and_nothing_is_written(client, pool, ws, zeros_300mb):
    stream, size, crc = zeros_300mb
    body = skill_md("bomb-skill")
    cases: list[tuple[str, bytes, str, str]] = [
        # (case, archive, the problem's field, words of its message)
        (
            "traversal",
            zip_with("zip-skill/../../evil.sh"),
            "archive/zip-skill/../../evil.sh",
            "'..'",
        ),
        ("absolute", zip_with("/etc/cron.d/evil"), "archive//etc/cron.d/evil", "absolute"),
        (
            "symlink",
            tar_with(link("tar-skill/passwd", tarfile.SYMTYPE, "/etc/passwd")),
            "archive/tar-skill/passwd",
            "symbolic link",
        ),
        (
            "hard link",
            tar_with(link("tar-skill/hard", tarfile.LNKTYPE, "tar-skill/SKILL.md")),
            "archive/tar-skill/hard",
            "hard link",
        ),
        (
            "device",
            tar_with(link("tar-skill/null", tarfile.CHRTYPE, "")),
            "archive/tar-skill/null",
            "character device",
        ),
        (
            "zip bomb (declared)",
            raw_zip(
                [
                    raw_entry("bomb-skill/SKILL.md", body),
                    Raw(b"bomb-skill/zeros", stream, size, crc),
                ]
            ),
            "archive/bomb-skill/zeros",
            f"declares {size} bytes",
        ),
        (
            "zip bomb (lying header)",
            raw_zip(
                [raw_entry("bomb-skill/SKILL.md", body), Raw(b"bomb-skill/zeros", stream, 100, crc)]
            ),
            "archive/bomb-skill/zeros",
            "unpacks to more than",
        ),
        (
            "duplicate",
            raw_zip([raw_entry("dup-skill/SKILL.md", body), raw_entry("dup-skill/SKILL.md", body)]),
            "archive/dup-skill/SKILL.md",
            "appears twice",
        ),
        ("not an archive", b"just some text, not an archive", "archive", "not a zip"),
    ]
    for case, data, field, words in cases:
        response = await send_import(client, ws.tokens["member"], data)
        problems = problems_of(response)
        assert any(p["field"] == field and words in p["message"] for p in problems), (
            case,
            problems,
        )
        assert response.json()["error"]["message"].startswith("The archive was refused: ")
    await assert_nothing_written(pool, ws)


async def test_a_body_over_50_mb_is_refused_with_413(client, pool, ws):
    token = ws.tokens["member"]
    real = await send_import(client, token, b"\0" * (MAX_ARCHIVE_BYTES + 1))

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: the reader counts
        for _ in range(MAX_ARCHIVE_BYTES // MB + 1):
            yield b"\0" * MB

    streamed = await client.post(
        "/skills/import",
        content=chunks(),
        headers={"authorization": f"Bearer {token}", "content-type": "application/zip"},
    )
    claimed = await client.post(
        "/skills/import",
        content=zip_of({"small": folder("small")}),
        headers={
            "authorization": f"Bearer {token}",
            "content-type": "application/zip",
            "content-length": str(MAX_ARCHIVE_BYTES + 1),
        },
    )
    for response in (real, claimed, streamed):
        assert response.status_code == 413
        error = response.json()["error"]
        assert error["code"] == "SCHEMA_VALIDATION_FAILED"
        assert str(MAX_ARCHIVE_BYTES) in error["message"]
    # 50 MB exactly is read (and refused here only because it is no archive).
    exact = await send_import(client, token, b"\0" * MAX_ARCHIVE_BYTES)
    assert exact.status_code == 400
    await assert_nothing_written(pool, ws)


# SQL statements per request ----------------------------------------------------------------------

ACTIVATION = """{ skillActivation(name: "counted-skill") {
  name version body directory files { path size sha256 script executable } } }"""
CATALOG = "{ skillCatalog { name description dormant } }"


async def statements_of(
    counted: tuple[httpx.AsyncClient, list[str]], token: str, query: str
) -> tuple[dict[str, Any], list[str], list[str]]:
    """One request's data, and its data and transaction-control statements (after a warm-up
    request: asyncpg introspects a type the first time a connection meets it)."""
    client, statements = counted
    await gql(client, token, query)
    await asyncio.sleep(0)
    statements.clear()
    response = await gql(client, token, query)
    await asyncio.sleep(0)  # query loggers are called soon after the statement
    body = response.json()
    assert "errors" not in body, body
    control, data = split(statements)
    return body["data"], data, control


@pytest.mark.parametrize("files", [0, 3, 120])
async def test_activation_is_one_statement_whatever_the_files(client, counted, ws, files):
    token = ws.tokens["member"]
    drive = {f"references/f{n:03}.md": (f"file {n}\n".encode(), 0o644) for n in range(files)}
    operations(
        await import_tree(client, token, {"counted-skill": folder("counted-skill", files=drive)})
    )
    data, sent, control = await statements_of(counted, token, ACTIVATION)
    assert len(data["skillActivation"]["files"]) == files
    assert len(sent) == 2, sent
    assert "app_begin_request" in sent[0]
    assert "skill_files" in sent[1]
    assert len(control) == 2  # BEGIN and COMMIT


@pytest.mark.parametrize("count", [1, 12, 150])
async def test_catalog_is_one_statement_whatever_the_skills(client, counted, ws, count):
    token = ws.tokens["member"]
    tree = {
        f"skill-{n:03}": folder(f"skill-{n:03}", files={"a.md": (f"{n}\n".encode(), 0o644)})
        for n in range(count)
    }
    operations(await import_tree(client, token, tree))
    data, sent, control = await statements_of(counted, token, CATALOG)
    assert [e["name"] for e in data["skillCatalog"]] == sorted(tree)
    assert len(sent) == 2, sent
    assert "app_begin_request" in sent[0]
    assert len(control) == 2


def test_the_helpers_build_what_they_say() -> None:
    """The test's own archive builders keep names, bytes and modes (so the tests above test the
    product, not the builders)."""
    tree = report_tree()
    zipped = read_zip(zip_of(tree))
    assert zipped == tree
    packed = read_tar_gz(tar_of(tree, compress=True))
    assert packed == tree


async def test_a_re_import_files_a_skill_under_the_parent_its_folder_names(client, ws):
    token = ws.tokens["member"]
    first = await import_tree(
        client, token, {"a-skill": folder("a-skill"), "b-skill": folder("b-skill")}
    )
    assert operations(first) == {"a-skill": ("create", 1), "b-skill": ("create", 1)}
    parent_line = "metadata:\n  standards-parent: a-skill"
    refiled = await import_tree(
        client, token, {"b-skill": folder("b-skill", "Do one useful thing.", parent_line)}
    )
    assert operations(refiled) == {"b-skill": ("update", 1)}
    assert (await skill(client, token, "b-skill"))["parent"] == "a-skill"
    # a-skill under b-skill would make a cycle: refused, nothing changes
    cycle = await import_tree(
        client,
        token,
        {
            "a-skill": folder(
                "a-skill", "Do one useful thing.", "metadata:\n  standards-parent: b-skill"
            )
        },
    )
    assert cycle.status_code == 400
    assert (await skill(client, token, "a-skill"))["parent"] is None
    detached = await import_tree(client, token, {"b-skill": folder("b-skill")})
    assert operations(detached) == {"b-skill": ("update", 1)}
    assert (await skill(client, token, "b-skill"))["parent"] is None
