"""Persisted queries' rules without a server: the registry's bounds hold after any sequence of
registrations, any extension or manifest is read or refused (never raises), and If-None-Match
is read as RFC 9110 says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gateway.http.cacheable import etag_of, matches
from gateway.http.graphql_params import Params, Refusal, checked_params
from gateway.http.manifest import (
    MANIFEST_FORMAT,
    Manifest,
    ManifestError,
    read_manifest,
    sha256_hex,
)
from gateway.http.persisted import Denial, Registry, requested_hash
from tests.fuzzing import bounded

WORKSPACES = [UUID(int=1), UUID(int=2)]


@bounded(200)
@given(
    max_documents=st.integers(0, 5),
    max_chars=st.integers(0, 60),
    puts=st.lists(st.tuples(st.sampled_from(WORKSPACES), st.text(max_size=30)), max_size=30),
)
def test_the_bounds_hold_after_any_registrations(max_documents, max_chars, puts):
    registry = Registry(max_documents, max_chars)
    for workspace, text in puts:
        registry.put(workspace, sha256_hex(text), text)
        assert len(registry) <= max_documents
        assert registry.chars == sum(len(t) for t in registry.entries.values()) <= max_chars
    # The last text registered is kept whenever it fits at all.
    if puts and max_documents and len(puts[-1][1]) <= max_chars:
        workspace, text = puts[-1]
        assert registry.get(workspace, sha256_hex(text)) == text


def test_the_least_recently_used_goes_first():
    registry = Registry(2, 1_000)
    a, b, c = (sha256_hex(t) for t in "abc")
    registry.put(WORKSPACES[0], a, "a")
    registry.put(WORKSPACES[0], b, "b")
    assert registry.get(WORKSPACES[0], a) == "a"  # a used: b is now the oldest
    registry.put(WORKSPACES[0], c, "c")
    assert registry.get(WORKSPACES[0], b) is None
    assert registry.get(WORKSPACES[0], a) == "a"
    assert registry.get(WORKSPACES[0], c) == "c"


def test_a_workspace_finds_only_its_own():
    registry = Registry(10, 1_000)
    registry.put(WORKSPACES[0], sha256_hex("a"), "a")
    assert registry.get(WORKSPACES[1], sha256_hex("a")) is None


def test_if_none_match():
    etag = etag_of("application/json", b"{}")
    assert etag != etag_of("application/graphql-response+json", b"{}")
    assert etag != etag_of("application/json", b"{ }")
    assert matches(etag, etag)
    assert matches(f'"other", W/{etag}', etag)
    assert matches("*", etag)
    assert not matches(None, etag)
    assert not matches('"other"', etag)
    assert not matches(etag.strip('"'), etag)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=70),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3)
    ),
    max_leaves=8,
)
HASHES = st.from_regex(r"[0-9a-fA-F]{64}", fullmatch=True)
EXTENSIONS = st.one_of(
    JSON,
    st.dictionaries(st.just("persistedQuery"), JSON),
    st.fixed_dictionaries(
        {"persistedQuery": st.fixed_dictionaries({"version": JSON, "sha256Hash": HASHES | JSON})}
    ),
)


@bounded(300)
@given(extensions=EXTENSIONS)
def test_any_extension_is_read_or_refused_with_its_code(extensions: Any) -> None:
    found = requested_hash(extensions if isinstance(extensions, dict) else None)
    if isinstance(found, Denial):
        assert found.status == 400
        assert [e["extensions"]["code"] for e in found.body["errors"]] == ["GRAPHQL_PARSE_FAILED"]
    elif found is not None:
        assert found == found.lower() and len(found) == 64


@bounded(300)
@given(query=st.none() | st.text(max_size=20) | JSON, extensions=EXTENSIONS)
def test_any_request_shape_is_params_or_a_refusal(query: Any, extensions: Any) -> None:
    try:
        params = checked_params({"query": query, "extensions": extensions})
    except Refusal as refusal:
        assert refusal.status == 400
        return
    assert isinstance(params, Params)
    assert params.query.strip() or extensions.get("persistedQuery") is not None


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("manifests")


BODIES = st.sampled_from(["{ me { name } }", "query Q { me { name } }", "{ me", ""]) | st.text(
    max_size=20
)
OPERATIONS = st.one_of(
    st.fixed_dictionaries({"id": HASHES | JSON, "body": BODIES | JSON, "type": JSON, "name": JSON}),
    BODIES.map(lambda body: {"id": sha256_hex(body), "body": body, "type": "query", "name": "Q"}),
)


@bounded(150)
@given(
    operations=st.lists(OPERATIONS, max_size=3) | JSON,
    header=st.fixed_dictionaries(
        {"format": st.just(MANIFEST_FORMAT) | JSON, "version": st.just(1) | JSON}
    ),
)
def test_any_manifest_is_read_or_refused(folder: Path, operations: Any, header: Any) -> None:
    path = folder / "manifest.json"
    path.write_text(json.dumps({**header, "operations": operations}))
    try:
        found = read_manifest(path)
    except ManifestError as error:
        assert str(error).startswith(str(path))
        return
    assert isinstance(found, Manifest)
    assert all(found.body(sha256_hex(body)) == body for body in found.bodies.values())
