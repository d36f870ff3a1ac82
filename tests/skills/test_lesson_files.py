"""`.memory.md` through the routes: an export carries a skill's waiting lessons, an import
(`POST /skills/import`, what `skills push` sends) keeps them back, never twice."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import asyncpg
from skills_ref.validator import validate

from tests.factories import Workspace, gql
from tests.skills.test_transfer import (
    export,
    folder,
    import_tree,
    operations,
    problems_of,
    read_tar_gz,
    read_zip,
    send_import,
    stored,
)

LESSONS = "query($name: String!) { skill(name: $name) { lessons { day text } files { path } } }"
USE = (
    "mutation($name: String!, $l: String) { recordSkillUse(name: $name, lesson: $l) { useCount } }"
)
POLISH = "mutation($name: String!) { polishSkill(name: $name) { version } }"
PUT_FILE = """mutation($name: String!, $path: String!, $text: String!) {
  putSkillFile(name: $name, path: $path, text: $text, executable: false) { version }
}"""
DAY = datetime(2024, 3, 15, 9, 0, tzinfo=UTC)
MEMORY = (
    b"# Lessons: deploy-workflow\n\n"
    b"- 2024-03-15: Always check disk space before deploying\n"
    b"- 2024-03-20: Run database migrations before starting new pods\n"
)


async def lessons(client, token, name):
    response = await gql(client, token, LESSONS, {"name": name})
    skill = response.json()["data"]["skill"]
    return [(x["day"], x["text"]) for x in skill["lessons"]], [f["path"] for f in skill["files"]]


async def lesson_rows(pool: asyncpg.Pool, ws: Workspace) -> int:
    async with pool.acquire() as conn:
        return await conn.fetchval(
            "SELECT count(*) FROM skill_lessons WHERE workspace_id = $1", ws.id
        )


def with_memory(text: bytes) -> dict:
    return {"deploy-workflow": folder("deploy-workflow", files={".memory.md": (text, 0o644)})}


async def test_an_import_keeps_memory_md_as_lessons_and_a_second_adds_none(client, pool, ws):
    token = ws.tokens["member"]
    assert operations(await import_tree(client, token, with_memory(MEMORY))) == {
        "deploy-workflow": ("create", 1)
    }
    expected = [
        ("2024-03-15", "Always check disk space before deploying"),
        ("2024-03-20", "Run database migrations before starting new pods"),
    ]
    # The lessons are lessons, not a file of the skill's drive.
    assert await lessons(client, token, "deploy-workflow") == (expected, [])
    # The same file again, with one lesson more: only that one is added.
    more = MEMORY + b"- 2024-03-21: Watch the error rate for ten minutes\n"
    assert operations(await import_tree(client, token, with_memory(more))) == {
        "deploy-workflow": ("unchanged", 1)
    }
    assert operations(await import_tree(client, token, with_memory(more))) == {
        "deploy-workflow": ("unchanged", 1)
    }
    found, _ = await lessons(client, token, "deploy-workflow")
    assert found == [*expected, ("2024-03-21", "Watch the error rate for ten minutes")]
    assert await lesson_rows(pool, ws) == 3


async def test_an_export_carries_memory_md_newest_last_and_reads_back_as_is(
    client, pool, ws, stand, tmp_path
):
    token = ws.tokens["member"]
    operations(await import_tree(client, token, {"deploy-workflow": folder("deploy-workflow")}))
    for day, text in ((3, "Later lesson"), (1, "Earlier lesson"), (2, "Middle lesson")):
        stand(DAY + timedelta(days=day))
        await gql(client, token, USE, {"name": "deploy-workflow", "l": text})

    out = read_zip((await export(client, token)).content)
    assert out["deploy-workflow"][".memory.md"] == (
        b"# Lessons: deploy-workflow\n\n"
        b"- 2024-03-16: Earlier lesson\n"
        b"- 2024-03-17: Middle lesson\n"
        b"- 2024-03-18: Later lesson\n",
        0o644,
    )
    assert read_tar_gz((await export(client, token, kind="tar.gz")).content) == out
    for name, files in out.items():
        for path, (content, _) in files.items():
            (tmp_path / name / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name / path).write_bytes(content)
        assert validate(tmp_path / name) == [], name

    before = await lesson_rows(pool, ws)
    again = await send_import(client, token, (await export(client, token)).content)
    assert operations(again) == {"deploy-workflow": ("unchanged", 1)}
    assert await lesson_rows(pool, ws) == before == 3


async def test_folded_lessons_leave_the_file_and_are_not_read_back(client, pool, ws):
    token = ws.tokens["member"]
    operations(await import_tree(client, token, {"deploy-workflow": folder("deploy-workflow")}))
    for n in range(3):
        await gql(client, token, USE, {"name": "deploy-workflow", "l": f"lesson {n}"})
    pulled = await export(client, token)
    assert ".memory.md" in read_zip(pulled.content)["deploy-workflow"]
    assert (await gql(client, token, POLISH, {"name": "deploy-workflow"})).json()["data"]
    assert ".memory.md" not in read_zip((await export(client, token)).content)["deploy-workflow"]
    # The copy taken before the polish brings none of them back.
    assert operations(await send_import(client, token, pulled.content)) == {
        "deploy-workflow": ("update", 3)
    }
    assert await lessons(client, token, "deploy-workflow") == ([], [])
    assert await lesson_rows(pool, ws) == 3


async def test_a_bad_memory_md_refuses_the_import_with_every_problem(client, pool, ws):
    token = ws.tokens["member"]
    tree = {
        **with_memory(b"# Lessons\n- 2024-02-30: no such day\nloose text\n"),
        "broken-skill": folder("broken-skill", files={".memory.md": (b"\xff\n", 0o644)}),
    }
    problems = problems_of(await import_tree(client, token, tree))
    assert sorted((p["field"], p["message"]) for p in problems) == [
        ("broken-skill/.memory.md", ".memory.md is not valid UTF-8 (byte 0)"),
        ("deploy-workflow/.memory.md", "line 2 has no real date"),
        (
            "deploy-workflow/.memory.md",
            "line 3 is not a lesson line (- YYYY-MM-DD: text), a heading or blank",
        ),
    ]
    assert set((await stored(pool, ws)).values()) == {0}
    assert await lesson_rows(pool, ws) == 0


async def test_a_memory_md_stored_as_a_file_gives_way_to_the_lessons(client, ws):
    token = ws.tokens["member"]
    operations(await import_tree(client, token, {"deploy-workflow": folder("deploy-workflow")}))
    # Written before lessons had a file of their own: not exported as the lessons' file.
    variables = {"name": "deploy-workflow", "path": ".memory.md", "text": "- 2020-01-01: old\n"}
    assert (await gql(client, token, PUT_FILE, variables)).json()["data"]
    assert ".memory.md" not in read_zip((await export(client, token)).content)["deploy-workflow"]
    await gql(client, token, USE, {"name": "deploy-workflow", "l": "fresh"})
    memory = read_zip((await export(client, token)).content)["deploy-workflow"][".memory.md"][0]
    assert b"fresh" in memory and b"old" not in memory
