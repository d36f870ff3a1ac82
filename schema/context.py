"""The per-request context every resolver reads: principal, connection, loaders."""

from __future__ import annotations

from dataclasses import dataclass, field

import asyncpg

from resolvers.common.principals import Principal
from schema.loaders import Loaders, make_loaders


@dataclass(slots=True)
class Context:
    principal: Principal
    conn: asyncpg.Connection
    request_id: str
    loaders: Loaders = field(init=False)

    def __post_init__(self) -> None:
        # Made per request, never shared: a loader caches for its request only.
        self.loaders = make_loaders(
            self.conn, self.principal.readable_objects, self.principal.person_id
        )
