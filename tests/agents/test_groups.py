"""Tool groups without a database: the groups an agent gets from what is asked, and every
unknown name refused with the groups accepted."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from resolvers.agents.groups import (
    CORE,
    DEFAULT_TOOL_GROUPS,
    TOOL_GROUPS,
    tool_group_problems,
    tool_groups,
)


def test_nothing_asked_is_core_and_memory():
    assert tool_groups(None) == ["core", "memory"] == list(DEFAULT_TOOL_GROUPS)


def test_core_stays_whatever_is_asked():
    assert tool_groups([]) == ["core"]
    assert tool_groups(["memory"]) == ["core", "memory"]
    assert tool_groups(["memory", "core", "memory"]) == ["core", "memory"]


@given(st.lists(st.sampled_from(TOOL_GROUPS)))
def test_known_groups_come_out_once_in_order_with_core(asked):
    groups = tool_groups(asked)
    assert groups[0] == CORE
    assert groups == [g for g in TOOL_GROUPS if g in groups]
    assert set(asked) <= set(groups)
    assert tool_group_problems(asked) == []


def test_every_unknown_name_is_listed_with_the_groups_accepted():
    found = tool_group_problems(["memory", "sandbox", "Memory"])
    assert [p.field for p in found] == ["toolGroups.1", "toolGroups.2"]
    for problem in found:
        assert "core, memory" in problem.message
    assert "'sandbox'" in found[0].message
