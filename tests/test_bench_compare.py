"""bench.compare: how two commits' benchmark runs are read and set side by side."""

from __future__ import annotations

import json
from pathlib import Path

from bench import compare


def _row(concurrency: int, graphql: list[float], baseline: list[float], **extra: object):
    return {
        "concurrency": concurrency,
        "graphql": {"slice_rps": graphql},
        "baseline": {"slice_rps": baseline},
        "ratio": round(sum(graphql) / sum(baseline), 3),
        **extra,
    }


def _result(name: str, *rows: dict) -> dict:
    return {"file": name, "load": list(rows)}


def test_a_paired_ratio_is_the_median_of_each_slice_against_the_one_beside_it():
    # The machine halves its speed after two slices: each pair keeps the same ratio.
    assert compare.paired_ratio([90, 90, 45, 45], [100, 100, 50, 50]) == 0.9
    assert compare.paired_ratio([80, 100, 90], [100, 100, 100]) == 0.9
    assert compare.paired_ratio([], []) is None
    assert compare.paired_ratio([10], [0]) is None


def test_ratios_are_keyed_by_benchmark_endpoint_and_concurrency():
    records = _result("records-20261203T173045Z.json", _row(8, [110, 100], [100, 100]))
    memory = _result(
        "memory-20261203T173500Z.json",
        _row(1, [90], [100], endpoint="read"),
        _row(1, [50], [100], endpoint="edit"),
        {"concurrency": 32, "note": "no ratio: skipped"},
    )
    assert compare.ratios(records) == {"records page c=8": {"reported": 1.05, "paired": 1.05}}
    both = compare.summarise({"a": [records, _result("records-2.json", _row(32, [1], [1]))]})
    assert list(both) == ["records page c=8", "records page c=32"]  # by concurrency
    assert compare.ratios(memory) == {
        "memory read c=1": {"reported": 0.9, "paired": 0.9},
        "memory edit c=1": {"reported": 0.5, "paired": 0.5},
    }


def test_summarise_gives_each_commits_median_and_its_difference_from_the_first():
    runs = {
        "before": [
            _result("records-1.json", _row(1, [80], [100])),
            _result("records-2.json", _row(1, [90], [100])),
            _result("records-3.json", _row(1, [70], [100])),
        ],
        "after": [
            _result("records-4.json", _row(1, [85], [100])),
            _result("records-5.json", _row(1, [95], [100])),
        ],
    }
    table = compare.summarise(runs)
    cell = table["records page c=1"]["reported"]
    assert cell["rounds"] == {"before": [0.8, 0.9, 0.7], "after": [0.85, 0.95]}
    assert cell["median"] == {"before": 0.8, "after": 0.9}
    assert cell["minus_first"] == {"after": 0.1}
    lines = compare.markdown(table, ["before", "after"])
    assert lines[2] == (
        "| records page c=1 | 0.80 (0.80, 0.90, 0.70) | 0.90 (0.85, 0.95) | +0.10 | +0.10 |"
    )


def test_read_result_keeps_the_file_name(tmp_path: Path):
    path = tmp_path / "turns-20261203T180000Z.json"
    path.write_text(json.dumps({"load": [_row(32, [120], [100], endpoint="turn")]}))
    assert compare.ratios(compare.read_result(path)) == {
        "turns turn c=32": {"reported": 1.2, "paired": 1.2}
    }
