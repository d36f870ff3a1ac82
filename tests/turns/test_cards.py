"""Record cards (DESIGN §7), pure, no database: which records a message mentions, the
120-character cut, a value as a card shows it, a card's text, and the 4,000-character budget
all cards of a turn share (the last signal dropped first: its profile souvenirs, then its
page's, card by card from the last; then whole cards from the last; never a cut line)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from resolvers.turns.cards import (
    CARD_BUDGET_CHARS,
    CARD_SEPARATOR,
    CARD_VALUE_MAX_CHARS,
    ELLIPSIS,
    MAX_MENTIONS,
    Budget,
    Card,
    CardChange,
    CardRelated,
    CardSouvenir,
    CardValue,
    Dropped,
    cards_text,
    cut,
    fit,
    mentioned_ids,
    render_card,
    value_text,
)


def make_card(
    record_id: str,
    *,
    label: str = "Acme",
    object_name: str = "Company",
    values: list[CardValue] | None = None,
    related: list[CardRelated] | None = None,
    last_change: CardChange | None = None,
    souvenirs: list[str] | None = None,
    profile: list[str] | None = None,
) -> Card:
    """A card whose souvenir keys are ``<record>:s<n>`` (page) and ``<record>:p<n>`` (profile)."""
    return Card(
        record_id=record_id,
        label=label,
        object="companies",
        object_name=object_name,
        signal="mention",
        values=values or [],
        related=related or [],
        last_change=last_change,
        souvenirs=[
            CardSouvenir(f"{record_id}:s{i}", line) for i, line in enumerate(souvenirs or [])
        ],
        profile_souvenirs=[
            CardSouvenir(f"{record_id}:p{i}", line) for i, line in enumerate(profile or [])
        ],
    )


def line(text: str, day: str = "2026-10-02") -> str:
    return f"- {text} — Claire, {day} [relation]"


# Mentions ----------------------------------------------------------------------------------


def test_mentions_in_order_each_once():
    message = (
        "Compare @[Globex](record:R2) with @[Acme](record:R1), then @[Acme again](record:R2)"
        " and @[Initech](record:R3-x_y)."
    )
    assert mentioned_ids(message) == ["R2", "R1", "R3-x_y"]


def test_no_mention():
    assert mentioned_ids("") == []
    assert mentioned_ids("How is Acme doing? record:R1 @Acme") == []


@pytest.mark.parametrize(
    "message",
    [
        "@[](record:R1)",  # an empty label
        "@[Acme](record:)",  # no id
        "@[Acme](record:R 1)",  # a space in the id
        "@[Acme](record:R1",  # unclosed
        "@[Acme](records:R1)",  # another scheme
        "@[Acme] (record:R1)",  # a space between label and target
        "[Acme](record:R1)",  # no @
        "@[Ac\nme](record:R1)",  # a line break in the label
        "@[Ac[me](record:R1)",  # a bracket in the label
        "@[Acme](record:R1=)",  # a character no global id holds
        "@[" + "x" * 201 + "](record:R1)",  # a label past 200 characters
        "@[Acme](record:" + "R" * 201 + ")",  # an id past 200 characters
    ],
)
def test_malformed_markup_is_ignored(message):
    assert mentioned_ids(message) == []


def test_malformed_markup_beside_a_good_one():
    message = "@[Acme](record:) @[](record:R9) @[Globex](record:R2) @[Acme](record:R 1)"
    assert mentioned_ids(message) == ["R2"]


def test_longest_label_and_id_are_accepted():
    message = "@[" + "x" * 200 + "](record:" + "R" * 200 + ")"
    assert mentioned_ids(message) == ["R" * 200]


def test_every_mention_is_read_the_turn_keeps_twenty_records():
    """The message's mentions all come back in order; the turn keeps the first MAX_MENTIONS
    that name a record of its workspace (so malformed ones do not hide good ones)."""
    ids = [f"R{n}" for n in range(MAX_MENTIONS + 5)]
    message = " ".join(f"@[N{n}](record:{i})" for n, i in enumerate(ids))
    assert MAX_MENTIONS == 20
    assert mentioned_ids(message) == ids


def test_repeats_do_not_count_toward_max_mentions():
    ids = [f"R{n}" for n in range(MAX_MENTIONS)]
    message = " ".join(f"@[A](record:{i}) @[B](record:{ids[0]})" for i in ids)
    assert mentioned_ids(message) == ids


# The cut -----------------------------------------------------------------------------------


def test_cut_keeps_120_characters():
    text = "x" * CARD_VALUE_MAX_CHARS
    assert CARD_VALUE_MAX_CHARS == 120
    assert cut(text) == text


def test_cut_121_characters_to_120_ending_with_an_ellipsis():
    text = "abcdefghij" * 12 + "Z"
    assert len(text) == 121
    shown = cut(text)
    assert len(shown) == 120
    assert shown == text[:119] + ELLIPSIS
    assert shown.endswith("…")


def test_cut_flattens_whitespace():
    assert cut("  Acme\n\tIndustries   SA \r\n") == "Acme Industries SA"


def test_cut_counts_after_flattening():
    # 130 characters as given, 120 once its runs of spaces are one.
    text = "x  " * 10 + "y" * 100
    assert len(text) == 120 + 10
    assert cut(text) == "x " * 10 + "y" * 100


def test_cut_never_ends_on_a_space_before_the_ellipsis():
    text = "x" * 118 + " " + "y" * 10
    assert cut(text) == "x" * 118 + ELLIPSIS


def test_cut_with_another_limit():
    assert cut("abcdef", 4) == "abc…"
    assert cut("abcd", 4) == "abcd"


@given(st.text(max_size=400))
def test_cut_is_one_line_within_the_limit(text):
    shown = cut(text)
    assert len(shown) <= CARD_VALUE_MAX_CHARS
    assert shown == " ".join(shown.split()) or shown.endswith(ELLIPSIS)
    assert "\n" not in shown
    flat = " ".join(text.split())
    if len(flat) <= CARD_VALUE_MAX_CHARS:
        assert shown == flat
    else:
        assert shown.endswith(ELLIPSIS)
        assert flat.startswith(shown[:-1])


# Values ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, shown",
    [
        (True, "yes"),
        (False, "no"),
        (1200, "1200"),
        (0, "0"),
        (48000.0, "48000"),
        (-3.0, "-3"),
        (2.5, "2.5"),
        ("https://acme.example", "https://acme.example"),
        ("2027-01-31", "2027-01-31"),
    ],
)
def test_value_text(value, shown):
    assert value_text(value) == shown


# A card's text -----------------------------------------------------------------------------


def test_render_a_full_card():
    card = make_card(
        "R1",
        values=[
            CardValue("domain", "Domain", "https://acme.example"),
            CardValue("employees", "Employees", "1200"),
        ],
        related=[
            CardRelated("R2", "Claire Morel", "contact", "company", "from"),
            CardRelated("R3", "Acme renewal", "deal", "company", "from"),
        ],
        last_change=CardChange("Admin", "2026-10-02T09:30:00+00:00", ["label", "domain"]),
        souvenirs=[line("Pays late"), line("Signs in December")],
        profile=[line("I call them on Mondays")],
    )
    assert render_card(card) == "\n".join(
        [
            "## Acme (company)",
            "- Domain: https://acme.example",
            "- Employees: 1200",
            "Related: Claire Morel (contact, company), Acme renewal (deal, company)",
            "Last change: Admin, 2026-10-02 (label, domain)",
            "Souvenirs:",
            "- Pays late — Claire, 2026-10-02 [relation]",
            "- Signs in December — Claire, 2026-10-02 [relation]",
            "Your souvenirs:",
            "- I call them on Mondays — Claire, 2026-10-02 [relation]",
        ]
    )
    assert card.text == render_card(card)


def test_render_a_bare_card():
    assert render_card(make_card("R1", object_name="Deal", label="Renewal")) == "## Renewal (deal)"


def test_render_only_profile_souvenirs():
    card = make_card("R1", profile=[line("Mine")])
    assert render_card(card) == "## Acme (company)\nYour souvenirs:\n" + line("Mine")


def test_render_cuts_long_labels():
    card = make_card(
        "R1",
        label="L" * 300,
        related=[CardRelated("R2", "C" * 100, "contact", "company", "from")],
    )
    header, related = render_card(card).split("\n")
    assert header == "## " + "L" * 199 + "… (company)"
    assert related == "Related: " + "C" * 79 + "… (contact, company)"


def test_render_a_change_of_no_field():
    card = make_card("R1", last_change=CardChange("Scout", "2026-10-02T00:00:00Z", []))
    assert render_card(card).endswith("\nLast change: Scout, 2026-10-02 ()")


def test_cards_text_joins_cards_with_a_blank_line():
    cards = [make_card("R1"), make_card("R2", label="Globex")]
    assert cards_text(cards) == "## Acme (company)" + CARD_SEPARATOR + "## Globex (company)"
    assert cards_text([]) == ""


# The budget --------------------------------------------------------------------------------

Drop = tuple[str, str, str | None]


def dropped_as_tuples(budget: Budget) -> list[Drop]:
    assert all(d.reason == "budget" for d in budget.dropped)
    return [(d.record_id, d.kind, d.key) for d in budget.dropped]


def three_cards() -> list[Card]:
    """Three cards, each with two page souvenirs and two profile souvenirs."""
    return [
        make_card(
            rid,
            label=label,
            values=[CardValue("domain", "Domain", f"https://{label.lower()}.example")],
            souvenirs=[line(f"{label} page one"), line(f"{label} page two")],
            profile=[line(f"{label} mine one"), line(f"{label} mine two")],
        )
        for rid, label in (("A", "Acme"), ("B", "Globex"), ("C", "Initech"))
    ]


def drop_sequence(cards: list[Card]) -> list[Drop]:
    """The order the rule book gives (the last signal first): from the last card to the
    first, its profile souvenirs (last first), its page souvenirs (last first), then the card
    itself."""
    found: list[Drop] = []
    for card in reversed(cards):
        found += [(card.record_id, "souvenir", s.key) for s in reversed(card.profile_souvenirs)]
        found += [(card.record_id, "souvenir", s.key) for s in reversed(card.souvenirs)]
        found.append((card.record_id, "card", None))
    return found


def without(cards: list[Card], drops: list[Drop]) -> list[Card]:
    """The cards once ``drops`` are left out."""
    gone = {key for _, kind, key in drops if kind == "souvenir"}
    gone_cards = {rid for rid, kind, _ in drops if kind == "card"}
    return [
        replace(
            card,
            souvenirs=[s for s in card.souvenirs if s.key not in gone],
            profile_souvenirs=[s for s in card.profile_souvenirs if s.key not in gone],
        )
        for card in cards
        if card.record_id not in gone_cards
    ]


def test_the_budget_is_4000_characters():
    assert CARD_BUDGET_CHARS == 4_000


def test_no_cards():
    assert fit([]) == ([], Budget(CARD_BUDGET_CHARS, 0, []))


def exactly(cards: list[Card], total: int) -> list[Card]:
    """The cards with the last card's last profile souvenir's text lengthened so that all the
    cards' text is ``total`` characters."""
    last = cards[-1]
    missing = total - len(cards_text(cards))
    assert missing >= 0
    grown = last.profile_souvenirs[-1]
    grown_line = grown.line.replace(" — ", "x" * missing + " — ", 1)
    fixed = replace(
        last,
        profile_souvenirs=[*last.profile_souvenirs[:-1], CardSouvenir(grown.key, grown_line)],
    )
    made = [*cards[:-1], fixed]
    assert len(cards_text(made)) == total
    return made


