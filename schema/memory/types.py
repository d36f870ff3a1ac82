"""Memory: pages, souvenirs, versions, proposals, preferences and the workspace's settings."""

from __future__ import annotations

from datetime import date, datetime
from enum import Enum
from uuid import UUID

import strawberry

from db.memory import VersionRow
from db.memory_proposals import ProposalRow
from resolvers.common import ids
from resolvers.memory.reading import Page, ShownSouvenir, content_of, sha256
from resolvers.memory.settings import Allowances, Preference


@strawberry.enum
class SouvenirType(Enum):
    RELATION = "relation"
    CONTEXTE = "contexte"
    DECISION = "décision"
    CONSIGNE = "consigne"
    PREFERENCE = "préférence"


@strawberry.enum
class MemoryPageKind(Enum):
    MEMBER = "member"
    AGENT = "agent"
    ROUTINE = "routine"
    WORKSPACE = "workspace"
    RECORD = "record"


@strawberry.enum
class MemoryOperation(Enum):
    CREATED = "created"
    MODIFIED = "modified"
    DELETED = "deleted"
    RESTORED = "restored"


@strawberry.enum
class ProposalStatus(Enum):
    WAITING = "waiting"
    WRITTEN = "written"
    REFRESHED = "refreshed"
    REFUSED = "refused"
    NOT_READ = "not_read"


def _gid(type_name: str, workspace_id: UUID, local: UUID | None) -> strawberry.ID | None:
    return strawberry.ID(ids.encode(type_name, workspace_id, local)) if local else None


@strawberry.type(description="One line of memory, as the caller sees it.")
class Souvenir:
    key: str = strawberry.field(description="Stable and opaque: deleteSouvenir takes it.")
    line: str = strawberry.field(description="The line as the caller sees it.")
    text: str = strawberry.field(description="What was said.")
    type: SouvenirType
    source: str | None = strawberry.field(
        description="record:<id> or conversation:<member id> when the caller can open it;"
        ' otherwise its kind, owner and day ("mail from Bob, 2026-10-23"); null on a ✍ line.'
    )
    source_record_id: strawberry.ID | None = strawberry.field(
        description="The record it comes from, when the caller can open it."
    )
    author: str
    day: date
    until: date | None = strawberry.field(description="The day it stops holding (jusqu'au).")
    review: date | None = strawberry.field(description="A contexte's review day (revoir).")
    human: bool = strawberry.field(description="Written or corrected by a person (✍).")
    about_record_id: strawberry.ID | None = strawberry.field(
        description="On the caller's own profile: the record it is about."
    )

    @classmethod
    def from_row(cls, shown: ShownSouvenir, workspace_id: UUID) -> Souvenir:
        s = shown.souvenir
        assert s.author is not None and s.day is not None
        return cls(
            key=shown.key,
            line=shown.line,
            text=s.text,
            type=SouvenirType(s.type),
            source=s.source,
            source_record_id=_gid("Record", workspace_id, shown.source_record_id),
            author=s.author,
            day=s.day,
            until=s.until,
            review=s.review,
            human=s.human,
            about_record_id=_gid("Record", workspace_id, shown.about_record_id),
        )


@strawberry.type(description="A profile or a record's page of souvenirs.")
class MemoryPage:
    id: strawberry.ID
    kind: MemoryPageKind = strawberry.field(description="What the page is about.")
    about_id: strawberry.ID | None = strawberry.field(
        description="The member, agent, routine or record it is about (none for the workspace)."
    )
    name: str
    description: str
    content: str = strawberry.field(description="The souvenirs as the caller sees them.")
    content_sha256: str = strawberry.field(
        description="The sha256 of `content`: pass it as editMemoryPage's baseSha256."
    )
    souvenirs: list[Souvenir]
    version: int
    trashed: bool
    can_edit: bool = strawberry.field(description="Whether the caller may edit it.")
    lines_only_deletable: bool = strawberry.field(
        description="Its record is now a satellite: its lines can only be deleted."
    )
    mission: str | None = strawberry.field(
        description="The workspace profile's ## Mission mémoire section."
    )
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_row(cls, page: Page, workspace_id: UUID) -> MemoryPage:
        row = page.row
        about = row.member_id or row.agent_id or row.routine_id or row.subject_id
        about_type = {"member": "Member", "agent": "Agent", "routine": "Routine"}.get(
            row.about_kind, "Record"
        )
        return cls(
            id=strawberry.ID(ids.encode("MemoryPage", workspace_id, row.id)),
            kind=MemoryPageKind(row.about_kind),
            about_id=_gid(about_type, workspace_id, about),
            name=row.name,
            description=row.description,
            content=page.content,
            content_sha256=page.content_sha256,
            souvenirs=[Souvenir.from_row(s, workspace_id) for s in page.souvenirs],
            version=row.version,
            trashed=row.trashed_at is not None,
            can_edit=page.can_edit,
            lines_only_deletable=page.lines_only_deletable,
            mission=page.mission,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )


