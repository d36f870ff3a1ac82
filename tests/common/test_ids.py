"""Global IDs and cursors: opaque, typed, bound to a workspace."""

import base64
from datetime import UTC, datetime, timedelta
from uuid import uuid4

import pytest
from hypothesis import given
from hypothesis import strategies as st

from resolvers.common import ids
from resolvers.common.errors import Code, DomainError
from resolvers.common.principals import new_token, token_hash, well_formed


@given(st.uuids(), st.uuids())
def test_a_global_id_round_trips(workspace, local):
    assert ids.decode(ids.encode("Record", workspace, local), "Record", workspace) == local


def _reference(raw: str) -> str:
    """The spelling every id and cursor has had: URL-safe base64 of the UTF-8, unpadded."""
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


@given(st.text(min_size=1, max_size=30).filter(lambda t: ":" not in t), st.uuids(), st.uuids())
def test_an_id_is_spelled_as_it_always_was(type_name, workspace, local):
    """The cached prefix of (type, workspace) changes no id, whatever the type name's length
    (its bytes modulo 3 decide what is cached) and the same pair asked again."""
    expected = _reference(f"{type_name}:{workspace.hex}:{local.hex}")
    for _ in range(2):
        assert ids.encode(type_name, workspace, local) == expected
        assert ids.encode_hex(type_name, workspace, local.hex) == expected


@given(st.uuids(), st.datetimes(timezones=st.just(UTC)), st.text(max_size=40))
def test_cursors_are_spelled_as_they_always_were(key, created_at, text):
    micros = (created_at - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
    assert ids.encode_cursor(key, created_at) == _reference(f"cursor:{key.hex}:{micros}")
    assert ids.encode_text_cursor(text) == _reference(f"after:{text}")


def test_another_type_or_workspace_is_not_found():
    workspace, local = uuid4(), uuid4()
    member_id = ids.encode("Member", workspace, local)
    with pytest.raises(DomainError) as wrong_type:
        ids.decode(member_id, "Record", workspace)
    assert wrong_type.value.code is Code.NOT_FOUND
    with pytest.raises(DomainError) as wrong_workspace:
        ids.decode(ids.encode("Record", uuid4(), local), "Record", workspace)
    assert wrong_workspace.value.code is Code.NOT_FOUND
    assert wrong_type.value.message == wrong_workspace.value.message


@pytest.mark.parametrize("garbage", ["", "x", "!!!!", "UmVjb3Jk", "a" * 200, "é"])
def test_a_malformed_id_is_a_validation_error(garbage):
    with pytest.raises(DomainError) as error:
        ids.decode(garbage, "Record", uuid4())
    assert error.value.code is Code.SCHEMA_VALIDATION_FAILED
    assert error.value.problems[0].field == "id"


@given(st.uuids(), st.datetimes(timezones=st.just(UTC)))
def test_a_cursor_round_trips(key, created_at):
    found = ids.decode_cursor(ids.encode_cursor(key, created_at))
    assert found == ids.Cursor(key, created_at)


@pytest.mark.parametrize("garbage", ["", "zzz", ids.encode("Record", uuid4(), uuid4())])
def test_a_malformed_cursor_is_a_validation_error(garbage):
    with pytest.raises(DomainError) as error:
        ids.decode_cursor(garbage)
    assert error.value.problems[0].field == "after"


def test_tokens_are_random_well_formed_and_stored_as_sha256():
    first, second = new_token(), new_token()
    assert first != second
    assert well_formed(first) and well_formed(second)
    assert len(token_hash(first)) == 64 and token_hash(first) != token_hash(second)
    assert not well_formed(first[:-1])
    assert not well_formed("Bearer " + first)


def test_a_node_has_one_spelling():
    workspace, local = uuid4(), uuid4()
    canonical = ids.encode("Record", workspace, local)
    for variant in (canonical + "==", canonical + "\n", canonical.replace("-", "+")):
        if variant == canonical:
            continue
        with pytest.raises(DomainError) as error:
            ids.decode(variant, "Record", workspace)
        assert error.value.code is Code.SCHEMA_VALIDATION_FAILED


def test_a_text_cursor_holding_nul_is_not_valid():
    """NUL is no text PostgreSQL can compare: such a cursor never reaches a query."""
    with pytest.raises(DomainError) as refused:
        ids.decode_text_cursor(ids.encode_text_cursor("a\x00b"))
    assert refused.value.code == Code.SCHEMA_VALIDATION_FAILED
    assert ids.decode_text_cursor(ids.encode_text_cursor("a-b")) == "a-b"
