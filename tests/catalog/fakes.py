"""The catalogue's fake outside: settings pointing at a test's own HTTP server, and the bodies
that server answers (skills, repository archives)."""

from __future__ import annotations

from pytest_httpserver import HTTPServer

from resolvers.catalog.settings import CatalogSettings
from tests.skills.archive.archives import make_tar

SHA = "0123456789abcdef0123456789abcdef01234567"
WRAPPER = "acme-skills-0123456"


def catalog_settings(server: HTTPServer, **changes: object) -> CatalogSettings:
    """Both base URLs at ``server``, quick retries, a short timeout."""
    base = server.url_for("/").rstrip("/")
    values: dict[str, object] = {
        "directory_base_url": base,
        "source_base_url": base,
        "timeout": 2.0,
        "max_retries": 2,
        "backoff": 0.01,
    }
    values.update(changes)
    return CatalogSettings(**values)


def skill_md(name: str, description: str = "Reads PDF files and fills their forms.") -> bytes:
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nSteps.\n".encode()


def repository(entries: list[tuple[str, bytes]], *, wrapper: str = WRAPPER) -> bytes:
    """A repository's tar.gz as GitHub's tarball serves it: one top-level folder."""
    return make_tar([(f"{wrapper}/{path}", content) for path, content in entries], compress=True)


REPOSITORY = [
    ("README.md", b"# skills\n"),
    ("skills/pdf/SKILL.md", skill_md("pdf")),
    ("skills/pdf/scripts/fill.py", b"print('fill')\n"),
    ("skills/xlsx/SKILL.md", skill_md("xlsx", "Reads spreadsheets.")),
]