def test_exactly_4000_characters_keeps_everything():
    cards = exactly(three_cards(), CARD_BUDGET_CHARS)
    kept, budget = fit(cards)
    assert kept == cards
    assert budget == Budget(CARD_BUDGET_CHARS, CARD_BUDGET_CHARS, [])


def test_one_character_past_4000_drops_the_last_cards_last_profile_souvenir():
    cards = exactly(three_cards(), CARD_BUDGET_CHARS + 1)
    kept, budget = fit(cards)
    last = cards[-1]
    assert dropped_as_tuples(budget) == [("C", "souvenir", "C:p1")]
    assert budget.dropped == [Dropped("C", "souvenir", "C:p1", "budget")]
    assert kept == [*cards[:-1], replace(last, profile_souvenirs=last.profile_souvenirs[:1])]
    assert budget.used == len(cards_text(kept)) < CARD_BUDGET_CHARS
    assert budget.limit == CARD_BUDGET_CHARS


def listed(drops: list[Drop]) -> list[Drop]:
    """What the budget lists for these drops: a card that goes whole goes with its souvenirs,
    which are not listed one by one."""
    whole = {rid for rid, kind, _ in drops if kind == "card"}
    return [d for d in drops if d[1] == "card" or d[0] not in whole]


def test_every_step_of_the_drop_order_on_both_sides_of_the_limit():
    """For each number k of drops the rule book's order gives: a limit exactly the length of
    the cards without the first k keeps them (dropping those k), one less drops the next. A
    card that would not fit even without its souvenirs goes whole at once."""
    cards = three_cards()
    order = drop_sequence(cards)
    assert order[:4] == [
        ("C", "souvenir", "C:p1"),
        ("C", "souvenir", "C:p0"),
        ("C", "souvenir", "C:s1"),
        ("C", "souvenir", "C:s0"),
    ]
    assert order[4] == ("C", "card", None)
    assert order[5] == ("B", "souvenir", "B:p1")
    assert order[-1] == ("A", "card", None)
    for k in range(len(order)):
        expected = without(cards, order[:k])
        limit = len(cards_text(expected))
        kept, budget = fit(cards, limit)
        assert kept == expected, k
        assert dropped_as_tuples(budget) == listed(order[:k])
        assert budget.used == limit == len(cards_text(kept))
        kept, budget = fit(cards, limit - 1)
        assert dropped_as_tuples(budget) == listed(order[: k + 1]), k
        assert kept == without(cards, order[: k + 1])
        assert budget.used == len(cards_text(kept)) <= limit - 1


