"""Builders of archives for the archive tests: zips and tars written by hand or by the standard
library, and how a refusal reads."""

from __future__ import annotations

import gzip
import io
import os
import stat
import struct
import tarfile
import warnings
import zipfile
import zlib
from dataclasses import dataclass

import pytest

from resolvers.common.errors import Code, DomainError
from resolvers.skills.archive.members import ArchiveFile, ArchiveFolder
from resolvers.skills.archive.read import read_archive

ROOT_MESSAGE = (
    "is at the archive root: expected one folder per skill, like my-skill/SKILL.md and "
    "my-skill/scripts/run.sh"
)


def text(seed: int, size: int = 600) -> bytes:
    """Bytes that compress like prose (well under 100:1)."""
    return (os.urandom(size // 2).hex()[:size] + f"\n{seed}\n").encode()


def refusal(data: bytes, **hints: str) -> list[tuple[str | None, str]]:
    with pytest.raises(DomainError) as caught:
        read_archive(data, **hints)
    error = caught.value
    assert error.code == Code.SCHEMA_VALIDATION_FAILED
    assert error.message.startswith("The archive was refused: ")
    return [(problem.field, problem.message) for problem in error.problems]


def make_zip(entries: list[tuple[str, bytes]], **options: int) -> bytes:
    """A zip written by the standard library; ``options`` set on every ZipInfo."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names are written on purpose
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, content in entries:
                info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                info.create_system = 3
                info.external_attr = (stat.S_IFDIR | 0o755 if name.endswith("/") else 0) << 16
                if not name.endswith("/"):
                    info.external_attr = (stat.S_IFREG | 0o644) << 16
                for key, value in options.items():
                    setattr(info, key, value)
                archive.writestr(info, content)
    return buffer.getvalue()


@dataclass
class Raw:
    """One entry of a hand-built zip: every field the reader looks at can lie."""

    name: bytes
    payload: bytes  # as stored (compressed for method 8)
    size: int  # the uncompressed size declared
    crc: int
    method: int = 8
    flags: int = 0
    create_system: int = 3
    mode: int = stat.S_IFREG | 0o644
    offset: int | None = None  # the local header this entry points to (default: its own)


def deflate(data: bytes) -> bytes:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush()


def raw_entry(name: str, content: bytes, **changes: object) -> Raw:
    entry = Raw(name.encode(), deflate(content), len(content), zlib.crc32(content))
    for key, value in changes.items():
        setattr(entry, key, value)
    return entry


def raw_zip(entries: list[Raw]) -> bytes:
    local = io.BytesIO()
    offsets = []
    for entry in entries:
        offsets.append(local.tell())
        local.write(
            struct.pack(
                "<4sHHHHHIIIHH",
                b"PK\x03\x04",
                20,
                entry.flags,
                entry.method,
                0,
                33,
                entry.crc,
                len(entry.payload),
                entry.size,
                len(entry.name),
                0,
            )
        )
        local.write(entry.name + entry.payload)
    directory = io.BytesIO()
    for entry, offset in zip(entries, offsets, strict=True):
        directory.write(
            struct.pack(
                "<4sBBBBHHHHIIIHHHHHII",
                b"PK\x01\x02",
                20,
                entry.create_system,
                20,
                0,
                entry.flags,
                entry.method,
                0,
                33,
                entry.crc,
                len(entry.payload),
                entry.size,
                len(entry.name),
                0,
                0,
                0,
                0,
                entry.mode << 16,
                offset if entry.offset is None else entry.offset,
            )
        )
        directory.write(entry.name)
    start = local.tell()
    cd = directory.getvalue()
    end = struct.pack(
        "<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(cd), start, 0
    )
    return local.getvalue() + cd + end


def make_tar(
    entries: list[tarfile.TarInfo | tuple[str, bytes]], *, compress: bool = False, **kw: object
) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:", **kw) as archive:
        for entry in entries:
            if isinstance(entry, tarfile.TarInfo):
                archive.addfile(entry, io.BytesIO(b"\0" * max(entry.size, 0)))
            else:
                name, content = entry
                info = tarfile.TarInfo(name)
                info.size = len(content)
                info.mode = 0o644
                archive.addfile(info, io.BytesIO(content))
    data = buffer.getvalue()
    return gzip.compress(data, mtime=0) if compress else data


def tar_entry(name: str, kind: bytes, **changes: object) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    for key, value in changes.items():
        setattr(info, key, value)
    return info


FOLDERS = [
    ArchiveFolder(
        "data-tools",
        {
            "SKILL.md": ArchiveFile("SKILL.md", b"---\nname: data-tools\n---\nBody\n", 0o644),
            "reference/notes.md": ArchiveFile("reference/notes.md", text(1), 0o644),
            "scripts/run.sh": ArchiveFile("scripts/run.sh", b"#!/bin/sh\necho hi\n", 0o755),
        },
    ),
    ArchiveFolder(
        "pdf",
        {
            "SKILL.md": ArchiveFile("SKILL.md", b"---\nname: pdf\n---\n", 0o644),
            "assets/blob.bin": ArchiveFile("assets/blob.bin", os.urandom(70_000), 0o644),
            "assets/empty.txt": ArchiveFile("assets/empty.txt", b"", 0o644),
            "assets/inner.zip": ArchiveFile(
                "assets/inner.zip",
                make_zip([("x/../../evil", b"nested archives are files")]),
                0o644,
            ),
            "résumé/ünïcode ✓.md": ArchiveFile("résumé/ünïcode ✓.md", text(2), 0o644),
            "tools/build.py": ArchiveFile("tools/build.py", b"print('x')\n", 0o755),
        },
    ),
]


NUL_REFUSAL = [("archive/s/a\\x00b.md", "has a NUL character in its name")]
