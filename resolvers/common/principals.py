"""Who is asking: the principal a bearer token names, and how tokens are made."""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from uuid import UUID, uuid4

import asyncpg

from db import identity
from db.identity import PrincipalRow

TOKEN_PREFIX = "smk_"
TOKEN_BYTES = 32
# smk_ + 43 characters of url-safe base64 (32 random bytes).
TOKEN_SHAPE = re.compile(r"^smk_[A-Za-z0-9_-]{43}$")

PRINCIPAL_KINDS = ("member", "agent", "api_key", "mcp_client")


@dataclass(frozen=True, slots=True)
class Principal:
    """The caller of one request, resolved once at the edge."""

    row: PrincipalRow

    @property
    def workspace_id(self) -> UUID:
        return self.row.workspace_id

    @property
    def kind(self) -> str:
        return self.row.kind

    @property
    def person_id(self) -> UUID | None:
        """The person the request acts for (none for an API key)."""
        return self.row.member_id

    @property
    def is_own_session(self) -> bool:
        return self.row.kind == "member"

    @property
    def readable_objects(self) -> list[UUID]:
        return list(self.row.readable)

    def may(self, action: str, object_id: UUID) -> bool:
        """Whether the caller's role grants ``action`` (read, create, update, delete)."""
        rights = {
            "read": self.row.readable,
            "create": self.row.creatable,
            "update": self.row.updatable,
            "delete": self.row.deletable,
        }[action]
        return object_id in rights


def new_token() -> str:
    """A fresh random bearer token: shown once, stored only as its hash."""
    return TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


def well_formed(token: str) -> bool:
    """Whether ``token`` has the shape of a token this service issues."""
    return TOKEN_SHAPE.match(token) is not None


async def principal_for_token(conn: asyncpg.Connection, token: str) -> Principal | None:
    """Inside a transaction: the principal of a live token, now in force; None otherwise."""
    if not well_formed(token):
        return None
    row = await identity.begin_request(conn, token_hash(token))
    return Principal(row) if row else None


async def issue_token(
    conn: asyncpg.Connection,
    kind: str,
    *,
    member_id: UUID | None = None,
    agent_id: UUID | None = None,
    api_key_id: UUID | None = None,
    mcp_client_id: UUID | None = None,
    purpose: str = "cli",
) -> str:
    """Create a token for a principal in the transaction's workspace; return its text."""
    token = new_token()
    await identity.insert_token(
        conn,
        uuid4(),
        token_hash(token),
        kind,
        member_id=member_id,
        agent_id=agent_id,
        api_key_id=api_key_id,
        mcp_client_id=mcp_client_id,
        purpose=purpose,
    )
    return token
