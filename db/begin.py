"""A request's transaction begun with its settings in the same round trip (issue 17, item 1).

asyncpg's ``Transaction`` sends ``BEGIN`` alone. ``Begun`` is that transaction (the same
commit, rollback and savepoints, the same state asyncpg keeps on the connection, so a nested
``conn.transaction()`` is a savepoint and the pool's release still rolls back what was left
open), whose start sends ``BEGIN [READ ONLY]; <prelude>`` as one simple-protocol query. The
prelude (db/principal_cache.py, one ``app_begin_cached`` call) sets the role and the workspace
and checks the cached principal is still fresh; when that check refuses it, the transaction is
rolled back and begun again plain, and ``stale`` tells the caller to resolve the token as on a
miss.

It reaches into asyncpg's ``Transaction`` (its ``start``, ``_connection``, ``_state``, the
connection's ``_top_xact`` and ``_protocol``): checked against asyncpg 0.30-0.32 by
tests/db/test_begin.py; see CONTRIBUTING.md, "When asyncpg is upgraded".
"""

from __future__ import annotations

from typing import Any

import asyncpg
from asyncpg.transaction import Transaction, TransactionState

from db.principal_cache import STALE


class Begun(Transaction):
    """A top-level transaction whose BEGIN carries ``prelude``."""

    __slots__ = ("_prelude", "stale")

    def __init__(self, connection: asyncpg.Connection, prelude: str, readonly: bool) -> None:
        super().__init__(connection, None, readonly, False)
        self._prelude = prelude
        self.stale = False

    async def start(self) -> None:
        # asyncpg's own attributes, which its stubs do not name.
        tx: Any = self
        con: Any = tx._connection
        con._check_open()
        if (
            tx._state is not TransactionState.NEW
            or con._top_xact is not None
            or con._protocol.is_in_transaction()
        ):
            raise asyncpg.InterfaceError("a request's transaction begins on an idle connection")
        con._top_xact = self
        begin = "BEGIN READ ONLY;" if tx._readonly else "BEGIN;"
        try:
            try:
                await con.execute(f"{begin} {self._prelude}")
            except asyncpg.PostgresError as error:
                if error.sqlstate != STALE:
                    raise
                await con.execute("ROLLBACK;")
                self.stale = True
                await con.execute(begin)
        except BaseException:
            tx._state = TransactionState.FAILED
            raise
        tx._state = TransactionState.STARTED


def begun(conn: asyncpg.Connection, prelude: str, readonly: bool = False) -> Begun:
    """The transaction of ``conn`` (a pool's proxy or a connection) begun with ``prelude``."""
    real = getattr(conn, "_con", None) or conn
    return Begun(real, prelude, readonly)