def test_the_last_card_goes_whole_before_the_previous_one_loses_a_souvenir():
    cards = three_cards()
    bare = without(cards, drop_sequence(cards)[:4])
    assert not bare[-1].souvenirs and not bare[-1].profile_souvenirs
    kept, budget = fit(cards, len(cards_text(bare)) - 1)
    assert kept == cards[:2]
    assert dropped_as_tuples(budget)[-1] == ("C", "card", None)
    assert [d.kind for d in budget.dropped].count("card") == 1
    assert budget.dropped[-1].key is None


def test_a_last_card_without_souvenirs_goes_whole_first():
    cards = [
        make_card("A", souvenirs=[line("Page one")], profile=[line("Mine one")]),
        make_card("B", label="Globex"),
    ]
    kept, budget = fit(cards, len(cards_text(cards)) - 1)
    assert dropped_as_tuples(budget) == [("B", "card", None)]
    assert kept == cards[:1]


def test_a_card_larger_than_the_budget_alone():
    big = make_card("A", values=[CardValue(f"v{n}", f"V{n}", "x" * 120) for n in range(8)])
    kept, budget = fit([big], 500)
    assert kept == []
    assert budget == Budget(500, 0, [Dropped("A", "card", None)])


def test_the_first_card_stays_when_it_fits():
    cards = [
        make_card("A", values=[CardValue("v", "V", "x" * 100)]),
        make_card("B", values=[CardValue("v", "V", "y" * 120)] * 8),
    ]
    kept, budget = fit(cards, len(cards[0].text))
    assert kept == cards[:1]
    assert dropped_as_tuples(budget) == [("B", "card", None)]


