"""The root schema, assembled from each domain's fields."""

from __future__ import annotations

import strawberry
from strawberry.schema.config import StrawberryConfig

from schema.agents.mutations import AgentsMutation
from schema.agents.queries import AgentsQuery
from schema.cards.conversations import ConversationsMutation, ConversationsQuery
from schema.cards.mutations import CardsMutation
from schema.cards.queries import CardsQuery
from schema.catalog.mutations import CatalogMutation
from schema.catalog.queries import CatalogQuery
from schema.direct import use_direct_resolvers
from schema.dreamer.mutations import DreamerMutation
from schema.dreamer.queries import DreamerQuery
from schema.identity.mutations import IdentityMutation
from schema.identity.queries import IdentityQuery
from schema.mail.mutations import MailMutation
from schema.memory.mutations import MemoryMutation
from schema.memory.queries import MemoryQuery
from schema.memory.subscriptions import Subscription
from schema.records.mutations import RecordsMutation
from schema.records.queries import RecordsQuery
from schema.search.queries import SearchQuery
from schema.skills.mutations import SkillsMutation
from schema.skills.queries import SkillsQuery


@strawberry.type
class Query(
    IdentityQuery,
    RecordsQuery,
    SkillsQuery,
    MemoryQuery,
    DreamerQuery,
    CardsQuery,
    ConversationsQuery,
    SearchQuery,
    AgentsQuery,
    CatalogQuery,
):
    pass


@strawberry.type
class Mutation(
    IdentityMutation,
    RecordsMutation,
    SkillsMutation,
    MemoryMutation,
    DreamerMutation,
    MailMutation,
    CardsMutation,
    ConversationsMutation,
    AgentsMutation,
    CatalogMutation,
):
    pass


schema = strawberry.Schema(
    query=Query,
    mutation=Mutation,
    subscription=Subscription,
    config=StrawberryConfig(auto_camel_case=True),
)

# Strawberry's exception handlers (none here) would need its own resolvers.
assert not schema.schema_converter._exception_handler_specs
use_direct_resolvers(schema._schema, schema.config, schema.schema_converter.scalar_registry)
