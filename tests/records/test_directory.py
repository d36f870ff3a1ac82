"""The operators' directory (resolvers/records/directory.py): a workspace named by its UUID,
its GraphQL id or its name, a name two workspaces share refused with both ids; an API key
created with its role, every problem listed and nothing written."""

from __future__ import annotations

import uuid

import pytest

from db import identity
from db.pool import begin_workspace
from resolvers.common import ids
from resolvers.common.errors import Code, DomainError
from resolvers.records.directory import create_api_key, find_workspace, workspace_uuid
from tests.factories import make_workspace


def test_a_reference_is_a_uuid_a_workspace_graphql_id_or_a_name():
    ws = uuid.uuid4()
    assert workspace_uuid(str(ws)) == ws
    assert workspace_uuid(ids.encode("Workspace", ws, ws)) == ws
    # A record's id, a bent id and a plain name name no workspace by id.
    assert workspace_uuid(ids.encode("Record", ws, ws)) is None
    assert workspace_uuid(ids.encode("Workspace", ws, ws) + "A") is None
    assert workspace_uuid("Demo") is None


async def test_find_a_workspace_by_each_form_and_refuse_a_shared_name(pool):
    name = f"Directory {uuid.uuid4().hex[:8]}"
    first = await make_workspace(pool, name)
    async with pool.acquire() as conn:
        for reference in (str(first.id), ids.encode("Workspace", first.id, first.id), name):
            assert (await find_workspace(conn, reference)).workspace_id == first.id
        with pytest.raises(DomainError) as missing:
            await find_workspace(conn, "No such workspace anywhere")
        assert missing.value.code is Code.NOT_FOUND
    second = await make_workspace(pool, name)
    async with pool.acquire() as conn:
        with pytest.raises(DomainError) as shared:
            await find_workspace(conn, name)
    assert shared.value.code is Code.SCHEMA_VALIDATION_FAILED
    (problem,) = shared.value.problems
    assert str(first.id) in problem.message and str(second.id) in problem.message


async def test_an_api_key_is_created_with_its_role_or_refused_with_every_problem(pool, ws):
    async with pool.acquire() as conn, conn.transaction():
        key = await create_api_key(conn, ws.id, "directory-key", "viewer")
        assert key.name == "directory-key"
    async with pool.acquire() as conn:
        with pytest.raises(DomainError) as refused:
            async with conn.transaction():
                await create_api_key(conn, ws.id, "directory-key", "nope")
        assert refused.value.code is Code.SCHEMA_VALIDATION_FAILED
        assert [(p.field, p.message) for p in refused.value.problems] == [
            ("name", "an API key directory-key exists already"),
            ("role", "no role nope"),
        ]
        with pytest.raises(DomainError) as empty:
            async with conn.transaction():
                await create_api_key(conn, ws.id, " ", "viewer")
        assert [p.field for p in empty.value.problems] == ["name"]
        async with conn.transaction():
            await begin_workspace(conn, ws.id)
            stored = await identity.api_key_by_name(conn, "directory-key")
            assert stored is not None and stored.id == key.id
