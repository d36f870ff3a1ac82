"""The catalogue's approvals (an agent's install or community search, decided by its person)
and the update check of a person's community skills."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Any
from uuid import UUID

import strawberry

from db.catalog_approvals import ApprovalRow
from resolvers.catalog import approvals, updates
from resolvers.common import ids
from schema.catalog.types import CatalogSearchHit, CatalogSideStatus
from schema.records.types import VISIBILITIES, Visibility
from schema.skills.types import Skill


@strawberry.enum(description="What an agent asks its person to approve.")
class CatalogApprovalKind(Enum):
    INSTALL = "install"
    SEARCH = "search"


@strawberry.enum(description="Where an approval stands; EXPIRED: past its time, undecided.")
class CatalogApprovalStatus(Enum):
    PENDING = "pending"
    APPROVED = "approved"
    DECLINED = "declined"
    EXPIRED = "expired"


@strawberry.type(description="What an install would do, as the person reads it before deciding.")
class InstallCard:
    source: str = strawberry.field(description="`shipped:<name>` or `owner/repo[/path][@ref]`.")
    shipped: bool
    name: str
    description: str | None
    repository: str | None
    path: str | None
    commit: str | None = strawberry.field(description="The commit pinned: exactly what lands.")
    visibility: Visibility
    who_will_see: str = strawberry.field(description="Who will see the skill, in words.")
    files: int = strawberry.field(description="How many files land, SKILL.md included.")
    scripts: list[str] = strawberry.field(description="Which of them are scripts.")
    any_script: bool

    @classmethod
    def from_card(cls, card: dict[str, Any]) -> InstallCard:
        return cls(
            source=card["source"],
            shipped=card["shipped"],
            name=card["name"],
            description=card.get("description"),
            repository=card.get("repository"),
            path=card.get("path"),
            commit=card.get("commit"),
            visibility=VISIBILITIES[card["visibility"]],
            who_will_see=card["whoWillSee"],
            files=card["files"],
            scripts=list(card["scripts"]),
            any_script=bool(card["scripts"]),
        )


@strawberry.type(description="What a community search would send, as the person reads it.")
class SearchCard:
    text: str = strawberry.field(description="What the agent asked.")
    sent: list[str] = strawberry.field(
        description="Exactly what would leave for the directory: the text, then its words."
    )


@strawberry.type(description="What an approved request did.")
class ApprovalOutcome:
    skill: str | None = strawberry.field(description="The skill installed (an install).")
    version: int | None
    community_status: CatalogSideStatus | None = strawberry.field(
        description="How the directory answered (a search)."
    )
    results: list[CatalogSearchHit] | None = strawberry.field(description="What it found.")

    @classmethod
    def from_outcome(cls, outcome: dict[str, Any]) -> ApprovalOutcome:
        status = outcome.get("communityStatus")
        found = outcome.get("results")
        return cls(
            skill=outcome.get("skill"),
            version=outcome.get("version"),
            community_status=CatalogSideStatus(status) if status else None,
            results=None if found is None else [CatalogSearchHit.from_dict(h) for h in found],
        )


@strawberry.type(
    description="An agent's install or community search, waiting for its person's decision."
)
class CatalogApproval:
    id: strawberry.ID
    kind: CatalogApprovalKind
    status: CatalogApprovalStatus
    agent_name: str = strawberry.field(description="The agent that asked.")
    install: InstallCard | None = strawberry.field(description="An install's card.")
    search: SearchCard | None = strawberry.field(description="A search's card.")
    outcome: ApprovalOutcome | None = strawberry.field(description="Once approved.")
    created_at: datetime
    expires_at: datetime = strawberry.field(description="Undecided by then: expired.")
    decided_at: datetime | None

    @classmethod
    def from_row(cls, row: ApprovalRow, workspace: UUID) -> CatalogApproval:
        card = row.card
        return cls(
            id=strawberry.ID(ids.encode(approvals.ID_TYPE, workspace, row.id)),
            kind=CatalogApprovalKind(row.kind),
            status=CatalogApprovalStatus(row.status),
            agent_name=row.agent_name,
            install=InstallCard.from_card(card) if row.kind == "install" else None,
            search=SearchCard(text=card["text"], sent=list(card["sent"]))
            if row.kind == "search"
            else None,
            outcome=ApprovalOutcome.from_outcome(row.outcome) if row.outcome else None,
            created_at=row.created_at,
            expires_at=row.expires_at,
            decided_at=row.decided_at,
        )


@strawberry.type(description="A copy from the catalogue: the skill added, or the approval asked.")
class CatalogCopy:
    skill: Skill | None = strawberry.field(description="Added at once (a person's copy).")
    approval: CatalogApproval | None = strawberry.field(
        description="Asked of the person the agent works for (an agent's copy)."
    )


@strawberry.enum(description="What a community skill's source offers now.")
class CatalogUpdateStatus(Enum):
    CURRENT = "current"
    UPDATE_AVAILABLE = "update_available"
    SOURCE_NOT_FOUND = "source_not_found"
    UNAVAILABLE = "unavailable"


@strawberry.type(description="One of the caller's community skills, checked against its source.")
class CatalogUpdate:
    skill: Skill
    repository: str
    path: str = strawberry.field(description='The folder in the repository ("" its root).')
    ref: str = strawberry.field(description="The ref followed (HEAD: the default branch).")
    installed_commit: str
    status: CatalogUpdateStatus
    latest_commit: str | None = strawberry.field(
        description="The commit the ref names now: what catalogUpdate installs."
    )
    changed_here: bool = strawberry.field(
        description="Changed here since its commit was installed: an update loses that."
    )
    warning: str | None = strawberry.field(
        description="Shown before updating a skill changed here (catalogUpdate needs confirm)."
    )

    @classmethod
    def from_check(cls, check: updates.UpdateCheck, workspace: UUID) -> CatalogUpdate:
        return cls(
            skill=Skill.from_row(check.skill, workspace),
            repository=check.source.repository,
            path=check.source.path or "",
            ref=check.source.ref,
            installed_commit=check.installed_commit,
            status=CatalogUpdateStatus(check.status),
            latest_commit=check.latest_commit,
            changed_here=check.changed_here,
            warning=check.warning,
        )