@strawberry.type(description="An immutable version of a page: who, when, from which session.")
class MemoryVersion:
    id: strawberry.ID
    page_id: strawberry.ID
    number: int
    operation: MemoryOperation
    actor_kind: str
    actor_name: str
    session_id: strawberry.ID | None = strawberry.field(
        description="The token (session) the change came from."
    )
    rolled_back_from: int | None = strawberry.field(description="The version it wrote back.")
    content: str | None = strawberry.field(
        description="The content it left, as the caller sees it; null once redacted."
    )
    content_sha256: str | None
    redacted: bool
    redacted_at: datetime | None
    created_at: datetime

    @classmethod
    def from_row(cls, row: VersionRow, workspace_id: UUID) -> MemoryVersion:
        content = content_of(row.lines, workspace_id) if row.lines is not None else None
        return cls(
            id=strawberry.ID(ids.encode("MemoryVersion", workspace_id, row.id)),
            page_id=strawberry.ID(ids.encode("MemoryPage", workspace_id, row.page_id)),
            number=row.number,
            operation=MemoryOperation(row.operation),
            actor_kind=row.actor_kind,
            actor_name=row.actor_name,
            session_id=_gid("Session", workspace_id, row.session_id),
            rolled_back_from=row.rolled_back_from,
            content=content,
            content_sha256=sha256(content) if content is not None else None,
            redacted=row.redacted_at is not None,
            redacted_at=row.redacted_at,
            created_at=row.created_at,
        )


@strawberry.type(description="A learning proposed for the Dreamer, with its verdict once read.")
class MemoryProposal:
    id: strawberry.ID
    text: str
    record_id: strawberry.ID | None
    on_behalf_of_id: strawberry.ID | None = strawberry.field(
        description="The member the proposal is made for."
    )
    proposer_name: str
    status: ProposalStatus = strawberry.field(
        description="WAITING for a pass; WRITTEN, REFRESHED or REFUSED once read; NOT_READ when"
        " never to be read (its conversation's agent read another conversation)."
    )
    verdict: str | None = strawberry.field(
        description="Set with the status by the Dreamer's pass (a refusal's reason); NOT_READ: why."
    )
    created_at: datetime
    decided_at: datetime | None

    @classmethod
    def from_row(cls, row: ProposalRow, workspace_id: UUID) -> MemoryProposal:
        return cls(
            id=strawberry.ID(ids.encode("MemoryProposal", workspace_id, row.id)),
            text=row.text,
            record_id=_gid("Record", workspace_id, row.record_id),
            on_behalf_of_id=_gid("Member", workspace_id, row.on_behalf_of),
            proposer_name=row.proposer_name,
            status=ProposalStatus(row.status),
            verdict=row.verdict,
            created_at=row.created_at,
            decided_at=row.decided_at,
        )


@strawberry.type(description="A person's memory preferences (both on by default).")
class MemoryPreferences:
    share_with_team: bool
    learn_from_email: bool
    share_with_team_on_since: datetime | None = strawberry.field(
        description="When sharing was last turned on."
    )
    learn_from_email_on_since: datetime | None = strawberry.field(
        description="When learning from mail was last turned on (never turned off: when the"
        " member joined). Once it was turned off, mail received before this is never read."
    )

    @classmethod
    def from_row(cls, found: list[Preference]) -> MemoryPreferences:
        by_key = {p.key: p for p in found}
        share, mail = by_key["memory.shareWithTeam"], by_key["memory.learnFromEmail"]
        return cls(
            share_with_team=share.value,
            learn_from_email=mail.value,
            share_with_team_on_since=share.on_since,
            learn_from_email_on_since=mail.on_since,
        )


@strawberry.type(description="The workspace's settings.")
class TenantSettings:
    memory_person_monthly_limit_usd: str | None = strawberry.field(
        description="Each person's monthly memory allowance in USD; null: the default."
    )
    memory_tenant_monthly_limit_usd: str | None = strawberry.field(
        description="The workspace's own monthly memory allowance in USD; null: the default."
    )
    effective_person_monthly_limit_usd: str
    effective_tenant_monthly_limit_usd: str
    ai_credits: bool = strawberry.field(
        description="Whether the workspace has AI credits: without them memory reads nothing."
    )

    @classmethod
    def from_row(cls, found: Allowances) -> TenantSettings:
        return cls(
            memory_person_monthly_limit_usd=found.person,
            memory_tenant_monthly_limit_usd=found.tenant,
            effective_person_monthly_limit_usd=found.person_effective,
            effective_tenant_monthly_limit_usd=found.tenant_effective,
            ai_credits=found.ai_credits,
        )
