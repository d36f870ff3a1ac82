"""The lines of a bulk write as they arrive: numbered from one, capped, their shape checked."""

from __future__ import annotations

from resolvers.records.lines import MAX_LINES, parse_lines


def test_parse_lines_numbers_lines_from_one():
    good, problems = parse_lines([{"object": "a", "label": "A"}, {"object": 1}, {"label": "x"}])
    assert [n for n, _ in good] == [1]
    assert {(p.line, p.field) for p in problems} == {(2, "object"), (3, "object")}


def test_parse_lines_refuses_too_many_lines_without_looking_at_them():
    good, problems = parse_lines([{}] * (MAX_LINES + 1))
    assert good == []
    assert [(p.field, p.line) for p in problems] == [("records", None)]


def test_a_relation_names_exactly_one_of_id_and_external_id():
    _, problems = parse_lines(
        [
            {"object": "contacts", "relations": {"company": {}}},
            {"object": "contacts", "relations": {"company": {"id": "a", "external_id": "b"}}},
            {"object": "contacts", "relations": {"company": {"name": "Acme"}}},
        ]
    )
    assert {p.line for p in problems} == {1, 2, 3}
    assert all(p.field and p.field.startswith("relations.company") for p in problems)
