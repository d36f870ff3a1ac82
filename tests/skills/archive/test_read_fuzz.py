"""The archive reader fuzzed (pure, in memory): any bytes, and real zips, tars and tar.gz with
bytes flipped, overwritten, inserted, removed or cut, give skill folders or a coded refusal
(SCHEMA_VALIDATION_FAILED, every problem under ``archive``), never another exception."""

from __future__ import annotations

import gzip
import tarfile

from hypothesis import given
from hypothesis import strategies as st

from resolvers.common.errors import Code, DomainError
from resolvers.skills.archive.members import ArchiveFolder
from resolvers.skills.archive.read import read_archive
from resolvers.skills.archive.write import write_tar_gz, write_zip
from tests.fuzzing import bounded, mostly
from tests.skills.archive.archives import FOLDERS, make_tar

TGZ = write_tar_gz(FOLDERS)
REAL = {
    "zip": write_zip(FOLDERS),
    "tar.gz": TGZ,
    "tar": gzip.decompress(TGZ),
    "pax tar": make_tar([("s/" + "é" * 120 + ".md", b"x")], format=tarfile.PAX_FORMAT),
    "gnu tar": make_tar([("s/" + "n" * 120 + ".md", b"x")], format=tarfile.GNU_FORMAT),
}
# What tells a format (its first bytes), to be followed by anything.
MAGIC = [b"PK\x03\x04", b"PK\x05\x06", b"\x1f\x8b\x08", b"BZh", b"\xfd7zXZ\x00", b""]
HINTS = st.sampled_from([{}, {"filename": "s.tar"}, {"content_type": "application/x-tar"}])


def read_or_refused(data: bytes, hints: dict[str, str]) -> list[ArchiveFolder] | None:
    """The folders, or None when refused with its code and problems; any other exception
    fails the test."""
    try:
        folders = read_archive(data, **hints)
    except DomainError as refused:
        assert refused.code == Code.SCHEMA_VALIDATION_FAILED, refused
        assert refused.message.startswith("The archive was refused: ")
        assert refused.problems
        assert all((p.field or "").startswith("archive") for p in refused.problems)
        return None
    assert all(isinstance(f, ArchiveFolder) and f.files for f in folders)
    return folders


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A real archive with a few bytes changed (flipped, overwritten, inserted, removed) or cut."""
    data = bytearray(REAL[draw(st.sampled_from(sorted(REAL)))])
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data) - 1))
        kind = draw(st.sampled_from(["flip", "overwrite", "insert", "remove", "cut"]))
        if kind == "flip":
            data[at] ^= draw(st.integers(1, 255))
        elif kind == "overwrite":
            chunk = draw(st.binary(min_size=1, max_size=8))
            data[at : at + len(chunk)] = chunk
        elif kind == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "remove":
            del data[at : at + draw(st.integers(1, 8))]
        else:
            del data[at:]
        if not data:
            break
    return bytes(data)


ANY_BYTES = st.one_of(
    st.binary(max_size=600),
    st.tuples(st.sampled_from(MAGIC), st.binary(max_size=600)).map(b"".join),
)


@bounded(200)
@given(mostly(mutated(), ANY_BYTES), HINTS)
def test_any_bytes_give_folders_or_a_coded_refusal(data, hints):
    read_or_refused(data, hints)


def test_the_corpus_is_read_whole_before_it_is_mutated():
    for name, data in REAL.items():
        assert read_or_refused(data, {"filename": "s.tar"}), name
