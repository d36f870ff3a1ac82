"""What a learning from a private source may reach, and who may shape a shared page (DESIGN §5
"Sharing", "Who may shape a shared page"; seed 000 "Shared automatically"). Pure.

A shared page is any page but the item owner's own member profile: a record's page, an
agent's, a routine's or the workspace's profile (and another member's profile, which is never
written).
"""

from __future__ import annotations

from uuid import UUID

from resolvers.memory.dreamer.context import ItemContext, PageKey, PassContext, Permissions
from resolvers.memory.dreamer.reader import Candidate
from resolvers.memory.dreamer.refusals import Refusal
from resolvers.memory.dreamer.routing import Target, actor_of, member_of

# What a private source may tell a record's page with no one asked.
SHARED_TYPES = ("relation", "contexte", "décision")


def owns(page: PageKey, item: ItemContext) -> bool:
    """Whether the page is the item owner's own member profile (never restricted)."""
    return item.owner_member_id is not None and page == ("member", item.owner_member_id)


def shared(target: Target, candidate: Candidate, item: ItemContext) -> Target | Refusal:
    """Where a learning from a private source goes: a record's page only when it is a
    relation, a contexte or a décision, not sensitive, and its owner shares with the team;
    else the owner's own profile, with a reference to the record. Nothing sensitive leaves
    the private scope. A workspace source's learning is not restricted here."""
    if not item.private or owns(target.page, item):
        return target
    if candidate.sensitive is not None:
        return Refusal("sensitive_private_to_shared")
    kind, record_id = target.page
    if kind != "record" or (candidate.type in SHARED_TYPES and item.share_with_team):
        return target
    if item.owner_member_id is None:
        return Refusal("not_permitted")
    return Target(
        ("member", item.owner_member_id), record_label=target.record_label, reference=record_id
    )


def shaping_refusal(
    target: Target, candidate: Candidate, item: ItemContext, context: PassContext
) -> Refusal | None:
    """Why the learning may not shape its page (``not_permitted``), or None when it may.

    The owner's own profile is never restricted; a member's profile is otherwise written only
    from that member's own words in a workspace source. A shared page takes a member's own
    words when that member may update what it is about (a record they may update, an agent
    they may edit, the workspace's settings for a routine's or the workspace's profile). From
    a private source only the owner's own words reach one: a learning resting on anyone
    else's is never widened beyond what its source could read. From a workspace source an
    agent's (or a routine's) words reach only its own profile, an outsider's none.
    """
    page = target.page
    if owns(page, item):
        return None
    workspace_id = context.workspace_id
    member = member_of(candidate.stated_by, workspace_id)
    if page[0] == "member":
        allowed = not item.private and member is not None and page == ("member", member)
    elif member is not None and (not item.private or member == item.owner_member_id):
        allowed = may_shape(context.permissions.get(member, Permissions()), page)
    else:
        actor = actor_of(candidate.stated_by, workspace_id)
        allowed = not item.private and actor is not None and page == actor
    return None if allowed else Refusal("not_permitted")


def may_shape(permissions: Permissions, page: PageKey) -> bool:
    """Whether a member with these permissions may shape a shared page: a record's page when
    they may update the record, an agent's profile when they may edit the agent, a routine's
    or the workspace's profile when they may change the workspace's settings."""
    kind, about = page
    if kind == "record":
        return _held(about, permissions.records)
    if kind == "agent":
        return _held(about, permissions.agents)
    return kind in ("routine", "workspace") and permissions.workspace


def _held(about: UUID | None, granted: frozenset[UUID]) -> bool:
    return about is not None and about in granted
