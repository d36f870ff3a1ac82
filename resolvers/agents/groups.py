"""Tool groups (seed 000 "Skills and memories"): what an agent may reach. ``core`` (skills,
records, search) is always on, even without a sandbox; ``memory`` (reading souvenirs in cards,
recall and search, proposing) is on by default for a new agent. The database keeps an agent's
groups to these (migration 0019) and applies ``memory`` where memory is read or gathered
(``agent_memory_on``, ``item_memory_on``)."""

from __future__ import annotations

from collections.abc import Sequence

from resolvers.common.errors import Problem

CORE = "core"
MEMORY = "memory"
# Every group, in the order an agent's groups are listed.
TOOL_GROUPS = (CORE, MEMORY)
DEFAULT_TOOL_GROUPS = (CORE, MEMORY)


def tool_group_problems(given: Sequence[str], field: str = "toolGroups") -> list[Problem]:
    """Every name of ``given`` that names no group, each with the groups accepted."""
    accepted = ", ".join(TOOL_GROUPS)
    return [
        Problem(f"no tool group is called {name!r}: the groups are {accepted}", f"{field}.{i}")
        for i, name in enumerate(given)
        if name not in TOOL_GROUPS
    ]


def tool_groups(given: Sequence[str] | None) -> list[str]:
    """An agent's groups from what was asked (checked before): the default when nothing was
    asked, else each group named once, in ``TOOL_GROUPS`` order, ``core`` always (it cannot be
    removed: a list without it keeps it)."""
    if given is None:
        return list(DEFAULT_TOOL_GROUPS)
    return [group for group in TOOL_GROUPS if group == CORE or group in given]
