"""Memory's upkeep (issue 11): the Monday removal (code alone) and consolidation (per
audience, with the reader). Each run is recorded in memory_cleanups with what it changed."""

from __future__ import annotations

from db.memory import Actor

# The actors a page version names for each (DESIGN §5: every mutation is a version).
REMOVAL_ACTOR = Actor("system", None, "weekly removal")
CONSOLIDATION_ACTOR = Actor("system", None, "consolidation")