def test_never_a_cut_line():
    cards = three_cards()
    for limit in range(0, len(cards_text(cards)) + 2, 7):
        kept, budget = fit(cards, limit)
        text = cards_text(kept)
        lines = text.split("\n")
        for card in kept:
            for souvenir in card.souvenirs + card.profile_souvenirs:
                assert souvenir.line in lines
        # Every line shown is a whole line of the original cards.
        whole = set(cards_text(cards).split("\n"))
        assert set(lines) <= whole | {""}
        assert budget.used == len(text) <= limit


# The budget's invariants, for any cards ----------------------------------------------------

souvenir_lines = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"),
    min_size=1,
    max_size=300,
)


@st.composite
def some_cards(draw: st.DrawFn) -> list[Card]:
    count = draw(st.integers(0, 6))
    cards = []
    for n in range(count):
        values = [
            CardValue(f"v{i}", f"V{i}", draw(st.text(max_size=120)))
            for i in range(draw(st.integers(0, 8)))
        ]
        page = [f"- {text}" for text in draw(st.lists(souvenir_lines, max_size=6))]
        mine = [f"- {text}" for text in draw(st.lists(souvenir_lines, max_size=4))]
        label = draw(st.text(min_size=1, max_size=250))
        cards.append(make_card(f"R{n}", label=label, values=values, souvenirs=page, profile=mine))
    return cards


