"""Who is asking (DESIGN §2): every principal kind, revoked and bad tokens, tokens stored only
as their hash, and tokens that are random."""

from __future__ import annotations

import base64
import hashlib
import re

import asyncpg
import httpx
import pytest

from db.pool import begin_workspace
from gateway.app import create_app
from resolvers.common.principals import issue_token, new_token
from tests.factories import codes, gql

SHAPE = re.compile(r"^smk_[A-Za-z0-9_-]{43}$")
ME = "{ me { kind name person { name email } role { name } workspace { name } } }"

# token -> (kind, name, the person's email or None, role)
PRINCIPALS = {
    "admin": ("MEMBER", "Admin", "admin@acmecorp.example", "admin"),
    "member": ("MEMBER", "Member", "member@acmecorp.example", "member"),
    "viewer": ("MEMBER", "Viewer", "viewer@acmecorp.example", "viewer"),
    # The agent is owned by Admin but acts for Member: it takes Member's person and role.
    "agent": ("AGENT", "Scout", "member@acmecorp.example", "member"),
    "api_key": ("API_KEY", "sync", None, "integration"),
    "mcp_client": ("MCP_CLIENT", "Desktop", "member@acmecorp.example", "member"),
}


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("who", sorted(PRINCIPALS))
async def test_each_principal_kind_is_who_it_claims(client, ws, who):
    kind, name, email, role = PRINCIPALS[who]
    response = await gql(client, ws.tokens[who], ME)
    assert response.status_code == 200
    me = response.json()["data"]["me"]
    assert me["kind"] == kind
    assert me["name"] == name
    assert me["role"] == {"name": role}
    assert me["workspace"] == {"name": "Acmecorp"}
    if email is None:
        assert me["person"] is None
    else:
        assert me["person"]["email"] == email
        assert me["person"]["name"] == email.split("@")[0].title()


async def test_agent_acts_for_its_member_not_its_owner(client, ws):
    me = (await gql(client, ws.tokens["agent"], "{ me { kind name person { email } } }")).json()
    assert me == {
        "data": {
            "me": {"kind": "AGENT", "name": "Scout", "person": {"email": "member@acmecorp.example"}}
        }
    }
    rights = "{ me { role { rights { updateSettings createAndUpdateSkills } } } }"
    body = (await gql(client, ws.tokens["agent"], rights)).json()
    # Member's rights, not those of the agent's owner (an admin).
    assert body["data"]["me"]["role"]["rights"] == {
        "updateSettings": False,
        "createAndUpdateSkills": True,
    }


# token -> (actorKind in the change log, actorName, owner of a private record it creates)
WRITERS = {
    "admin": ("member", "Admin", "admin@acmecorp.example"),
    "agent": ("agent", "Scout", "member@acmecorp.example"),
    "api_key": ("api_key", "sync", None),
    "mcp_client": ("mcp_client", "Desktop", "member@acmecorp.example"),
}

CHANGED = (
    "query($id: ID!) { record(id: $id) { lastChange { actorKind actorName } owner { email } } }"
)


@pytest.mark.parametrize("who", sorted(WRITERS))
async def test_the_change_log_names_the_acting_principal(client, ws, who):
    actor_kind, actor_name, _ = WRITERS[who]
    response = await client.post(
        "/v1/records",
        json={"records": [{"object": "companies", "label": f"Made by {who}"}]},
        headers={"authorization": f"Bearer {ws.tokens[who]}"},
    )
    assert response.status_code == 200, response.text
    record_id = response.json()["records"][0]["id"]
    body = (await gql(client, ws.tokens["admin"], CHANGED, {"id": record_id})).json()
    assert body["data"]["record"] == {
        "lastChange": {"actorKind": actor_kind, "actorName": actor_name},
        "owner": None,
    }


