"""Writing skill folders as deterministic zip and tar.gz archives that ``read_archive`` reads
back to the same folders, files and modes."""

from __future__ import annotations

import gzip
import io
import stat
import tarfile
import zipfile

from resolvers.skills.archive.layout import layout_problems, path_problem
from resolvers.skills.archive.members import ArchiveFile, ArchiveFolder, Member
from resolvers.skills.archive.problems import member_problem

_EPOCH_1980 = (1980, 1, 1, 0, 0, 0)


def entries_to_write(folders: list[ArchiveFolder]) -> list[tuple[str, ArchiveFile]]:
    """Every file as (archive name, file), sorted; ValueError when read_archive would refuse
    the names."""
    members: list[Member] = []
    names = [folder.name for folder in folders]
    for folder in folders:
        if "/" in folder.name or names.count(folder.name) > 1 or not folder.files:
            raise ValueError(f"folder {folder.name!r}: a slash in its name, twice, or no file")
        for path, file in folder.files.items():
            if path != file.path:
                raise ValueError(f"file {file.path!r} is filed under {path!r}")
            name = f"{folder.name}/{path}"
            members.append(Member(name, name, "file", len(file.content), file.mode))
    problems = [
        member_problem(m.name, reason)
        for m in members
        if (reason := path_problem(m.path)) is not None
    ]
    problems.extend(layout_problems(members))
    if problems:
        raise ValueError("; ".join(f"{p.field}: {p.message}" for p in problems))
    by_name = {
        f"{folder.name}/{path}": file for folder in folders for path, file in folder.files.items()
    }
    return sorted(by_name.items())


def write_zip(folders: list[ArchiveFolder]) -> bytes:
    """A deterministic zip of the folders: sorted paths, fixed times, deflate, Unix modes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, file in entries_to_write(folders):
            info = zipfile.ZipInfo(name, date_time=_EPOCH_1980)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = (stat.S_IFREG | (file.mode & 0o777)) << 16
            archive.writestr(info, file.content)
    return buffer.getvalue()


def write_tar_gz(folders: list[ArchiveFolder]) -> bytes:
    """A deterministic tar.gz of the folders: sorted paths, time 0, owner 0 with no names."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:", format=tarfile.PAX_FORMAT) as archive:
        for name, file in entries_to_write(folders):
            info = tarfile.TarInfo(name)
            info.size = len(file.content)
            info.mode = file.mode & 0o777
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            archive.addfile(info, io.BytesIO(file.content))
    return gzip.compress(buffer.getvalue(), mtime=0)
