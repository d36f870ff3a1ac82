"""What a pass or a Monday removal did, in one line (the worker's log, `skillmem dreamer
run`): ids and counts, never a text."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from resolvers.memory.cleanup.removal import RemovalReport
from resolvers.memory.dreamer.passes import PassReport


def pass_line(report: PassReport) -> str:
    """The owner, then ``counts``, then the pass's note."""
    owner = report.owner
    who = f"{owner.owner_kind} {owner.owner_id}" if owner.owner_id else owner.owner_kind
    note = f" ({report.note})" if report.note else ""
    return f"workspace {owner.workspace_id}, {who}: {counts([report])}{note}"


def counts(reports: Sequence[PassReport]) -> str:
    """Items read and left waiting, verdicts, cost: summed over ``reports``."""

    def total(field: str) -> int:
        return sum(getattr(report, field) for report in reports)

    cost = sum((report.cost_usd for report in reports), Decimal(0))
    return (
        f"read {total('read')}, waiting {total('waiting')}; written {total('written')}, "
        f"refreshed {total('refreshed')}, refused {total('refused')}; cost ${cost}"
    )


def removal_line(report: RemovalReport) -> str:
    """The workspace, what its Monday removal did, and its note."""
    note = f" ({report.note})" if report.note else ""
    return (
        f"weekly removal, workspace {report.workspace_id}: {report.audiences} audiences,"
        f" {report.pages_read} pages read, {report.lines_removed} souvenirs removed,"
        f" {report.pages_deleted} pages deleted{note}"
    )
