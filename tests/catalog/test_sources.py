"""The source fetcher against a local GitHub-style fake: a reference resolved to its commit,
that commit's archive read into a checked folder, hostile or huge archives refused with their
problems, a source that is gone reported as not found."""

from __future__ import annotations

import os
import tarfile

import pytest
from pytest_httpserver import HTTPServer

from resolvers.catalog.errors import CatalogError
from resolvers.catalog.refs import SourceRef, parse_source
from resolvers.catalog.sources import fetch_commit, fetch_source, resolve_commit
from resolvers.skills.archive.limits import MAX_FILE_BYTES
from tests.catalog.fakes import REPOSITORY, SHA, WRAPPER, catalog_settings, repository, skill_md
from tests.skills.archive.archives import Raw, make_tar, raw_zip, tar_entry

COMMITS = "/repos/acme/skills/commits"
TARBALL = f"/repos/acme/skills/tarball/{SHA}"


def _serve(server: HTTPServer, archive: bytes, ref: str = "HEAD") -> None:
    server.expect_request(f"{COMMITS}/{ref}").respond_with_json({"sha": SHA, "other": 1})
    server.expect_request(TARBALL).respond_with_data(archive, content_type="application/x-gzip")


async def test_a_reference_is_resolved_and_its_commit_read_into_a_checked_folder(
    httpserver: HTTPServer,
):
    _serve(httpserver, repository(REPOSITORY), ref="main")
    skill = await fetch_source(
        catalog_settings(httpserver), parse_source("acme/skills/skills/pdf@main")
    )
    assert (skill.commit, str(skill.source)) == (SHA, "acme/skills/skills/pdf@main")
    folder = skill.folder
    assert (folder.name, folder.draft.name) == ("pdf", "pdf")
    assert sorted(folder.files) == ["SKILL.md", "scripts/fill.py"]
    assert folder.skill_md == skill_md("pdf")


async def test_a_directory_result_finds_its_folder_by_name(httpserver: HTTPServer):
    _serve(httpserver, repository(REPOSITORY))
    skill = await fetch_source(catalog_settings(httpserver), parse_source("acme/skills"), "xlsx")
    assert skill.folder.draft.description == "Reads spreadsheets."
    assert sorted(skill.folder.files) == ["SKILL.md"]


async def test_the_commit_asked_for_is_the_one_fetched(httpserver: HTTPServer):
    httpserver.expect_request(TARBALL).respond_with_data(repository(REPOSITORY))
    source = parse_source("acme/skills/skills/pdf")
    skill = await fetch_commit(catalog_settings(httpserver), source, SHA)
    assert skill.commit == SHA
    assert [r.path for r, _ in httpserver.log] == [TARBALL]


async def test_a_source_not_found_is_reported_as_such(httpserver: HTTPServer):
    httpserver.expect_request(f"{COMMITS}/HEAD").respond_with_json(
        {"message": "Not Found"}, status=404
    )
    with pytest.raises(CatalogError) as caught:
        await resolve_commit(catalog_settings(httpserver), SourceRef("acme", "skills"))
    assert (caught.value.reason, caught.value.message) == (
        "not_found",
        "the source acme/skills was not found",
    )


async def test_a_malformed_commit_is_refused(httpserver: HTTPServer):
    httpserver.expect_request(f"{COMMITS}/HEAD").respond_with_json({"sha": "main"})
    with pytest.raises(CatalogError) as caught:
        await resolve_commit(catalog_settings(httpserver), SourceRef("acme", "skills"))
    assert caught.value.reason == "refused"
    assert [p.field for p in caught.value.problems] == ["sha"]


async def test_a_folder_that_is_not_there_is_refused(httpserver: HTTPServer):
    _serve(httpserver, repository(REPOSITORY))
    with pytest.raises(CatalogError) as caught:
        await fetch_source(catalog_settings(httpserver), parse_source("acme/skills/skills/docx"))
    assert [(p.field, p.message) for p in caught.value.problems] == [
        ("archive", "holds no file at 'skills/docx'")
    ]


