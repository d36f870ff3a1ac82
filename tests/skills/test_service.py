"""Skills through the API: create, versions, files, activation, catalog, use and polish."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

import pytest

from resolvers.skills.fields import SKILL_TEMPLATE
from tests.factories import codes, gql

CREATE = """mutation($input: CreateSkillInput!) {
  createSkill(input: $input) { name description content version latestVersion visibility parent }
}"""
UPDATE = """mutation($name: String!, $input: UpdateSkillInput!) {
  updateSkill(name: $name, input: $input) { version content description extraFrontmatter }
}"""
PUT_FILE = """mutation($name: String!, $path: String!, $text: String, $b64: String, $x: Boolean!) {
  putSkillFile(name: $name, path: $path, text: $text, contentBase64: $b64, executable: $x) {
    version files { path size sha256 script executable }
  }
}"""
SKILL = """query($name: String!, $version: Int) {
  skill(name: $name, version: $version) { name version content files { path } versions { version } }
}"""


async def create(client, token, name="invoice-followup", **extra):
    variables = {"input": {"name": name, "description": "Chase an unpaid invoice.", **extra}}
    return await gql(client, token, CREATE, variables)


async def test_a_new_skill_starts_from_the_template(client, ws):
    response = await create(client, ws.tokens["member"])
    skill = response.json()["data"]["createSkill"]
    assert skill == {
        "name": "invoice-followup",
        "description": "Chase an unpaid invoice.",
        "content": SKILL_TEMPLATE,
        "version": 1,
        "latestVersion": 1,
        "visibility": "WORKSPACE",
        "parent": None,
    }


async def test_every_change_is_a_version_and_old_versions_stay_readable(client, ws):
    token = ws.tokens["member"]
    await create(client, token, content="## Overview\nv1\n")
    updated = await gql(
        client,
        token,
        UPDATE,
        {"name": "invoice-followup", "input": {"content": "## Overview\nv2\n"}},
    )
    assert updated.json()["data"]["updateSkill"]["version"] == 2
    put = await gql(
        client,
        token,
        PUT_FILE,
        {"name": "invoice-followup", "path": "scripts/send.sh", "text": "echo hi\n", "x": True},
    )
    files = put.json()["data"]["putSkillFile"]
    assert files["version"] == 3
    assert files["files"][0]["path"] == "scripts/send.sh"
    assert files["files"][0]["script"] and files["files"][0]["executable"]
    first = (await gql(client, token, SKILL, {"name": "invoice-followup", "version": 1})).json()
    assert first["data"]["skill"]["content"] == "## Overview\nv1\n"
    assert first["data"]["skill"]["files"] == []
    latest = (await gql(client, token, SKILL, {"name": "invoice-followup"})).json()
    assert latest["data"]["skill"]["version"] == 3
    assert [v["version"] for v in latest["data"]["skill"]["versions"]] == [3, 2, 1]


@pytest.mark.parametrize("path, stored", [("SKILL.md", "SKILL-2.md"), ("skill.md", "skill-2.md")])
async def test_a_root_skill_md_file_is_stored_as_skill_2(client, ws, path, stored):
    token = ws.tokens["member"]
    await create(client, token)
    response = await gql(
        client, token, PUT_FILE, {"name": "invoice-followup", "path": path, "text": "x", "x": False}
    )
    assert [f["path"] for f in response.json()["data"]["putSkillFile"]["files"]] == [stored]
    clash = await gql(
        client,
        token,
        PUT_FILE,
        {"name": "invoice-followup", "path": stored.swapcase(), "text": "y", "x": False},
    )
    assert codes(clash) == ["SCHEMA_VALIDATION_FAILED"]


async def test_identical_files_are_stored_once(client, pool, ws):
    token = ws.tokens["member"]
    for name in ("one-skill", "two-skill"):
        await create(client, token, name=name)
        await gql(
            client,
            token,
            PUT_FILE,
            {"name": name, "path": "references/same.md", "text": "same bytes", "x": False},
        )
    async with pool.acquire() as conn:
        count = await conn.fetchval(
            "SELECT count(*) FROM skill_blobs WHERE workspace_id = $1", ws.id
        )
    assert count == 1


async def test_activation_lists_files_never_their_content(client, ws):
    token = ws.tokens["member"]
    await create(client, token)
    await gql(
        client,
        token,
        PUT_FILE,
        {
            "name": "invoice-followup",
            "path": "references/a.md",
            "b64": base64.b64encode(b"secret").decode(),
            "x": False,
        },
    )
    query = """query($t: SkillTarget!) { skillActivation(name: "invoice-followup", target: $t) {
      name body directory files { path size } } }"""
    sandbox = (await gql(client, token, query, {"t": "SANDBOX"})).json()["data"]
    harness = (await gql(client, token, query, {"t": "HARNESS"})).json()["data"]
    assert sandbox["skillActivation"]["directory"] == "/workspace/skills/invoice-followup/"
    assert harness["skillActivation"]["directory"] == "$HOME/.standards/skills/invoice-followup/"
    assert sandbox["skillActivation"]["files"] == [{"path": "references/a.md", "size": 6}]
    assert "secret" not in str(sandbox)
    read = await gql(
        client,
        token,
        """{ skillFile(name: "invoice-followup",
      path: "references/a.md") { text base64 file { sha256 } } }""",
    )
    assert read.json()["data"]["skillFile"]["text"] == "secret"


async def test_the_catalog_leaves_out_disabled_and_hides_dormant_descriptions(client, ws, stand):
    token = ws.tokens["member"]
    await create(client, token, name="fresh-skill")
    await create(
        client, token, name="hidden-skill", extraFrontmatter={"disable-model-invocation": True}
    )
    query = "{ skillCatalog { name description dormant } }"
    catalog = (await gql(client, token, query)).json()["data"]["skillCatalog"]
    assert [e["name"] for e in catalog] == ["fresh-skill"]
    assert catalog[0]["description"] == "Chase an unpaid invoice." and not catalog[0]["dormant"]
    # Still readable by name.
    assert (await gql(client, token, SKILL, {"name": "hidden-skill"})).json()["data"]["skill"]
    later = datetime.now(UTC) + timedelta(days=21, minutes=1)
    stand(later)
    dormant = (await gql(client, token, query)).json()["data"]["skillCatalog"]
    assert dormant == [{"name": "fresh-skill", "description": None, "dormant": True}]
    used = await gql(
        client, token, 'mutation { recordSkillUse(name: "fresh-skill") { useCount dormant } }'
    )
    assert used.json()["data"]["recordSkillUse"] == {"useCount": 1, "dormant": False}


async def test_polish_folds_three_lessons_and_refuses_fewer(client, ws):
    token = ws.tokens["member"]
    await create(client, token)
    use = (
        'mutation($l: String) { recordSkillUse(name: "invoice-followup", lesson: $l)'
        " { useCount lessons { text } } }"
    )
    for n in range(2):
        await gql(client, token, use, {"l": f"lesson number {n}"})
    polish = (
        'mutation { polishSkill(name: "invoice-followup") { version content lessons { text } } }'
    )
    refused = await gql(client, token, polish)
    assert codes(refused) == ["SCHEMA_VALIDATION_FAILED"]
    await gql(client, token, use, {"l": "lesson number 2"})
    polished = (await gql(client, token, polish)).json()["data"]["polishSkill"]
    assert polished["version"] == 2
    assert "lesson number 2" in polished["content"] and polished["lessons"] == []


async def test_form_check_answers_each_check(client, ws):
    await create(client, ws.tokens["member"])
    response = await gql(
        client,
        ws.tokens["viewer"],
        '{ skillFormCheck(name: "invoice-followup") { check passed why } }',
    )
    checks = response.json()["data"]["skillFormCheck"]
    assert [c["check"] for c in checks] == [
        "name",
        "purpose",
        "trigger",
        "steps",
        "check",
        "reflex",
    ]
    assert checks[0]["passed"] is True


@pytest.mark.parametrize("who", ["viewer", "api_key"])
async def test_writing_needs_the_skill_right(client, ws, who):
    response = await create(client, ws.tokens[who])
    assert codes(response) == ["FORBIDDEN"]


async def test_validation_lists_every_problem(client, ws):
    response = await gql(
        client,
        ws.tokens["member"],
        CREATE,
        {
            "input": {
                "name": "Bad--Name",
                "description": "x" * 1025,
                "extraFrontmatter": {"unknown": "x"},
            }
        },
    )
    error = response.json()["errors"][0]
    assert error["extensions"]["code"] == "SCHEMA_VALIDATION_FAILED"
    fields = {p["field"] for p in error["extensions"]["problems"]}
    assert {"name", "description"} <= fields and any(f.startswith("frontmatter") for f in fields)


@pytest.mark.parametrize("length, ok", [(64, True), (65, False)])
async def test_name_length_boundary(client, ws, length, ok):
    name = "a" * length
    response = await create(client, ws.tokens["member"], name=name)
    assert (response.json().get("errors") is None) is ok


async def test_a_sub_skill_takes_its_parents_access(client, ws):
    member, other = ws.tokens["member"], ws.tokens["other"]
    await create(client, member, name="parent-skill", visibility="PRIVATE")
    child = await create(client, member, name="child-skill", parent="parent-skill")
    assert child.json()["data"]["createSkill"]["visibility"] == "PRIVATE"
    assert child.json()["data"]["createSkill"]["parent"] == "parent-skill"
    hidden = await gql(client, other, SKILL, {"name": "child-skill"})
    assert codes(hidden) == ["NOT_FOUND"]
    subs = await gql(client, member, '{ skill(name: "parent-skill") { subSkills } }')
    assert subs.json()["data"]["skill"]["subSkills"] == ["child-skill"]
    activation = await gql(
        client, member, '{ skillActivation(name: "parent-skill") { subSkills } }'
    )
    assert activation.json()["data"]["skillActivation"]["subSkills"] == ["child-skill"]


async def test_a_file_past_the_500th_or_too_deep_is_refused(client, pool, ws):
    from resolvers.common.principals import principal_for_token
    from resolvers.skills import writing
    from resolvers.skills.versions import NewFile

    async with pool.acquire() as conn, conn.transaction():
        member = await principal_for_token(conn, ws.tokens["member"])
        await writing.create_skill(
            conn,
            member,
            name="many-files",
            description="Five hundred files.",
            files=[NewFile(f"assets/f{i:03}.txt", b"x") for i in range(500)],
        )
    put = {"name": "many-files", "text": "y", "x": False}
    past = await gql(client, ws.tokens["member"], PUT_FILE, {**put, "path": "assets/one-more.txt"})
    assert codes(past) == ["SCHEMA_VALIDATION_FAILED"]
    replaced = await gql(client, ws.tokens["member"], PUT_FILE, {**put, "path": "assets/f000.txt"})
    assert replaced.json()["data"]["putSkillFile"]["version"] == 2
    deep = await gql(client, ws.tokens["member"], PUT_FILE, {**put, "path": "a/b/c/d/e/f/x.txt"})
    assert codes(deep) == ["SCHEMA_VALIDATION_FAILED"]


async def test_a_hostile_pull_answer_writes_nothing(tmp_path):
    from gateway.cli.skills import unsafe_folders
    from resolvers.skills.archive.members import ArchiveFile, ArchiveFolder

    (tmp_path / ".git").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("mine")
    skill_md = {"SKILL.md": ArchiveFile("SKILL.md", b"---\nname: x\n---\n", 0o644)}
    hostile = [
        ArchiveFolder(
            ".git", {"hooks/post-checkout": ArchiveFile("hooks/post-checkout", b"x", 0o755)}
        ),
        ArchiveFolder("notes", skill_md),
        ArchiveFolder("no-skill-md", {"a.txt": ArchiveFile("a.txt", b"x", 0o644)}),
    ]
    refused = unsafe_folders(tmp_path, hostile)
    assert len(refused) == 3
    assert unsafe_folders(tmp_path, [ArchiveFolder("fine-skill", skill_md)]) == []


async def test_versions_are_written_one_at_a_time(client, ws):
    import asyncio

    await create(client, ws.tokens["member"])
    updates = [
        gql(
            client,
            ws.tokens["member"],
            UPDATE,
            {"name": "invoice-followup", "input": {"content": f"## Overview\nv{n}\n"}},
        )
        for n in range(4)
    ]
    answers = await asyncio.gather(*updates)
    assert all(a.json().get("errors") is None for a in answers), [a.json() for a in answers]
    versions = sorted(a.json()["data"]["updateSkill"]["version"] for a in answers)
    assert versions == [2, 3, 4, 5]


async def test_delete_needs_the_delete_right_on_skills(client, ws):
    await create(client, ws.tokens["admin"], name="admins-skill")
    refused = await gql(
        client, ws.tokens["member"], 'mutation { deleteSkill(name: "admins-skill") }'
    )
    assert codes(refused) == ["FORBIDDEN"]
    done = await gql(client, ws.tokens["admin"], 'mutation { deleteSkill(name: "admins-skill") }')
    assert done.json()["data"]["deleteSkill"] is True


async def test_a_sub_skill_cannot_ask_for_another_visibility(client, ws):
    await create(client, ws.tokens["member"], name="open-parent")
    child = await create(
        client, ws.tokens["member"], name="secret-child", parent="open-parent", visibility="PRIVATE"
    )
    assert codes(child) == ["SCHEMA_VALIDATION_FAILED"]


async def test_the_parent_key_is_reserved_for_export(client, ws):
    response = await create(
        client, ws.tokens["member"], extraFrontmatter={"metadata": {"standards-parent": "nope"}}
    )
    assert codes(response) == ["SCHEMA_VALIDATION_FAILED"]


async def test_frontmatter_keeps_its_key_order(client, ws):
    extra = {"metadata": {"zeta-key": "1", "ab": "2", "version": "3"}, "license": "MIT"}
    await create(client, ws.tokens["member"], extraFrontmatter=extra)
    read = await gql(
        client, ws.tokens["member"], '{ skill(name: "invoice-followup") { extraFrontmatter } }'
    )
    got = read.json()["data"]["skill"]["extraFrontmatter"]
    assert list(got) == ["metadata", "license"]
    assert list(got["metadata"]) == ["zeta-key", "ab", "version"]


async def test_putting_the_same_file_again_makes_no_version(client, ws):
    await create(client, ws.tokens["member"])
    put = {"name": "invoice-followup", "path": "a.txt", "text": "same", "x": False}
    first = await gql(client, ws.tokens["member"], PUT_FILE, put)
    again = await gql(client, ws.tokens["member"], PUT_FILE, put)
    assert first.json()["data"]["putSkillFile"]["version"] == 2
    assert again.json()["data"]["putSkillFile"]["version"] == 2
