"""A short-lived cache of the principals this process resolved (issue 17, item 1).

A request whose token was resolved here a moment ago does not run ``app_begin_request``: its
transaction's settings (the role, ``app.token_hash`` emptied, ``app.workspace_id``: exactly
what the function sets) go with its BEGIN in one round trip (db/begin.py), in one statement,
``app_begin_cached`` (migration 0041), which then raises unless the token (by its id) is still
live in that workspace and the workspace's principal counter has not moved since the entry
was read (the check of ``app_principal_fresh``, migration 0034). So a revocation, a role or a
right changed, is seen by every transaction that starts after it committed, whether the entry
was dropped yet or not; a stale entry only costs a miss.
``app_begin_request`` does nothing besides those settings and its answer (it stamps no
last use, writes nothing), so a hit leaves nothing out.

Entries are dropped when the database says their workspace changed (a NOTIFY on
``skillmem_principals`` from the same triggers that move the counter, heard on the process's
one LISTEN connection, db/events.py), after ``ttl`` seconds, and beyond ``size`` entries (the
least recently used first). While that connection is down, and for every entry read before it
last came back, nothing is served: a notification may have been missed.

Entries are keyed by the token's hash, which names one workspace (``token_workspaces``'
primary key, migration 0031); the entry keeps that workspace, and the freshness check reads
the token in that workspace only.
"""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from uuid import UUID

from db.events import Listener
from db.identity import PrincipalRow

CHANNEL = "skillmem_principals"
# app_begin_cached's refusal (migration 0041; app_principal_fresh's before, migration 0034).
STALE = "SMC01"
TOKEN_HASH = re.compile(r"[0-9a-f]{64}")


def prelude(workspace_id: UUID, token_id: UUID, generation: int) -> str:
    """The statement sent after BEGIN for a cached principal: literals of two UUIDs and an
    integer only, each checked here; no text from a request reaches it (nor the token's hash:
    statement text shows in logs and traces)."""
    if not isinstance(workspace_id, UUID) or not isinstance(token_id, UUID):
        raise ValueError("a cached principal needs its workspace's and its token's ids")
    return f"SELECT app_begin_cached('{workspace_id}', '{token_id}', {int(generation)});"


@dataclass(frozen=True, slots=True)
class Cached:
    """One resolved principal, the statements that set its transaction up, and when it ends."""

    row: PrincipalRow
    generation: int
    prelude: str
    epoch: int
    expires: float


class PrincipalCache:
    """Token hash -> principal, for at most ``ttl`` seconds and ``size`` entries."""

    def __init__(
        self,
        listener: Listener,
        ttl: float,
        size: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.listener = listener
        self.ttl = ttl
        self.size = size
        self.clock = clock
        self.entries: OrderedDict[str, Cached] = OrderedDict()
        self.hits = 0
        self.misses = 0
        self.dropped = 0
        listener.hear(CHANNEL, self.changed)

    def epoch(self) -> int | None:
        """The listening connection's number, None while none listens: read before a
        principal is resolved, and given back to ``store``."""
        if not self.listener.listening.is_set():
            return None
        return self.listener.connections

    def holds(self, token_hash: str) -> bool:
        """Whether ``token_hash`` was resolved to a live principal moments ago and may still be
        served (``lookup`` without counting it or keeping it longer)."""
        entry = self.entries.get(token_hash)
        return entry is not None and self.epoch() == entry.epoch and self.clock() < entry.expires

    def lookup(self, token_hash: str) -> Cached | None:
        """The live entry for ``token_hash``, if it may be served now."""
        entry = self.entries.get(token_hash)
        if entry is None or self.epoch() != entry.epoch or self.clock() >= entry.expires:
            if entry is not None:
                del self.entries[token_hash]
            self.misses += 1
            return None
        self.entries.move_to_end(token_hash)
        self.hits += 1
        return entry

    def store(self, token_hash: str, row: PrincipalRow, generation: int, epoch: int) -> None:
        """Keep a principal resolved while connection ``epoch`` listened (still the one)."""
        if not TOKEN_HASH.fullmatch(token_hash):
            raise ValueError("entries are keyed by a token's sha256, in hex")
        if self.ttl <= 0 or self.size <= 0 or epoch != self.epoch():
            return
        self.entries[token_hash] = Cached(
            row,
            generation,
            prelude(row.workspace_id, row.token_id, generation),
            epoch,
            self.clock() + self.ttl,
        )
        self.entries.move_to_end(token_hash)
        while len(self.entries) > self.size:
            self.entries.popitem(last=False)

    def drop(self, token_hash: str) -> None:
        """Forget one entry (found stale by its transaction)."""
        if self.entries.pop(token_hash, None) is not None:
            self.dropped += 1

    def changed(self, payload: str) -> None:
        """A NOTIFY: what a principal of workspace ``payload`` is made of changed."""
        try:
            workspace_id = UUID(payload)
        except ValueError:
            self.entries.clear()  # not a workspace: forget everything rather than guess
            return
        stale = [
            key for key, entry in self.entries.items() if entry.row.workspace_id == workspace_id
        ]
        for key in stale:
            del self.entries[key]
        self.dropped += len(stale)
