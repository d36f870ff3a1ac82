"""The archive writers: deterministic, and refusing what the reader would refuse."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile

import pytest

from resolvers.skills.archive.members import ArchiveFile, ArchiveFolder
from resolvers.skills.archive.write import write_tar_gz, write_zip
from tests.skills.archive.archives import FOLDERS


def test_writers_are_deterministic():
    assert write_zip(FOLDERS) == write_zip(list(FOLDERS))
    assert write_tar_gz(FOLDERS) == write_tar_gz(list(FOLDERS))


def test_zip_is_written_sorted_with_unix_modes_and_a_fixed_time():
    with zipfile.ZipFile(io.BytesIO(write_zip(FOLDERS))) as archive:
        infos = archive.infolist()
    names = [info.filename for info in infos]
    assert names == sorted(names)
    assert all(info.date_time == (1980, 1, 1, 0, 0, 0) for info in infos)
    assert all(info.compress_type == zipfile.ZIP_DEFLATED for info in infos)
    assert all(info.create_system == 3 for info in infos)
    modes = {info.filename: info.external_attr >> 16 for info in infos}
    assert modes["data-tools/scripts/run.sh"] == stat.S_IFREG | 0o755
    assert modes["data-tools/SKILL.md"] == stat.S_IFREG | 0o644


def test_tar_gz_is_written_with_zero_times_and_owners():
    with tarfile.open(fileobj=io.BytesIO(write_tar_gz(FOLDERS)), mode="r:gz") as archive:
        members = archive.getmembers()
    assert [m.name for m in members] == sorted(m.name for m in members)
    assert {(m.mtime, m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, 0, "", "")}
    assert {m.name: m.mode for m in members}["pdf/tools/build.py"] == 0o755


@pytest.mark.parametrize(
    "folders",
    [
        [ArchiveFolder("a/b", {"x": ArchiveFile("x", b"", 0o644)})],
        [ArchiveFolder("a", {"../x": ArchiveFile("../x", b"", 0o644)})],
        [
            ArchiveFolder(
                "a", {"X": ArchiveFile("X", b"", 0o644), "x": ArchiveFile("x", b"", 0o644)}
            )
        ],
        [ArchiveFolder("a", {"x": ArchiveFile("y", b"", 0o644)})],
        [ArchiveFolder("a", {})],
        [ArchiveFolder("a", {"x": ArchiveFile("x", b"", 0o644)})] * 2,
    ],
)
def test_writers_refuse_what_the_reader_would_refuse(folders):
    with pytest.raises(ValueError):
        write_zip(folders)
    with pytest.raises(ValueError):
        write_tar_gz(folders)
