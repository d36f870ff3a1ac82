"""The per-request context every resolver reads: principal, connection, loaders."""

from __future__ import annotations

from dataclasses import dataclass, field

import asyncpg

from db.events import Listener
from resolvers.catalog.settings import CatalogSettings
from resolvers.common.principals import Principal
from schema.loaders import Loaders, make_loaders


@dataclass(slots=True)
class Context:
    principal: Principal
    conn: asyncpg.Connection
    request_id: str
    loaders: Loaders = field(init=False)
    # How the catalogue reaches its outside sources (the process's settings).
    catalog: CatalogSettings = field(default_factory=CatalogSettings)

    def __post_init__(self) -> None:
        # Made per request, never shared: a loader caches for its request only.
        self.loaders = make_loaders(
            self.conn, self.principal.readable_objects, self.principal.person_id
        )


@dataclass(slots=True)
class SubscriptionContext:
    """What a subscription's resolvers read: the connection's principal and token (resolved
    again for every event), the pool each event is read with, and the process's listener.
    ``connection_params`` is the connection_init payload (Strawberry sets it)."""

    pool: asyncpg.Pool
    events: Listener | None
    request_id: str
    connection_params: dict[str, object] = field(default_factory=dict)
    token: str = ""
    principal: Principal | None = None
