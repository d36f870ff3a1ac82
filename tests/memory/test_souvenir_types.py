"""The souvenir types a person may type (issue 13, item 5; pure, no database): the five
canonical French types, their English and unaccented forms in any case, stored canonically; a
line without a type, or with another one, is refused with every accepted form listed."""

from __future__ import annotations

import unicodedata
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from resolvers.memory.content import parse_content
from resolvers.memory.grammar import LineError, parse, render
from resolvers.memory.souvenir_types import (
    SOUVENIR_TYPES,
    TYPE_ALIASES,
    accepted_types,
    canonical_type,
    fold,
)

# What the issue names, spelled out rather than read back from the module.
ALIASES = [
    ("relation", "relation"),
    ("Relation", "relation"),
    ("RELATION", "relation"),
    ("contexte", "contexte"),
    ("context", "contexte"),
    ("Context", "contexte"),
    ("CONTEXTE", "contexte"),
    ("décision", "décision"),
    ("decision", "décision"),
    ("Decision", "décision"),
    ("DÉCISION", "décision"),
    ("consigne", "consigne"),
    ("instruction", "consigne"),
    ("Instruction", "consigne"),
    ("CONSIGNE", "consigne"),
    ("préférence", "préférence"),
    ("preference", "préférence"),
    ("Preference", "préférence"),
    ("préference", "préférence"),
    ("PRÉFÉRENCE", "préférence"),
]
ACCEPTED = (
    "one of [relation], [contexte] (or [context]), [décision] (or [decision]),"
    " [consigne] (or [instruction]), [préférence] (or [preference]), in any case"
)


def _review(canonical: str) -> str:
    """The review date a contexte of 2026-10-02 carries."""
    return " (revoir 2027-04-02)" if canonical == "contexte" else ""


@pytest.mark.parametrize(("typed", "stored"), ALIASES)
def test_each_alias_is_read_as_its_canonical_type(typed, stored):
    assert canonical_type(typed) == stored
    souvenir = parse(f"- Acme paie à 60 jours — Claire, 2026-10-02 [{typed}]{_review(stored)}")
    assert souvenir.type == stored
    assert render(souvenir) == (
        f"- Acme paie à 60 jours — Claire, 2026-10-02 [{stored}]{_review(stored)}"
    )


@pytest.mark.parametrize(("typed", "stored"), ALIASES)
def test_a_person_s_line_with_an_alias_is_stored_canonically(typed, stored):
    [line], problems = parse_content(f"- Préfère le thé [{typed}]", by_person=True)
    assert problems == []
    assert line.souvenir is not None and line.souvenir.type == stored


def test_a_contexte_typed_in_english_keeps_its_review_rule():
    """The review date belongs to a contexte whatever its name was typed as."""
    souvenir = parse("- Acme gèle ses achats — Claire, 2026-11-05 [Context] (revoir 2027-05-05)")
    assert (souvenir.type, souvenir.review) == ("contexte", date(2027, 5, 5))
    with pytest.raises(LineError) as refused:
        parse("- Acme paie — Claire, 2026-11-05 [decision] (revoir 2027-05-05)")
    assert refused.value.reasons == ["only a contexte carries a review date (revoir)"]


def test_the_message_lists_every_accepted_form():
    assert accepted_types() == ACCEPTED
    for canonical, aliases in TYPE_ALIASES.items():
        assert canonical in SOUVENIR_TYPES
        assert all(f"[{form}]" in ACCEPTED for form in (canonical, *aliases))


@pytest.mark.parametrize(
    "line",
    [
        "- Préfère le thé",
        "- Préfère le thé — Alice, 2026-10-01",
        "- Préfère — Alice, 2026-10-01 []",
    ],
    ids=["no-type", "attribution-without-type", "empty-type"],
)
def test_a_line_without_a_type_is_refused_with_the_accepted_forms(line):
    for by_person in (False, True):
        with pytest.raises(LineError) as refused:
            parse(line, by_person=by_person)
        [reason] = refused.value.reasons
        assert reason.endswith(ACCEPTED)


@pytest.mark.parametrize("typed", ["fact", "préférences", "avis", "pref", "consignes", "idée"])
def test_an_unknown_type_is_refused_with_the_accepted_forms(typed):
    with pytest.raises(LineError) as refused:
        parse(f"- Le DAF — Claire, 2026-10-02 [{typed}]")
    assert refused.value.reasons == [f"unknown type [{typed}]: {ACCEPTED}"]


def _strip_accent(char: str) -> str:
    return unicodedata.normalize("NFD", char)[0]


@st.composite
def spellings(draw: st.DrawFn) -> tuple[str, str]:
    """Any accepted form, each letter in either case, each accent kept or dropped; and the
    canonical type it stands for."""
    canonical = draw(st.sampled_from(SOUVENIR_TYPES))
    form = draw(st.sampled_from((canonical, *TYPE_ALIASES[canonical])))
    letters = []
    for char in form:
        if draw(st.booleans()):
            char = _strip_accent(char)
        letters.append(char.upper() if draw(st.booleans()) else char)
    return "".join(letters), canonical


@given(spellings())
def test_any_case_and_any_accent_of_an_accepted_form_is_read_canonically_property(spelling):
    typed, canonical = spelling
    said = "- Le DAF décide seul — Claire, 2026-10-02"
    souvenir = parse(f"{said} [{typed}]{_review(canonical)}")
    assert souvenir.type == canonical
    assert render(souvenir) == f"{said} [{canonical}]{_review(canonical)}"


FORMS = {
    fold(form) for canonical in SOUVENIR_TYPES for form in (canonical, *TYPE_ALIASES[canonical])
}


@given(st.text(st.characters(exclude_characters="[]\n\r", exclude_categories=("Cs",))))
def test_a_name_is_a_type_only_when_it_folds_to_an_accepted_form_property(typed):
    found = canonical_type(typed)
    assert (found is not None) == (fold(typed) in FORMS)
    if found is None:
        with pytest.raises(LineError) as refused:
            parse(f"- Le DAF — Claire, 2026-10-02 [{typed}]")
        assert f"unknown type [{typed}]: {ACCEPTED}" in refused.value.reasons
    else:
        assert found in SOUVENIR_TYPES
