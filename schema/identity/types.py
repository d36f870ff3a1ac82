"""Who is asking and where: the principal, members, roles, the workspace."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from uuid import UUID

import strawberry

from db.identity import MemberRow, PrincipalRow, WorkspaceRow
from resolvers.common import ids


@strawberry.enum
class PrincipalKind(Enum):
    MEMBER = "member"
    AGENT = "agent"
    API_KEY = "api_key"
    MCP_CLIENT = "mcp_client"


@strawberry.type
class Member:
    id: strawberry.ID
    name: str
    email: str

    @classmethod
    def from_row(cls, row: MemberRow, workspace_id: UUID) -> Member:
        return cls(
            id=strawberry.ID(ids.encode("Member", workspace_id, row.id)),
            name=row.name,
            email=row.email,
        )


@strawberry.type
class WorkspaceRights:
    update_settings: bool
    create_and_update_skills: bool


@strawberry.type
class Role:
    name: str
    rights: WorkspaceRights


@strawberry.type
class Workspace:
    id: strawberry.ID
    name: str

    @classmethod
    def from_row(cls, row: WorkspaceRow) -> Workspace:
        return cls(
            id=strawberry.ID(ids.encode("Workspace", row.workspace_id, row.workspace_id)),
            name=row.name,
        )


@strawberry.type
class Me:
    """The caller: a person's own session, an agent acting for a person, an API key or an MCP
    client acting for a person."""

    kind: PrincipalKind
    name: str = strawberry.field(
        description="The agent, API key or MCP client's name; the person's own."
    )
    person: Member | None = strawberry.field(
        description="The person the request acts for (none for an API key)."
    )
    role: Role
    workspace: Workspace

    @classmethod
    def from_row(cls, row: PrincipalRow) -> Me:
        return cls(
            kind=PrincipalKind(row.kind),
            name=row.actor_name,
            person=_person(row),
            role=Role(
                name=row.role_name,
                rights=WorkspaceRights(
                    update_settings=row.can_update_settings,
                    create_and_update_skills=row.can_write_skills,
                ),
            ),
            workspace=Workspace.from_row(
                WorkspaceRow(row.workspace_id, row.workspace_name, datetime.min)
            ),
        )


def _person(row: PrincipalRow) -> Member | None:
    """The person a principal acts for, as a member."""
    if row.member_id is None:
        return None
    assert row.member_name is not None and row.member_email is not None
    member = MemberRow(row.member_id, row.member_name, row.member_email, row.role_id, datetime.min)
    return Member.from_row(member, row.workspace_id)