@pytest.mark.parametrize("who", sorted(WRITERS))
async def test_a_private_record_belongs_to_the_person_acted_for(client, ws, who):
    _, _, owner = WRITERS[who]
    response = await client.post(
        "/v1/records",
        json={"records": [{"object": "companies", "label": "Mine", "visibility": "private"}]},
        headers={"authorization": f"Bearer {ws.tokens[who]}"},
    )
    if owner is None:
        # An API key acts for nobody: a private record needs an owner named explicitly.
        assert response.status_code == 400
        assert response.json()["error"]["problems"] == [
            {
                "message": "a private record needs an owner (a member's email)",
                "field": "owner",
                "line": 1,
            }
        ]
        return
    assert response.status_code == 200, response.text
    record_id = response.json()["records"][0]["id"]
    reader = "admin" if owner.startswith("admin") else "member"
    body = (await gql(client, ws.tokens[reader], CHANGED, {"id": record_id})).json()
    assert body["data"]["record"]["owner"] == {"email": owner}


@pytest.mark.parametrize("who", sorted(PRINCIPALS))
async def test_a_revoked_token_is_refused(client, ws, who):
    token = ws.tokens[who]
    revoked = await gql(client, token, "mutation { revokeCurrentToken }")
    assert revoked.json() == {"data": {"revokeCurrentToken": True}}
    response = await gql(client, token, ME)
    assert response.status_code == 401
    assert codes(response) == ["UNAUTHENTICATED"]
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert "data" not in response.json() or response.json()["data"] is None
    plain = await client.post(
        "/v1/records",
        json={"records": [{"object": "companies", "label": "Late"}]},
        headers={"authorization": f"Bearer {token}"},
    )
    assert plain.status_code == 401
    assert plain.json()["error"]["code"] == "UNAUTHENTICATED"
    # Only that token: the rest of the workspace still gets in.
    others = [t for name, t in ws.tokens.items() if name != who]
    for other in others:
        assert (await gql(client, other, "{ me { name } }")).status_code == 200


async def test_a_token_revoked_in_the_database_is_refused(client, dsn, ws):
    assert (await gql(client, ws.tokens["agent"], ME)).status_code == 200
    owner = await asyncpg.connect(dsn)
    try:
        done = await owner.execute(
            "UPDATE tokens SET revoked_at = now() WHERE workspace_id = $1 AND token_hash = $2",
            ws.id,
            sha256(ws.tokens["agent"]),
        )
    finally:
        await owner.close()
    assert done == "UPDATE 1"
    assert (await gql(client, ws.tokens["agent"], ME)).status_code == 401
    assert (await gql(client, ws.tokens["member"], ME)).status_code == 200


BAD_AUTHORIZATION = {
    "missing": None,
    "empty bearer": "Bearer ",
    "basic scheme": "Basic {token}",
    "no scheme": "{token}",
    "unknown token": "Bearer smk_" + "A" * 43,
    "short token": "Bearer smk_abc",
    "no prefix": "Bearer {bare}",
    "the stored hash": "Bearer {hash}",
    "token with a suffix": "Bearer {token}x",
    "token of the wrong case": "Bearer {upper}",
}


@pytest.mark.parametrize("case", sorted(BAD_AUTHORIZATION))
async def test_bad_credentials_answer_401(client, ws, case):
    token = ws.tokens["admin"]
    template = BAD_AUTHORIZATION[case]
    headers = {"content-type": "application/json"}
    if template is not None:
        headers["authorization"] = template.format(
            token=token, bare=token.removeprefix("smk_"), hash=sha256(token), upper=token.upper()
        )
    response = await client.post("/graphql", json={"query": ME}, headers=headers)
    assert response.status_code == 401
    assert codes(response) == ["UNAUTHENTICATED"]
    assert token not in response.text and sha256(token) not in response.text


async def test_two_authorization_headers_are_refused(client, ws):
    response = await client.post(
        "/graphql",
        json={"query": ME},
        headers=[
            ("content-type", "application/json"),
            ("authorization", f"Bearer {ws.tokens['admin']}"),
            ("authorization", f"Bearer {ws.tokens['viewer']}"),
        ],
    )
    assert response.status_code == 401


