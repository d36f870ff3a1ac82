"""The shape each attribute type accepts for a record value, and record labels (pure)."""

from __future__ import annotations

import math
import re
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from resolvers.records.values import MAX_LABEL_CHARS, MAX_TEXT_CHARS, label_problem, value_problem

TYPES = ("text", "email", "url", "number", "boolean", "date")


@pytest.mark.parametrize("attribute_type", TYPES)
def test_null_fits_every_type(attribute_type):
    assert value_problem(attribute_type, None) is None


def test_unknown_type_is_a_problem():
    assert value_problem("colour", "red") == "has an unknown type colour"


# text ------------------------------------------------------------------------------------


def test_text_up_to_the_limit_is_accepted():
    assert MAX_TEXT_CHARS == 10_000
    assert value_problem("text", "") is None
    assert value_problem("text", "x" * 10_000) is None


def test_text_over_the_limit_is_refused():
    assert value_problem("text", "x" * 10_001) == "must be at most 10000 characters"


@pytest.mark.parametrize("value", [1, 1.5, True, ["a"], {"a": 1}])
def test_text_must_be_a_string(value):
    assert value_problem("text", value) == "must be a string"


@given(st.text(max_size=MAX_TEXT_CHARS))
def test_any_string_within_the_limit_is_text(value):
    assert value_problem("text", value) is None


@given(st.text(min_size=1, max_size=50))
def test_any_string_over_the_limit_is_refused(tail):
    assert value_problem("text", "a" * MAX_TEXT_CHARS + tail) is not None


# number ----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, -7, 1200, 2**53, 0.0, -3.25, 1e300, 5e-324])
def test_numbers_are_accepted(value):
    assert value_problem("number", value) is None


@pytest.mark.parametrize("value", [True, False, "12", "1.5", [1], {"n": 1}])
def test_non_numbers_are_refused(value):
    assert value_problem("number", value) == "must be a number"


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_numbers_are_refused(value):
    assert value_problem("number", value) == "must be a finite number"


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_any_finite_float_is_a_number(value):
    assert value_problem("number", value) is None


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_any_64_bit_integer_is_a_number(value):
    assert value_problem("number", value) is None


@pytest.mark.parametrize("value", [2**64, -(2**63) - 1, 10**400])
def test_integers_beyond_64_bits_are_refused(value):
    # They cannot be stored as JSON: the encoder refuses them at insert time.
    assert value_problem("number", value) is not None


# date ------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["2026-02-28", "2024-02-29", "0001-01-01", "9999-12-31"])
def test_dates_are_accepted(value):
    assert value_problem("date", value) is None


@pytest.mark.parametrize(
    "value",
    [
        "2026-02-30",
        "2025-02-29",
        "2026-13-01",
        "2026-2-3",
        "20260101",
        "2026-01-01T00:00",
        " 2026-01-01",
        "2026-W01-1",  # an ISO week date: fromisoformat takes it, but it is not YYYY-MM-DD
        "２０２６-01-01",
        "",
        20260101,
        True,
    ],
)
def test_non_dates_are_refused(value):
    assert value_problem("date", value) == "must be a date (YYYY-MM-DD)"


@given(st.dates())
def test_any_calendar_date_in_iso_form_is_a_date(day):
    assert value_problem("date", day.isoformat()) is None


@given(st.text(max_size=12))
def test_only_yyyy_mm_dd_strings_are_dates(value):
    accepted = value_problem("date", value) is None
    shaped = re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value) is not None
    if accepted:
        assert shaped
        assert date.fromisoformat(value).isoformat() == value


# email -----------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["claire@acme.example", "a.b+c@sub.domain.org"])
def test_emails_are_accepted(value):
    assert value_problem("email", value) is None


@pytest.mark.parametrize(
    "value",
    [
        "claire",
        "claire@acme",
        "@acme.example",
        "claire@",
        "a b@acme.example",
        "a@b.co\n",
        "a@@b.co",
    ],
)
def test_non_emails_are_refused(value):
    assert value_problem("email", value) == "must be an email address"


def test_email_must_be_a_string_within_the_text_limit():
    assert value_problem("email", 42) == "must be a string"
    long = "a" * MAX_TEXT_CHARS + "@b.co"
    assert value_problem("email", long) == "must be at most 10000 characters"


# url -------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["https://acme.example", "http://acme.example/path?q=1"])
def test_http_and_https_urls_are_accepted(value):
    assert value_problem("url", value) is None


@pytest.mark.parametrize(
    "value", ["ftp://acme.example", "acme.example", "mailto:a@b.co", "javascript:alert(1)"]
)
def test_other_urls_are_refused(value):
    assert value_problem("url", value) == "must be an http or https URL"


def test_url_must_be_a_string():
    assert value_problem("url", 1) == "must be a string"


# boolean ---------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [True, False])
def test_booleans_are_accepted(value):
    assert value_problem("boolean", value) is None


@pytest.mark.parametrize("value", [0, 1, "true", "false", 1.0, []])
def test_non_booleans_are_refused(value):
    assert value_problem("boolean", value) == "must be true or false"


# label -----------------------------------------------------------------------------------


def test_label_up_to_the_limit_is_accepted():
    assert MAX_LABEL_CHARS == 500
    assert label_problem("A") is None
    assert label_problem("x" * 500) is None


def test_label_over_the_limit_is_refused():
    assert label_problem("x" * 501) == "must be at most 500 characters"


@pytest.mark.parametrize("label", ["", " ", "\t\n", None, 7, ["Acme"]])
def test_blank_or_missing_label_is_refused(label):
    assert label_problem(label) == "must be a non-empty string"


@given(st.text(max_size=MAX_LABEL_CHARS).filter(lambda s: s.strip()))
def test_any_non_blank_label_within_the_limit_is_accepted(label):
    assert label_problem(label) is None