@settings(max_examples=300, deadline=None)
@given(some_cards(), st.integers(0, 6_000))
def test_budget_invariants(cards, limit):
    kept, budget = fit(cards, limit)
    assert budget.limit == limit
    assert budget.used == len(cards_text(kept))
    assert budget.used <= limit
    # Kept cards keep their order: the first of the original cards.
    assert [c.record_id for c in kept] == [c.record_id for c in cards][: len(kept)]
    # Nothing is dropped when everything fits.
    if len(cards_text(cards)) <= limit:
        assert kept == list(cards) and budget.dropped == []
    dropped = {(d.record_id, d.key) for d in budget.dropped if d.kind == "souvenir"}
    assert len(dropped) == sum(d.kind == "souvenir" for d in budget.dropped)
    by_id = {c.record_id: c for c in kept}
    for card in cards:
        original = [s.key for s in card.souvenirs + card.profile_souvenirs]
        still = by_id.get(card.record_id)
        shown = [s.key for s in still.souvenirs + still.profile_souvenirs] if still else []
        gone = [key for rid, key in dropped if rid == card.record_id]
        if still is not None:
            # Dropped + kept souvenirs are the original souvenirs, each once.
            assert sorted(shown + gone) == sorted(original)
            # Souvenirs go from the end: what stays is a prefix, line for line.
            assert still.souvenirs == card.souvenirs[: len(still.souvenirs)]
            assert still.profile_souvenirs == card.profile_souvenirs[: len(still.profile_souvenirs)]
            # A card keeps everything but souvenirs.
            assert replace(still, souvenirs=[], profile_souvenirs=[]) == replace(
                card, souvenirs=[], profile_souvenirs=[]
            )
            # No profile souvenir of a card stays once a page souvenir of it went.
            if len(still.souvenirs) < len(card.souvenirs):
                assert still.profile_souvenirs == []
        else:
            # A card goes whole, its souvenirs with it (not listed one by one).
            assert shown == [] and gone == []
    # The last signal goes first: only the last kept card may have lost souvenirs, and only
    # once every card after it went.
    for index, card in enumerate(kept):
        lost = [d for d in budget.dropped if d.record_id == card.record_id and d.kind == "souvenir"]
        if lost:
            assert index == len(kept) - 1
    assert len(budget.dropped) == 0 or len(kept) + sum(
        d.kind == "card" for d in budget.dropped
    ) == len(cards)
    # Every kept line is whole in the text.
    text_lines = cards_text(kept).split("\n")
    for card in kept:
        for souvenir in card.souvenirs + card.profile_souvenirs:
            assert souvenir.line in text_lines
    # The last drop was needed: putting it back would not fit.
    if budget.dropped:
        last = budget.dropped[-1]
        if last.kind == "card":
            original = next(c for c in cards if c.record_id == last.record_id)
            back = [*kept, replace(original, souvenirs=[], profile_souvenirs=[])]
        else:
            back = without(cards, [(d.record_id, d.kind, d.key) for d in budget.dropped[:-1]])
        assert len(cards_text(back)) > limit
