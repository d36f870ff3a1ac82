"""A request's connection and transaction, begun as its token's principal.

Without a principal cache, or on a miss: BEGIN, then ``app_begin_request`` (which sets the
role and the workspace and returns the principal). On a hit of the process's cache
(db/principal_cache.py): the same settings sent with BEGIN, one round trip, no statement of
their own. Either way the transaction commits when the block ends and rolls back when it
raises; the connection goes back to the pool.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import cast

import asyncpg

from db import identity
from db.begin import begun
from db.principal_cache import PrincipalCache
from gateway.observe.metrics import count_principal, lent
from resolvers.common.principals import Principal, principal_for_token, token_hash, well_formed

# A request waits at most this long for a connection, then answers DB_UNAVAILABLE.
ACQUIRE_TIMEOUT_SECONDS = 5.0


@contextlib.asynccontextmanager
async def request_transaction(
    pool: asyncpg.Pool,
    token: str,
    cache: PrincipalCache | None,
    readonly: bool = False,
    hashed: str | None = None,
) -> AsyncIterator[tuple[asyncpg.Connection, Principal | None]]:
    """The request's connection inside its transaction, and the token's principal (None: the
    token is not live, nothing was set); ``hashed`` is the token's hash when the caller has it
    already."""
    if hashed is None:
        hashed = token_hash(token) if well_formed(token) else None
    cached = cache.lookup(hashed) if cache is not None and hashed is not None else None
    epoch = cache.epoch() if cache is not None else None
    async with lent(pool, ACQUIRE_TIMEOUT_SECONDS) as proxy:
        # The pool lends a proxy that forwards every method to its connection.
        conn = cast(asyncpg.Connection, proxy)
        if cached is None:
            count_principal("off" if cache is None else "miss")
            async with conn.transaction(readonly=readonly):
                yield conn, await _resolve(conn, token, hashed, cache, epoch)
            return
        transaction = begun(conn, cached.prelude, readonly)
        async with transaction:
            if not transaction.stale:
                count_principal("hit")
                yield conn, Principal(cached.row)
                return
            count_principal("stale")
            assert cache is not None and hashed is not None
            cache.drop(hashed)
            yield conn, await _resolve(conn, token, hashed, cache, cache.epoch())


async def _resolve(
    conn: asyncpg.Connection,
    token: str,
    hashed: str | None,
    cache: PrincipalCache | None,
    epoch: int | None,
) -> Principal | None:
    """A miss: ``app_begin_request`` in the transaction; kept by the cache when one listens."""
    if cache is None or hashed is None:
        return await principal_for_token(conn, token)
    found = await identity.begin_request_generation(conn, hashed)
    if found is None:
        return None
    row, generation = found
    if generation is not None and epoch is not None:
        cache.store(hashed, row, generation, epoch)
    return Principal(row)
