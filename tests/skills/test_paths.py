"""The one path validator shared by archives and folders, and its case fold."""

from __future__ import annotations

import pytest

from resolvers.common.errors import DomainError
from resolvers.skills.archive.read import read_archive
from resolvers.skills.drive import file_path_problems
from resolvers.skills.paths import fold, path_faults
from tests.skills.archive.archives import make_zip


def test_the_fold_is_unicodes_canonical_caseless_match():
    assert fold("References/Guide.md") == fold("references/guide.md")
    assert fold("caf\u00e9.md") == fold("cafe\u0301.md")
    # Full case folding: ß is ss, but a compatibility form like ² stays apart from 2.
    assert fold("Stra\u00dfe.md") == fold("STRASSE.md")
    assert fold("x\u00b2.md") != fold("x2.md")


def test_an_archive_refuses_names_the_old_fold_kept_apart():
    # Long s folds to s; the old archive fold (casefold of NFC) left "s" + U+0301 decomposed
    # while "ś" stayed composed, so both names were accepted.
    data = make_zip([("s/SKILL.md", b"x"), ("s/\u015b.md", b"1"), ("s/\u017f\u0301.md", b"2")])
    with pytest.raises(DomainError) as caught:
        read_archive(data)
    assert [p.message for p in caught.value.problems] == ["differs only by case from 's/ś.md'"]


def test_a_folder_refuses_paths_the_old_fold_kept_apart():
    # U+1FF7 casefolds to omega, perispomeni and iota: the old folder fold (NFC of the casefold
    # of NFC) composed it back in another order than capital omega with the same marks.
    problems = file_path_problems(["\u1ff7.md", "\u03a9\u0342\u0345.md"])
    assert [p.message for p in problems] == [
        "The path differs from 'ῷ.md' only by case or Unicode normalisation: both would land "
        "at one place on disk."
    ]


def test_faults_are_found_once_for_both_formats():
    faults = path_faults("/a\\b/../c\x00//\u202e")
    assert faults.leading_slash and faults.backslash and faults.dot_dot and faults.empty_segment
    assert faults.bad_chars == ("\x00", "\u202e")
    assert faults.controls == ["\x00"]
