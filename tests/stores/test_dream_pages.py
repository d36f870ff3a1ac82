"""A store's memory as a page consolidation tidies (resolvers/stores/dream_pages.py), without a
database: what is not changed is written back exactly, duplicates merge only with lines of
their kind and source, a souvenir retyped is rendered again, a new line takes its group's
form."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import uuid4

from hypothesis import given
from hypothesis import strategies as st

from db.memory_stores import MemoryRow
from resolvers.memory.cleanup.tidying import tidy
from resolvers.memory.dreamer.consolidating import (
    Audience,
    ConsolidationBatch,
    GroupProposal,
    LineProposal,
    PageProposals,
)
from resolvers.memory.dreamer.rules import consolidation
from resolvers.stores.dream_pages import consolidation_page, content_after, read_memory

WORKSPACE = uuid4()
AT = datetime(2026, 11, 2, 9, 30, tzinfo=UTC)
SOUVENIR = "- Préfère le tutoiement — Claire, 2026-10-02 [préférence]"


def memory(content: str):
    return MemoryRow(
        uuid4(), uuid4(), "/notes.md", content, "0" * 64, len(content), uuid4(), AT, AT
    )


def tidied(content: str, proposals: PageProposals | None = None) -> str | None:
    page = read_memory(memory(content))
    if proposals is None:
        batch = ConsolidationBatch(
            audience=Audience(kind="workspace", id=None, name="Store"),
            pages=(consolidation_page(page),),
            today=AT.date(),
        )
        answered = consolidation(batch).pages
        proposals = answered[0] if answered else PageProposals(page_id=page.page_id)
    done = tidy(page.row, proposals.model_copy(update={"page_id": page.page_id}), WORKSPACE,
                page_limits=False)  # fmt: skip
    return content_after(page, done)


@given(st.lists(st.text(alphabet=st.characters(exclude_characters="\n"), max_size=40), max_size=8))
def test_a_memory_nothing_is_proposed_for_is_written_back_exactly(lines):
    content = "\n".join(lines)
    page = read_memory(memory(content))
    done = tidy(page.row, PageProposals(page_id=page.page_id), WORKSPACE, page_limits=False)
    expected = None if not any(line.strip() for line in lines) else content
    assert content_after(page, done) == expected


def test_the_rules_reader_merges_plain_duplicates_and_keeps_the_rest_as_written():
    content = "# Prefs\n\n* Prefers dark mode \n- prefers dark mode.\nUses  vim\n"
    # The first of them on the page stays (they are of one day), as written.
    assert tidied(content) == "# Prefs\n\n* Prefers dark mode \nUses  vim\n"


def test_a_plain_line_and_a_souvenir_saying_the_same_are_not_merged():
    content = f"{SOUVENIR}\n- Préfère le tutoiement"
    assert tidied(content) == content
    assert tidied(f"{SOUVENIR}\n{SOUVENIR}") == SOUVENIR


def test_a_souvenir_retyped_is_rendered_again_a_plain_line_shows_no_type():
    content = f"{SOUVENIR}\n- Préfère le vouvoiement"
    proposals = PageProposals(
        page_id="",
        lines=(
            LineProposal(key="l1", action="retype", type="consigne"),
            LineProposal(key="l2", action="retype", type="consigne"),
        ),
    )
    assert tidied(content, proposals) == (
        "- Préfère le tutoiement — Claire, 2026-10-02 [consigne]\n- Préfère le vouvoiement"
    )


def test_a_group_becomes_one_line_of_its_form_and_an_emptied_memory_goes():
    content = "- Called Acme on Monday\n- Called Acme on Tuesday\n- Likes tea"
    group = GroupProposal(
        keys=("l1", "l2"), reason="log", text="Calls Acme weekly", type="relation"
    )
    assert tidied(content, PageProposals(page_id="", groups=(group,))) == (
        "- Calls Acme weekly\n- Likes tea"
    )
    gone = PageProposals(
        page_id="", lines=(LineProposal(key="l1", action="delete", reason="not_durable"),)
    )
    assert tidied("- Called Acme on Monday\n", gone) is None
