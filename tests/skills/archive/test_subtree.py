"""One skill folder out of a larger archive: a repository's tree under one top-level folder."""

from __future__ import annotations

import tarfile

from resolvers.skills.archive.read import read_archive
from resolvers.skills.archive.subtree import Subtree
from tests.skills.archive.archives import make_tar, make_zip, refusal, tar_entry

REPO = [
    ("w/README.md", b"r"),
    ("w/skills/pdf/SKILL.md", b"p"),
    ("w/skills/pdf/scripts/a.py", b"a"),
    ("w/other/pdf/SKILL.md", b"deeper"),
    ("w/x/y/pdf/SKILL.md", b"deepest"),
]


def test_the_folder_at_a_path_is_read_alone_and_renamed():
    folders = read_archive(make_zip(REPO), subtree=Subtree("pdf", "skills/pdf", wrapped=True))
    assert [(f.name, sorted(f.files)) for f in folders] == [("pdf", ["SKILL.md", "scripts/a.py"])]


def test_a_folder_is_found_by_name_at_the_shallowest_depth_or_is_ambiguous():
    data = make_zip([e for e in REPO if not e[0].startswith("w/other")])
    folders = read_archive(data, subtree=Subtree("pdf", None, wrapped=True))
    assert folders[0].files["SKILL.md"].content == b"p"
    assert refusal(make_zip(REPO), subtree=Subtree("pdf", None, wrapped=True)) == [
        ("archive", "holds two folders named 'pdf': 'other/pdf' and 'skills/pdf'")
    ]


def test_a_link_outside_the_folder_is_left_alone_but_not_inside():
    outside = tar_entry("w/docs/link", tarfile.SYMTYPE, linkname="../README.md")
    inside = tar_entry("w/skills/pdf/link", tarfile.SYMTYPE, linkname="/etc/passwd")
    tree = [("w/skills/pdf/SKILL.md", b"p"), outside]
    assert read_archive(make_tar(tree), subtree=Subtree("pdf", "skills/pdf", wrapped=True))
    problems = refusal(
        make_tar([*tree, inside]),
        subtree=Subtree("pdf", "skills/pdf", wrapped=True),
    )
    assert [field for field, _ in problems] == ["archive/w/skills/pdf/link"]


def test_more_than_one_top_level_folder_is_refused_when_wrapped():
    data = make_zip([("a/SKILL.md", b"x"), ("b/SKILL.md", b"y")])
    assert refusal(data, subtree=Subtree("a", "", wrapped=True)) == [
        ("archive", "does not hold exactly one top-level folder")
    ]
