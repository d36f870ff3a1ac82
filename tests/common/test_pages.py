"""Page sizes: the default when none is asked, the cap on both sides."""

from __future__ import annotations

import pytest

from resolvers.common.errors import DomainError
from resolvers.common.pages import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, check_page_size


def test_no_size_asked_is_the_default():
    assert check_page_size(None) == DEFAULT_PAGE_SIZE


@pytest.mark.parametrize("first", [0, MAX_PAGE_SIZE])
def test_the_bounds_are_accepted(first):
    assert check_page_size(first) == first


@pytest.mark.parametrize("first", [-1, MAX_PAGE_SIZE + 1])
def test_past_the_bounds_is_refused_naming_the_field(first):
    with pytest.raises(DomainError) as error:
        check_page_size(first, "limit")
    assert [p.field for p in error.value.problems] == ["limit"]