async def test_a_folder_the_product_refuses_lists_every_problem(httpserver: HTTPServer):
    entries = [("pdf/SKILL.md", b"---\nname: word\n---\n")]
    _serve(httpserver, repository(entries))
    with pytest.raises(CatalogError) as caught:
        await fetch_source(catalog_settings(httpserver), parse_source("acme/skills/pdf"))
    error = caught.value
    assert error.reason == "refused"
    assert error.message == f"acme/skills/pdf at {SHA[:12]} is not a skill the product accepts"
    assert [(p.field, p.message) for p in error.problems] == [
        ("pdf/name", "The folder 'pdf' must be named like the skill 'word'."),
        ("pdf/description", "The frontmatter has no description."),
    ]


async def test_a_hostile_archive_is_refused_with_every_problem(httpserver: HTTPServer):
    hostile = make_tar(
        [
            (f"{WRAPPER}/pdf/SKILL.md", skill_md("pdf")),
            (f"{WRAPPER}/../../etc/cron.d/evil", b"* * * * * root sh\n"),
            tar_entry(f"{WRAPPER}/pdf/link", tarfile.SYMTYPE, linkname="/etc/passwd"),
        ],
        compress=True,
    )
    _serve(httpserver, hostile)
    with pytest.raises(CatalogError) as caught:
        await fetch_source(catalog_settings(httpserver), parse_source("acme/skills/pdf"))
    error = caught.value
    assert (error.reason, error.message) == (
        "refused",
        f"the archive of acme/skills at {SHA[:12]} was refused",
    )
    messages = [p.message for p in error.problems]
    assert "has a '..' segment, which leaves its folder" in messages
    assert any("link" in m for m in messages)


async def test_a_bomb_is_refused(httpserver: HTTPServer, zeros_300mb):
    stream, size, crc = zeros_300mb
    bomb = raw_zip(
        [Raw(f"{WRAPPER}/pdf/SKILL.md".encode(), stream, size, crc)],
    )
    _serve(httpserver, bomb)
    with pytest.raises(CatalogError) as caught:
        await fetch_source(catalog_settings(httpserver), parse_source("acme/skills/pdf"))
    assert caught.value.reason == "refused"
    assert [(p.field, p.message) for p in caught.value.problems] == [
        (
            f"archive/{WRAPPER}/pdf/SKILL.md",
            f"declares {size} bytes, more than the limit of {MAX_FILE_BYTES} per file",
        )
    ]


async def test_an_archive_over_the_cap_is_refused_unread(httpserver: HTTPServer):
    _serve(httpserver, repository([*REPOSITORY, ("big.bin", os.urandom(5_000))]))
    settings = catalog_settings(httpserver, max_archive_bytes=2_000)
    with pytest.raises(CatalogError) as caught:
        await fetch_source(settings, parse_source("acme/skills/skills/pdf"))
    assert (caught.value.reason, caught.value.message) == (
        "refused",
        f"the archive of acme/skills at {SHA[:12]} is more than the limit of 2000 bytes",
    )


def test_a_reference_is_parsed_or_refused_with_every_problem():
    assert parse_source("acme/skills") == SourceRef("acme", "skills", None, "HEAD")
    assert parse_source("acme/skills/a/b@v1.2") == SourceRef("acme", "skills", "a/b", "v1.2")
    with pytest.raises(CatalogError) as caught:
        parse_source("-acme/../x/..@a..b")
    assert [p.message for p in caught.value.problems] == [
        "'-acme' is not a repository owner",
        "'..' is not a repository name",
        "the folder inside the repository is not a plain path",
        "'a..b' is not a branch, tag or commit",
    ]


async def test_the_archive_redirect_is_followed_and_the_token_sent(httpserver: HTTPServer):
    settings = catalog_settings(httpserver, source_token="t0ken")
    bearer = {"Authorization": "Bearer t0ken"}
    httpserver.expect_request(f"{COMMITS}/v2", headers=bearer).respond_with_json({"sha": SHA})
    httpserver.expect_request(TARBALL, headers=bearer).respond_with_data(
        "", status=302, headers={"Location": "/codeload/acme/skills/legacy.tar.gz"}
    )
    httpserver.expect_request("/codeload/acme/skills/legacy.tar.gz").respond_with_data(
        repository(REPOSITORY)
    )
    skill = await fetch_source(settings, parse_source("acme/skills/skills/pdf@v2"))
    assert skill.folder.draft.name == "pdf"
