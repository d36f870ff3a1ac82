"""Who is asking and where: the principal, members, roles, the workspace."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

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
    row: strawberry.Private[MemberRow]
    workspace_id: strawberry.Private[object]

    @strawberry.field
    def id(self) -> strawberry.ID:
        return strawberry.ID(ids.encode("Member", self.workspace_id, self.row.id))  # type: ignore[arg-type]

    @strawberry.field
    def name(self) -> str:
        return self.row.name

    @strawberry.field
    def email(self) -> str:
        return self.row.email


@strawberry.type
class WorkspaceRights:
    update_settings: bool
    create_and_update_skills: bool


@strawberry.type
class Role:
    name: str
    rights: WorkspaceRights


@strawberry.type
class Me:
    """The caller: a person's own session, an agent acting for a person, an API key or an MCP
    client acting for a person."""

    row: strawberry.Private[PrincipalRow]

    @strawberry.field
    def kind(self) -> PrincipalKind:
        return PrincipalKind(self.row.kind)

    @strawberry.field(description="The agent, API key or MCP client's name; the person's own.")
    def name(self) -> str:
        return self.row.actor_name

    @strawberry.field(description="The person the request acts for (none for an API key).")
    def person(self) -> Member | None:
        if self.row.member_id is None:
            return None
        assert self.row.member_name is not None and self.row.member_email is not None
        member = MemberRow(
            self.row.member_id,
            self.row.member_name,
            self.row.member_email,
            self.row.role_id,
            datetime.min,
        )
        return Member(row=member, workspace_id=self.row.workspace_id)

    @strawberry.field
    def role(self) -> Role:
        return Role(
            name=self.row.role_name,
            rights=WorkspaceRights(
                update_settings=self.row.can_update_settings,
                create_and_update_skills=self.row.can_write_skills,
            ),
        )

    @strawberry.field
    def workspace(self) -> Workspace:
        return Workspace(
            row=WorkspaceRow(self.row.workspace_id, self.row.workspace_name, datetime.min)
        )


@strawberry.type
class Workspace:
    row: strawberry.Private[WorkspaceRow]

    @strawberry.field
    def id(self) -> strawberry.ID:
        return strawberry.ID(ids.encode("Workspace", self.row.workspace_id, self.row.workspace_id))

    @strawberry.field
    def name(self) -> str:
        return self.row.name
