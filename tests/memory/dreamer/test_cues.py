"""The cue words that ask memory to remember or correct (resolvers/memory/dreamer/cues.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from resolvers.memory.dreamer.cues import REMEMBER_CUES, asks_to_remember, fold, strip_cues


@pytest.mark.parametrize("cue", REMEMBER_CUES)
def test_each_cue_asks_to_remember(cue: str):
    assert asks_to_remember(f"{cue} Acme pays in euros")
    assert asks_to_remember(f"Ok. {cue.upper()} x")


@pytest.mark.parametrize(
    "text",
    [
        "Desormais on facture en euros",  # no accent
        "A PARTIR DE MAINTENANT réponds en français",
        "Souviens\u2011toi".replace("\u2011", "-") + " de Bob",
        "N\u2019oublie pas : Bob est DAF",  # typographic apostrophe
        "Correction : Bob est DAF",
        "Remember, Bob is the CFO",
    ],
)
def test_cues_ignore_case_accents_and_apostrophes(text: str):
    assert asks_to_remember(text)


@pytest.mark.parametrize(
    "text",
    [
        "I was remembering the meeting",  # an inflection reports, it does not ask
        "I remembered to call Bob",
        "We run an always-on VPN",  # a compound is not the rule "always"
        "Nevertheless we signed",
        "Actually, Bob is late",  # a filler, left out on purpose
        "Il est toujours en réunion",  # "toujours" also means "still"
        "The correction was sent",  # a correction is a cue only as a heading
        "Ask @[Remember Inc](record:r1) for a quote",  # mention markup is not read
        "",
    ],
)
def test_near_misses_do_not_ask(text: str):
    assert not asks_to_remember(text)


def test_strip_cues_keeps_the_fact_and_the_markup():
    text = "Remember: @[Acme](record:abc) wants every message in French."
    assert strip_cues(text) == ("@[Acme](record:abc) wants every message in French.", False)
    assert strip_cues("From now on, please remember that Bob is CFO") == ("Bob is CFO", True)
    assert strip_cues("Souviens-toi que Bob est DAF") == ("Bob est DAF", False)
    assert strip_cues("Never call Bob before 10") == ("Never call Bob before 10", False)


@given(st.text())
def test_fold_keeps_the_length(text: str):
    import unicodedata

    assert len(fold(text)) == len(unicodedata.normalize("NFC", text))


@given(st.text())
def test_never_raises(text: str):
    asks_to_remember(text)
    strip_cues(text)
