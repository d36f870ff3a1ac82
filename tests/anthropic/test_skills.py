"""``client.beta.skills`` and its ``versions`` driven with the official SDK against the app
(gateway/anthropic/skills.py over resolvers/skills/anthropic_api.py): uploads through the import
path with every problem listed, versions by id and ``latest``, pages followed to the last, the
download as our own export writes it, deletes, and the same skill GraphQL and /skills/export
see."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import anthropic
import httpx
import pytest

from tests.anthropic.conftest import Sent
from tests.factories import Workspace, gql
from tests.skills.test_transfer import export, folder, read_zip, send_import, skill_md, zip_of

Upload = list[tuple[str, bytes, str]]
SCRIPT = b"#!/bin/sh\necho report\n"
TONE = b"Tone: plain, short sentences.\n"
GRAPHQL_SKILL = """query($name: String!) { skill(name: $name) { name version description } }"""


def upload(
    name: str, description: str = "Write the weekly report.", files: dict[str, bytes] | None = None
) -> Upload:
    """A folder as the SDK uploads it: SKILL.md and ``files``, each named by its path."""
    parts = [(f"{name}/SKILL.md", skill_md(name, description), "text/markdown")]
    for path, content in (files or {}).items():
        parts.append((f"{name}/{path}", content, "application/octet-stream"))
    return parts


def files_of(archive: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(archive)) as opened:
        return {info.filename: opened.read(info) for info in opened.infolist()}


async def graphql_skill(client: httpx.AsyncClient, token: str, name: str) -> Any:
    return (await gql(client, token, GRAPHQL_SKILL, {"name": name})).json()["data"]["skill"]


async def test_a_skill_is_created_read_and_versioned_as_graphql_sees_it(sdk, ws, client):
    api = sdk(ws.tokens["admin"])
    created = await api.beta.skills.create(
        files=upload("weekly-report", files={"scripts/run.sh": SCRIPT}),
        display_name="Weekly report",
    )
    assert created.id.startswith("skill_") and created.type == "skill"
    assert created.display_name == "Weekly report"
    assert created.source.type == "custom"
    assert created.latest_version_id.startswith("skillver_")
    first = await api.beta.skills.versions.retrieve("latest", skill_id=created.id)
    assert (first.id, first.name, first.skill_id) == (
        created.latest_version_id,
        "weekly-report",
        created.id,
    )
    assert first.description == "Write the weekly report."

    second = await api.beta.skills.versions.create(
        created.id, files=upload("weekly-report", "Write the weekly report, shorter.")
    )
    assert second.id != first.id and second.name == "weekly-report"
    same = await api.beta.skills.versions.create(
        created.id, files=upload("weekly-report", "Write the weekly report, shorter.")
    )
    assert same.id == second.id  # nothing changed: no new version, the latest answered
    again = await api.beta.skills.retrieve(created.id)
    assert again.latest_version_id == second.id
    assert again.display_name == "Weekly report"
    by_id = await api.beta.skills.versions.retrieve(first.id, skill_id=created.id)
    assert by_id.description == "Write the weekly report."
    listed = [v.id async for v in api.beta.skills.versions.list(created.id)]
    assert listed == [first.id, second.id]
    seen = await graphql_skill(client, ws.tokens["admin"], "weekly-report")
    assert seen == {
        "name": "weekly-report",
        "version": 2,
        "description": "Write the weekly report, shorter.",
    }


async def test_an_sdk_upload_round_trips_byte_identical_through_export(sdk, ws, client):
    api = sdk(ws.tokens["admin"])
    sent = upload("tone-guide", files={"scripts/run.sh": SCRIPT, "references/tone.md": TONE})
    created = await api.beta.skills.create(files=sent)
    exported = await export(client, ws.tokens["admin"], ["tone-guide"])
    assert exported.status_code == 200
    assert files_of(exported.content) == {
        "tone-guide/SKILL.md": sent[0][1],
        "tone-guide/scripts/run.sh": SCRIPT,
        "tone-guide/references/tone.md": TONE,
    }
    downloaded = await api.beta.skills.versions.download(
        created.latest_version_id, skill_id=created.id
    )
    assert await downloaded.read() == exported.content


async def test_a_skill_pushed_like_the_cli_downloads_byte_identical(sdk, ws, client):
    pushed = folder("house-style", files={"scripts/lint.sh": (SCRIPT, 0o755)})
    imported = await send_import(client, ws.tokens["admin"], zip_of({"house-style": pushed}))
    assert imported.status_code == 200, imported.text
    api = sdk(ws.tokens["member"])
    (found,) = [s async for s in api.beta.skills.list()]
    latest = await api.beta.skills.versions.retrieve("latest", skill_id=found.id)
    downloaded = await api.beta.skills.versions.download(latest.id, skill_id=found.id)
    content = await downloaded.read()
    assert read_zip(content) == {"house-style": pushed}
    assert content == (await export(client, ws.tokens["member"], ["house-style"])).content


async def test_lists_are_followed_page_by_page_to_the_last(sdk, ws, client, sent: Sent):
    tree = {f"skill-{n}": folder(f"skill-{n}") for n in range(5)}
    assert (await send_import(client, ws.tokens["admin"], zip_of(tree))).status_code == 200
    api = sdk(ws.tokens["admin"])
    names = [s.display_name async for s in api.beta.skills.list(limit=2)]
    assert names == sorted(tree)
    assert sent.count("GET", "/v1/skills") == 3
    assert [s async for s in api.beta.skills.list(source="anthropic")] == []
    assert len([s async for s in api.beta.skills.list(source="custom", limit=1000)]) == 5
    skill_id = (await api.beta.skills.list(limit=1)).data[0].id
    for n in range(2):
        described = f"Do one useful thing, take {n + 2}."
        await api.beta.skills.versions.create(skill_id, files=upload("skill-0", described))
    versions = [v.description async for v in api.beta.skills.versions.list(skill_id, limit=2)]
    assert versions == [
        "Do one useful thing.",
        "Do one useful thing, take 2.",
        "Do one useful thing, take 3.",
    ]
    assert sent.count("GET", f"/v1/skills/{skill_id}/versions") == 2


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            [("evil/SKILL.md", skill_md("evil"), "text/markdown"), ("evil/../../x", b"x", "")],
            ["files[]/evil/../../x: has a '..' segment, which leaves its folder"],
        ),
        (
            [("no-body/notes.md", b"notes", "text/markdown")],
            ["The folder has no SKILL.md"],
        ),
        (
            [("Bad_Name/SKILL.md", skill_md("Bad_Name"), "text/markdown")],
            ["Bad_Name/name: The name must be lowercase."],
        ),
        (
            [("skill-creator/SKILL.md", skill_md("skill-creator"), "text/markdown")],
            ["skill-creator/name: ", "reserved"],
        ),
        (
            [("SKILL.md", skill_md("loose"), "text/markdown")],
            ["files[]/SKILL.md: is in no folder"],
        ),
    ],
)
async def test_a_refused_upload_lists_its_problems_and_writes_nothing(sdk, ws, files, expected):
    api = sdk(ws.tokens["admin"])
    with pytest.raises(anthropic.BadRequestError) as refused:
        await api.beta.skills.create(files=files, display_name="x" * 256)
    message = refused.value.message
    assert all(text in message for text in expected), message
    assert "display_name: one line of 1 to 255 characters" in message
    assert [s async for s in api.beta.skills.list()] == []


async def test_a_taken_name_and_another_name_for_a_version_are_refused(sdk, ws):
    api = sdk(ws.tokens["admin"])
    created = await api.beta.skills.create(files=upload("weekly-report"))
    with pytest.raises(anthropic.ConflictError) as taken:
        await api.beta.skills.create(files=upload("weekly-report"))
    # The SDK's BetaSkillNameTakenError: 409 with skill_name_taken, sent once.
    assert taken.value.status_code == 409
    assert taken.value.body["error"]["details"]["error_code"] == "skill_name_taken"
    assert "a skill already has this name" in taken.value.message
    assert taken.value.response.headers["x-should-retry"] == "false"
    with pytest.raises(anthropic.BadRequestError) as renamed:
        await api.beta.skills.versions.create(created.id, files=upload("monthly-report"))
    assert "the skill's name is fixed at creation (weekly-report)" in renamed.value.message
    listed = [v async for v in api.beta.skills.versions.list(created.id)]
    assert [v.id for v in listed] == [created.latest_version_id]


async def test_a_bad_token_is_refused_in_the_sdks_shape(sdk):
    with pytest.raises(anthropic.AuthenticationError):
        await sdk("smk_not_a_token").beta.skills.list()


async def test_another_workspaces_or_an_unreadable_skill_is_not_found(
    sdk, ws: Workspace, ws2: Workspace
):
    theirs = await sdk(ws2.tokens["admin"]).beta.skills.create(files=upload("their-skill"))
    api = sdk(ws.tokens["admin"])
    version = theirs.latest_version_id
    calls = [
        api.beta.skills.retrieve(theirs.id),
        api.beta.skills.delete(theirs.id),
        api.beta.skills.versions.list(theirs.id),
        api.beta.skills.versions.retrieve("latest", skill_id=theirs.id),
        api.beta.skills.versions.download(version, skill_id=theirs.id),
        api.beta.skills.versions.delete(version, skill_id=theirs.id),
        api.beta.skills.versions.create(theirs.id, files=upload("their-skill")),
    ]
    for call in calls:
        with pytest.raises(anthropic.NotFoundError):
            await call
    # The integration key reads companies only: a skill of its own workspace is missing to it.
    ours = await api.beta.skills.create(files=upload("our-skill"))
    with pytest.raises(anthropic.NotFoundError):
        await sdk(ws.tokens["api_key"]).beta.skills.retrieve(ours.id)
    with pytest.raises(anthropic.PermissionDeniedError):
        await sdk(ws.tokens["viewer"]).beta.skills.create(files=upload("viewer-skill"))


async def test_deletes_withdraw_an_older_version_keep_the_latest_and_remove_the_skill(
    sdk, ws, client
):
    api = sdk(ws.tokens["admin"])
    created = await api.beta.skills.create(files=upload("weekly-report"))
    first = created.latest_version_id
    second = await api.beta.skills.versions.create(
        created.id, files=upload("weekly-report", "Write it shorter.")
    )
    with pytest.raises(anthropic.BadRequestError) as latest:
        await api.beta.skills.versions.delete(second.id, skill_id=created.id)
    assert "the latest version is the skill's current content" in latest.value.message
    deleted = await api.beta.skills.versions.delete(first, skill_id=created.id)
    assert (deleted.id, deleted.type) == (first, "skill_version_deleted")
    assert [v.id async for v in api.beta.skills.versions.list(created.id)] == [second.id]
    with pytest.raises(anthropic.NotFoundError):
        await api.beta.skills.versions.retrieve(first, skill_id=created.id)
    gone = await api.beta.skills.delete(created.id)
    assert (gone.id, gone.type) == (created.id, "skill_deleted")
    with pytest.raises(anthropic.NotFoundError):
        await api.beta.skills.retrieve(created.id)
    assert await graphql_skill(client, ws.tokens["admin"], "weekly-report") is None
