"""What a reader of a skill gets: a stored file whose path holds a control character is
skipped (seed 000, "Files"), in the activation's file list, the skill's files, skillFile and
an export, even when such a row reached the table some other way than the API."""

from __future__ import annotations

import pytest

from tests.factories import codes, gql
from tests.skills.test_service import PUT_FILE, create
from tests.skills.test_transfer import export, read_zip

NAME = "invoice-followup"
BAD_PATHS = ["notes/a\x01b.md", "notes/a\x7fb.md", "notes/\u202etxt.md"]
ACTIVATION = """{ skillActivation(name: "invoice-followup") { files { path } } }"""
FILES = """{ skill(name: "invoice-followup") { files { path } } }"""
READ = """query($path: String!) { skillFile(name: "invoice-followup", path: $path) { text } }"""


async def plant(pool, ws, path: str) -> None:
    """A copy of the skill's good file under ``path``, written as the table owner."""
    async with pool.acquire() as conn:
        await conn.execute(
            """INSERT INTO skill_files (workspace_id, skill_id, version, path, sha256, size, mode)
               SELECT workspace_id, skill_id, version, $1, sha256, size, mode
                 FROM skill_files WHERE workspace_id = $2 AND path = 'notes/good.md'""",
            path,
            ws.id,
        )


@pytest.mark.parametrize("bad", BAD_PATHS)
async def test_a_stored_path_with_a_control_character_is_skipped_when_read(client, pool, ws, bad):
    # Regression: such a row was listed, read and exported (only an import refused it).
    token = ws.tokens["member"]
    await create(client, token, NAME)
    put = {"name": NAME, "path": "notes/good.md", "text": "fine", "x": False}
    assert not codes(await gql(client, token, PUT_FILE, put))
    await plant(pool, ws, bad)
    good = [{"path": "notes/good.md"}]
    activation = (await gql(client, token, ACTIVATION)).json()["data"]["skillActivation"]
    assert activation["files"] == good
    assert (await gql(client, token, FILES)).json()["data"]["skill"]["files"] == good
    assert codes(await gql(client, token, READ, {"path": bad})) == ["NOT_FOUND"]
    read = await gql(client, token, READ, {"path": "notes/good.md"})
    assert read.json()["data"]["skillFile"]["text"] == "fine"
    exported = read_zip((await export(client, token, [NAME])).content)
    assert sorted(exported[NAME]) == ["SKILL.md", "notes/good.md"]
