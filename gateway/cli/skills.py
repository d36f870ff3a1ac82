"""Skills as folders on disk (what `skillmem skills pull|push` read and write), over the HTTP
API. A pull also writes DIR/AGENT_MEMORY.md, the catalog a harness agent reads
(``memory_file``)."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

from gateway.cli.client import Client, decode
from resolvers.skills.archive.limits import MAX_ARCHIVE_BYTES
from resolvers.skills.archive.members import ArchiveFile, ArchiveFolder
from resolvers.skills.archive.read import read_archive
from resolvers.skills.archive.write import write_zip
from resolvers.skills.fields import BUILT_IN_NAMES, name_problems
from resolvers.skills.memory_file import AGENT_MEMORY_FILE, CatalogLine, render_agent_memory

SKILL_FILES = ("SKILL.md", "skill.md")
PANEL_QUERY = "{ skillsPanel { name trigger dormant } }"


def read_folders(root: Path) -> tuple[list[ArchiveFolder], list[str]]:
    """Every skill folder under ``root`` (a folder holding SKILL.md), and what was skipped."""
    folders: list[ArchiveFolder] = []
    skipped: list[str] = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink()):
        if not any((folder / name).is_file() for name in SKILL_FILES):
            continue
        files: dict[str, ArchiveFile] = {}
        for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
            dirnames.sort()
            for filename in sorted(filenames):
                path = Path(dirpath) / filename
                relative = path.relative_to(folder).as_posix()
                info = path.lstat()
                if not stat.S_ISREG(info.st_mode):
                    skipped.append(f"{folder.name}/{relative}")
                    continue
                mode = 0o755 if info.st_mode & 0o111 else 0o644
                files[relative] = ArchiveFile(relative, path.read_bytes(), mode)
        folders.append(ArchiveFolder(folder.name, files))
    return folders, skipped


def unsafe_folders(root: Path, folders: list[ArchiveFolder]) -> list[str]:
    """Why some folders of an answer will not be written (a hostile or broken server): a name
    that is not a skill name, no SKILL.md, or a folder of DIR that is no skill."""
    refused = []
    for folder in folders:
        target = root / folder.name
        # A shipped skill added to the workspace is pulled like any other.
        if name_problems(folder.name, BUILT_IN_NAMES):
            refused.append(f"{folder.name!r} is not a skill name")
        elif not any(name in folder.files for name in SKILL_FILES):
            refused.append(f"{folder.name} holds no SKILL.md")
        elif target.is_symlink() or (
            target.exists()
            and not (target.is_dir() and any((target / n).is_file() for n in SKILL_FILES))
        ):
            refused.append(f"{target} exists and is not a skill folder: left alone")
    return refused


def write_folders(root: Path, folders: list[ArchiveFolder]) -> None:
    """Write each skill as ``root/<name>/``, replacing what that skill folder held (checked
    first with ``unsafe_folders``)."""
    root.mkdir(parents=True, exist_ok=True)
    for folder in folders:
        target = root / folder.name
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.exists():
            shutil.rmtree(target)
        for file in folder.files.values():
            path = target / file.path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(file.content)
            path.chmod(file.mode)


def push(root: Path, client: Client) -> tuple[int, dict[str, object], list[str]]:
    """Import every skill folder under ``root``; return the status, the answer, what was
    skipped (links and special files, which an import refuses)."""
    folders, skipped = read_folders(root)
    status, body = client.post(
        "/skills/import", write_zip(folders), "application/zip", MAX_ARCHIVE_BYTES
    )
    return status, decode(status, body), skipped


def panel(client: Client) -> list[CatalogLine]:
    """The skills panel's lines over GraphQL (a refusal is a Failure)."""
    data = client.graphql(PANEL_QUERY)
    return [
        CatalogLine(str(e["name"]), e["trigger"], bool(e["dormant"])) for e in data["skillsPanel"]
    ]


def write_agent_memory(root: Path, lines: list[CatalogLine]) -> None:
    """``root/AGENT_MEMORY.md``: one line per skill of the panel with a folder in ``root``."""
    present = [
        line
        for line in lines
        if not name_problems(line.name, BUILT_IN_NAMES)
        and any((root / line.name / n).is_file() for n in SKILL_FILES)
    ]
    (root / AGENT_MEMORY_FILE).write_text(render_agent_memory(present), encoding="utf-8")


def pull(
    root: Path, client: Client, names: list[str] | None
) -> tuple[int, list[str] | dict[str, object]]:
    """Write the caller's skills (or the named ones) under ``root``; return the status and the
    names written, or the error answered."""
    body = json.dumps({"names": names} if names else {}).encode()
    status, data = client.post("/skills/export", body, "application/json", MAX_ARCHIVE_BYTES)
    if status != 200:
        return status, decode(status, data)
    folders = read_archive(data)
    if names:
        folders = [f for f in folders if f.name in names]
    lines = panel(client)
    refused = unsafe_folders(root, folders)
    catalog = root / AGENT_MEMORY_FILE
    if catalog.is_symlink() or (catalog.exists() and not catalog.is_file()):
        refused.append(f"{catalog} exists and is not a file: left alone")
    if refused:
        return 0, {"error": {"message": "Nothing was written.", "problems": refused}}
    write_folders(root, folders)
    write_agent_memory(root, lines)
    return status, [folder.name for folder in folders]