@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
async def test_the_scheme_is_case_insensitive(client, ws, scheme):
    response = await client.post(
        "/graphql",
        json={"query": "{ me { name } }"},
        headers={"authorization": f"{scheme} {ws.tokens['viewer']}"},
    )
    assert response.json() == {"data": {"me": {"name": "Viewer"}}}


async def test_tokens_are_stored_only_as_their_hash(dsn, ws, ws2):
    owner = await asyncpg.connect(dsn)
    try:
        rows = await owner.fetch(
            "SELECT kind, token_hash, t::text AS everything FROM tokens t WHERE workspace_id = $1",
            ws.id,
        )
        every_column = await owner.fetch("SELECT t::text AS everything FROM tokens t")
    finally:
        await owner.close()
    assert len(rows) == len(ws.tokens) == 7
    stored = {row["token_hash"] for row in rows}
    assert stored == {sha256(token) for token in ws.tokens.values()}
    assert sorted(row["kind"] for row in rows) == sorted(
        ["member"] * 4 + ["agent", "api_key", "mcp_client"]
    )
    dump = "\n".join(row["everything"] for row in every_column)
    for token in [*ws.tokens.values(), *ws2.tokens.values()]:
        assert token not in dump
        assert token.removeprefix("smk_") not in dump
        assert sha256(token) in dump


async def test_issued_tokens_are_random_and_well_shaped(client, pool, ws, ws2):
    async with pool.acquire() as conn, conn.transaction():
        await begin_workspace(conn, ws.id)
        first = await issue_token(conn, "member", member_id=ws.members["viewer"], purpose="test")
        second = await issue_token(conn, "member", member_id=ws.members["viewer"], purpose="test")
    assert first != second
    for token in (first, second):
        assert SHAPE.match(token), token
        assert len(base64.urlsafe_b64decode(token[4:] + "=")) == 32
        # Both are live and name the same person.
        body = (await gql(client, token, "{ me { name } }")).json()
        assert body == {"data": {"me": {"name": "Viewer"}}}
    every = [first, second, *ws.tokens.values(), *ws2.tokens.values()]
    assert all(SHAPE.match(t) for t in every)
    assert len(set(every)) == len(every)
    fresh = {new_token() for _ in range(200)}
    assert len(fresh) == 200
    # No shared stem: the 43 characters after the prefix vary in every position.
    for position in range(4, 47):
        assert len({t[position] for t in fresh}) > 1, position


async def test_a_token_must_name_a_member_of_its_own_workspace(pool, ws, ws2):
    """The token's foreign keys carry the workspace: a token of A cannot name B's member."""
    async with pool.acquire() as conn:
        with pytest.raises(asyncpg.ForeignKeyViolationError):
            async with conn.transaction():
                await begin_workspace(conn, ws.id)
                await issue_token(conn, "member", member_id=ws2.members["admin"], purpose="test")


@pytest.mark.parametrize("case", ["short token", "no prefix", "the stored hash"])
async def test_a_token_of_no_issued_shape_is_refused_without_the_database(settings, ws, case):
    """An app with no pool answers such a token 401: no connection was asked for; a token of
    the right shape needs one (503 here)."""
    token = ws.tokens["admin"]
    bad = BAD_AUTHORIZATION[case].format(
        token=token, bare=token.removeprefix("smk_"), hash=sha256(token), upper=token.upper()
    )
    transport = httpx.ASGITransport(app=create_app(settings))  # no lifespan run: no pool
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as bare:
        headers = {"content-type": "application/json", "authorization": bad}
        refused = await bare.post("/graphql", json={"query": ME}, headers=headers)
        headers["authorization"] = BAD_AUTHORIZATION["unknown token"]
        unknown = await bare.post("/graphql", json={"query": ME}, headers=headers)
    assert (refused.status_code, codes(refused)) == (401, ["UNAUTHENTICATED"])
    assert (unknown.status_code, codes(unknown)) == (503, ["DB_UNAVAILABLE"])
