"""The Agent Skills discovery index against a local fake site: the 0.2.0 index and its
artifacts (a SKILL.md, an archive) verified by digest and checked, the older index and its
files, a site without an index, an unknown schema, a tampered or hostile artifact."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

from resolvers.catalog.answers import SCHEMA_0_2
from resolvers.catalog.errors import CatalogError
from resolvers.catalog.wellknown import fetch_indexed, read_index
from tests.catalog.fakes import catalog_settings, skill_md
from tests.skills.archive.archives import make_tar, make_zip

INDEX = "/.well-known/agent-skills/index.json"
LEGACY = "/.well-known/skills/index.json"


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _entry(name: str, kind: str, url: str, data: bytes) -> dict[str, Any]:
    return {"name": name, "description": "d", "type": kind, "url": url, "digest": _digest(data)}


async def test_the_index_and_its_skill_md_are_read_and_checked(httpserver: HTTPServer):
    body = skill_md("pdf")
    index = {"$schema": SCHEMA_0_2, "skills": [_entry("pdf", "skill-md", "pdf/SKILL.md", body)]}
    httpserver.expect_request(INDEX).respond_with_json(index)
    httpserver.expect_request("/.well-known/agent-skills/pdf/SKILL.md").respond_with_data(body)
    settings = catalog_settings(httpserver)
    site = await read_index(settings, httpserver.url_for("/"))
    assert [s.name for s in site.index.skills] == ["pdf"]
    folder = await fetch_indexed(settings, site, "pdf")
    assert (folder.draft.name, sorted(folder.files)) == ("pdf", ["SKILL.md"])


async def test_an_archive_artifact_is_read_as_the_skill_folder(httpserver: HTTPServer):
    archive = make_tar(
        [("SKILL.md", skill_md("xlsx")), ("scripts/run.sh", b"echo\n")], compress=True
    )
    index = {
        "$schema": SCHEMA_0_2,
        "skills": [
            _entry("xlsx", "archive", "/files/xlsx.tar.gz", archive),
            {**_entry("odd", "plugin", "odd.bin", b""), "name": "odd"},
        ],
    }
    httpserver.expect_request(INDEX).respond_with_json(index)
    httpserver.expect_request("/files/xlsx.tar.gz").respond_with_data(archive)
    settings = catalog_settings(httpserver)
    site = await read_index(settings, httpserver.url_for("/"))
    folder = await fetch_indexed(settings, site, "xlsx")
    assert sorted(folder.files) == ["SKILL.md", "scripts/run.sh"]
    with pytest.raises(CatalogError) as caught:
        await fetch_indexed(settings, site, "odd")
    assert caught.value.reason == "not_found"


async def test_an_artifact_not_matching_its_digest_is_refused(httpserver: HTTPServer):
    index = {
        "$schema": SCHEMA_0_2,
        "skills": [_entry("pdf", "skill-md", "pdf.md", skill_md("pdf"))],
    }
    httpserver.expect_request(INDEX).respond_with_json(index)
    httpserver.expect_request("/.well-known/agent-skills/pdf.md").respond_with_data(
        skill_md("pdf", "Something else entirely.")
    )
    settings = catalog_settings(httpserver)
    site = await read_index(settings, httpserver.url_for("/"))
    with pytest.raises(CatalogError) as caught:
        await fetch_indexed(settings, site, "pdf")
    assert (caught.value.reason, caught.value.message) == (
        "refused",
        "the skill 'pdf' does not match its digest",
    )


async def test_a_hostile_archive_artifact_is_refused_with_its_problems(httpserver: HTTPServer):
    archive = make_zip([("SKILL.md", skill_md("pdf")), ("../../evil.sh", b"rm -rf /\n")])
    index = {"$schema": SCHEMA_0_2, "skills": [_entry("pdf", "archive", "pdf.zip", archive)]}
    httpserver.expect_request(INDEX).respond_with_json(index)
    httpserver.expect_request("/.well-known/agent-skills/pdf.zip").respond_with_data(archive)
    settings = catalog_settings(httpserver)
    site = await read_index(settings, httpserver.url_for("/"))
    with pytest.raises(CatalogError) as caught:
        await fetch_indexed(settings, site, "pdf")
    assert [(p.field, p.message) for p in caught.value.problems] == [
        ("archive/../../evil.sh", "has a '..' segment, which leaves its folder")
    ]


async def test_the_older_index_is_read_when_the_new_one_is_absent(httpserver: HTTPServer):
    index = {"skills": [{"name": "pdf", "description": "d", "files": ["SKILL.md", "ref/a.md"]}]}
    httpserver.expect_request(INDEX).respond_with_data("", status=404)
    httpserver.expect_request(LEGACY).respond_with_json(index)
    httpserver.expect_request("/.well-known/skills/pdf/SKILL.md").respond_with_data(skill_md("pdf"))
    httpserver.expect_request("/.well-known/skills/pdf/ref/a.md").respond_with_data("notes")
    settings = catalog_settings(httpserver)
    site = await read_index(settings, httpserver.url_for("/"))
    assert site.url.endswith(LEGACY)
    folder = await fetch_indexed(settings, site, "pdf")
    assert folder.files["ref/a.md"].content == b"notes"


async def test_an_older_index_naming_a_path_outside_its_folder_is_refused(
    httpserver: HTTPServer,
):
    index = {"skills": [{"name": "pdf", "description": "d", "files": ["SKILL.md", "../x"]}]}
    httpserver.expect_request(INDEX).respond_with_data("", status=404)
    httpserver.expect_request(LEGACY).respond_with_json(index)
    settings = catalog_settings(httpserver)
    site = await read_index(settings, httpserver.url_for("/"))
    with pytest.raises(CatalogError) as caught:
        await fetch_indexed(settings, site, "pdf")
    assert [(p.field, p.message) for p in caught.value.problems] == [
        ("files/../x", "has a '..' segment, which leaves its folder")
    ]


async def test_a_site_without_an_index_is_not_found(httpserver: HTTPServer):
    httpserver.expect_request(INDEX).respond_with_data("", status=404)
    httpserver.expect_request(LEGACY).respond_with_data("", status=404)
    with pytest.raises(CatalogError) as caught:
        await read_index(catalog_settings(httpserver), httpserver.url_for("/"))
    assert caught.value.reason == "not_found"


async def test_an_unknown_schema_is_refused(httpserver: HTTPServer):
    httpserver.expect_request(INDEX).respond_with_json(
        {"$schema": "https://example.com/other.json", "skills": []}
    )
    with pytest.raises(CatalogError) as caught:
        await read_index(catalog_settings(httpserver), httpserver.url_for("/"))
    assert caught.value.reason == "refused"
    assert [p.field for p in caught.value.problems] == ["$schema"]
