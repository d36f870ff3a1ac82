"""The product's own skills in a workspace, against a real PostgreSQL through the app: their
names refused on every road that creates a skill (GraphQL createSkill, /skills/import, the
Anthropic SDK's /v1/skills), offered by shippedSkills, and added by addShippedSkill, visible to
the workspace, once, with the right to create skills."""

from __future__ import annotations

import anthropic
import pytest

from resolvers.catalog.shipped import shipped_skill
from resolvers.skills.fields import SHIPPED_SKILL_NAMES
from tests.factories import codes, data, gql, problems
from tests.skills.test_transfer import (
    CREATE,
    assert_nothing_written,
    export,
    operations,
    problems_of,
    read_zip,
    send_import,
    zip_of,
)

NAMES = sorted(SHIPPED_SKILL_NAMES)
ADD = """mutation($name: String!) {
  addShippedSkill(name: $name) { name visibility version source content files { path script } }
}"""
READ = """query($name: String!) {
  skill(name: $name) { name visibility content source files { path size script } }
}"""
SHIPPED = """{ shippedSkills { name description skillMd visibility files { path size script } } }"""


def shipped_tree(name: str) -> dict[str, dict[str, tuple[bytes, int]]]:
    """The shipped skill's own folder, as an archive holds it."""
    folder = shipped_skill(name).folder
    return {name: {path: (f.content, f.mode) for path, f in folder.files.items()}}


@pytest.mark.parametrize("name", NAMES)
async def test_create_skill_refuses_a_shipped_name(client, pool, ws, name):
    response = await gql(
        client, ws.tokens["admin"], CREATE, {"input": {"name": name, "description": "Mine."}}
    )
    assert [(p["field"], "reserved" in p["message"]) for p in problems(response)] == [
        ("name", True)
    ]
    await assert_nothing_written(pool, ws)


@pytest.mark.parametrize("name", NAMES)
async def test_an_import_refuses_a_shipped_name_even_with_its_own_folder(client, pool, ws, name):
    response = await send_import(client, ws.tokens["admin"], zip_of(shipped_tree(name)))
    found = problems_of(response)
    assert [(p["field"], "reserved" in p["message"]) for p in found] == [(f"{name}/name", True)]
    await assert_nothing_written(pool, ws)


@pytest.mark.parametrize("name", NAMES)
async def test_the_sdk_refuses_a_shipped_name(sdk, pool, ws, name):
    folder = shipped_skill(name).folder
    files = [(f"{name}/{path}", f.content, "text/plain") for path, f in folder.files.items()]
    with pytest.raises(anthropic.BadRequestError) as refused:
        await sdk(ws.tokens["admin"]).beta.skills.create(files=files)
    assert f"The name '{name}' is reserved" in refused.value.message
    await assert_nothing_written(pool, ws)


async def test_every_workspace_is_offered_the_shipped_skills(client, ws):
    offered = data(await gql(client, ws.tokens["viewer"], SHIPPED), "shippedSkills")
    assert [one["name"] for one in offered] == NAMES
    for one in offered:
        found = shipped_skill(one["name"])
        assert one["skillMd"].startswith(f"---\nname: {one['name']}\n")
        assert one["visibility"] == "WORKSPACE"
        assert [(f["path"], f["size"], f["script"]) for f in one["files"]] == [
            (f.path, f.size, f.script) for f in found.files
        ]


@pytest.mark.parametrize("name", NAMES)
async def test_an_added_shipped_skill_is_visible_to_the_workspace(client, ws, name):
    added = data(await gql(client, ws.tokens["member"], ADD, {"name": name}), "addShippedSkill")
    found = shipped_skill(name)
    assert (added["name"], added["visibility"], added["version"]) == (name, "WORKSPACE", 1)
    assert added["source"] == {"kind": "shipped", "name": name}
    assert added["content"] == found.body
    seen = data(await gql(client, ws.tokens["other"], READ, {"name": name}), "skill")
    assert seen["visibility"] == "WORKSPACE" and seen["content"] == found.body
    assert [(f["path"], f["size"], f["script"]) for f in seen["files"]] == [
        (f.path, f.size, f.script) for f in found.files
    ]


async def test_adding_needs_the_right_to_create_skills(client, pool, ws):
    for who in ("viewer", "agent", "api_key"):
        response = await gql(client, ws.tokens[who], ADD, {"name": NAMES[0]})
        assert codes(response) == ["FORBIDDEN"], who
    await assert_nothing_written(pool, ws)


async def test_adding_twice_is_refused_and_changes_nothing(client, ws):
    data(await gql(client, ws.tokens["admin"], ADD, {"name": NAMES[0]}))
    again = await gql(client, ws.tokens["member"], ADD, {"name": NAMES[0]})
    assert [(p["field"], p["message"]) for p in problems(again)] == [
        (
            "name",
            f"a skill named {NAMES[0]} is already in this workspace: "
            "the product's skill is added once",
        )
    ]
    assert data(await gql(client, ws.tokens["other"], READ, {"name": NAMES[0]}), "skill")


async def test_a_name_held_by_a_skill_the_caller_cannot_read_is_refused(client, pool, ws):
    # A skill that held the name before the product shipped it: private to another member.
    private = {"name": "mine-first", "description": "Mine.", "visibility": "PRIVATE"}
    data(await gql(client, ws.tokens["other"], CREATE, {"input": private}))
    async with pool.acquire() as conn:
        await conn.execute(
            "UPDATE skills SET name = $1 WHERE workspace_id = $2 AND name = 'mine-first'",
            NAMES[1],
            ws.id,
        )
    response = await gql(client, ws.tokens["admin"], ADD, {"name": NAMES[1]})
    assert [p["field"] for p in problems(response)] == ["name"]
    seen = await gql(client, ws.tokens["admin"], READ, {"name": NAMES[1]})
    assert codes(seen) == ["NOT_FOUND"]


async def test_a_name_the_product_does_not_ship_is_not_found(client, pool, ws):
    response = await gql(client, ws.tokens["admin"], ADD, {"name": "invoice-followup"})
    assert codes(response) == ["NOT_FOUND"]
    await assert_nothing_written(pool, ws)


async def test_an_added_shipped_skill_goes_out_and_back_in(client, ws):
    data(await gql(client, ws.tokens["admin"], ADD, {"name": NAMES[0]}))
    exported = await export(client, ws.tokens["admin"], [NAMES[0]])
    assert exported.status_code == 200
    assert set(read_zip(exported.content)) == {NAMES[0]}
    back = await send_import(client, ws.tokens["admin"], exported.content)
    assert operations(back) == {NAMES[0]: ("unchanged", 1)}
