"""The input rules of memory stores (resolvers/stores/rules.py), without a database."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from resolvers.stores.rules import (
    MAX_CONTENT_BYTES,
    content_problems,
    description_problems,
    merge_metadata,
    name_problems,
    path_problems,
    prefix_problems,
)
from resolvers.stores.workspace import file_name


@pytest.mark.parametrize(
    "path",
    ["/a.md", "/notes/acme.md", "/" + "/".join(["s"] * 20), "/Été/ok.md", "/a\\b"],
)
def test_valid_paths(path):
    assert path_problems(path) == []


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("a.md", "starts with '/'"),
        ("/", "empty segment"),
        ("/notes/", "empty segment"),
        ("/a//b", "empty segment"),
        ("/a/./b", "'.' or '..'"),
        ("/a/../b", "'.' or '..'"),
        ("/" + "/".join(["s"] * 21), "20 segments"),
        ("/" + "é" * 512, "1024 bytes"),
        ("/a\x00b", "control"),
        ("/a\u202eb", "control"),
        ("/Cafe\u0301", "NFC"),
    ],
)
def test_invalid_paths(path, why):
    problems = path_problems(path)
    assert any(why in p.message for p in problems), problems
    assert all(p.field == "path" for p in problems)


def test_every_problem_of_a_path_is_listed():
    assert len(path_problems("a//../\x01")) == 4


def test_prefixes_end_in_a_slash_and_are_whole_segments():
    assert prefix_problems("/") == []
    assert prefix_problems("/notes/") == []
    assert prefix_problems("/notes")[0].message == "a path prefix ends with '/'"
    assert prefix_problems("/a//")[0].field == "path_prefix"


def test_content_is_at_most_102400_bytes_of_utf8():
    assert content_problems("é" * (MAX_CONTENT_BYTES // 2)) == []
    assert "102401 bytes" in content_problems("é" * (MAX_CONTENT_BYTES // 2) + "x")[0].message
    assert content_problems("\ud800")[0].message == "content is valid UTF-8 text"


def test_names_and_descriptions():
    assert name_problems("Notes") == []
    assert len(name_problems("")) == 1
    assert len(name_problems("a" * 256)) == 1
    assert len(name_problems("a\nb")) == 1
    assert description_problems("d" * 1024) == []
    assert len(description_problems("d" * 1025)) == 1


def test_metadata_merges_sets_removes_and_keeps():
    merged, problems = merge_metadata({"a": "1", "b": "2"}, {"a": "x", "b": None, "c": "3"})
    assert (merged, problems) == ({"a": "x", "c": "3"}, [])


def test_metadata_limits_are_each_listed():
    given_pairs = {f"k{i}": "v" for i in range(17)} | {"": "v", "long": "v" * 513, "k" * 65: "v"}
    _, problems = merge_metadata({}, given_pairs)
    messages = " | ".join(p.message for p in problems)
    assert "at most 16 pairs" in messages
    assert messages.count("1 to 64 characters") == 2
    assert "more than 512 characters" in messages


@given(st.text(min_size=0, max_size=40))
def test_a_page_name_is_always_one_valid_segment(name):
    segment = file_name(name)
    assert path_problems("/records/companies/" + segment) == []
