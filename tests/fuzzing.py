"""What the suite's fuzzing shares: hypothesis's settings profiles, the bound on a fuzz test's
examples, and hostile text.

Profiles (``HYPOTHESIS_PROFILE``): ``ci``, the default, is derandomized (the same examples each
run, on a developer's machine as in CI: a `make test` never fails by chance), with no deadline
(2 shared cores) and no example database; ``explore`` draws new examples each run, ten times as
many in each fuzz test, for a developer hunting on purpose. A fuzz test takes its examples with
``bounded(n)``: a handful per door, so that the whole fuzz set stays well under a minute."""

from __future__ import annotations

import os
from typing import TypeVar

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

T = TypeVar("T")
PROFILE_VARIABLE = "HYPOTHESIS_PROFILE"
EXPLORE_FACTOR = 10

settings.register_profile("ci", derandomize=True, deadline=None, database=None)
settings.register_profile("explore", derandomize=False, deadline=None)


def load_profile() -> None:
    """The profile ``HYPOTHESIS_PROFILE`` names (``ci`` when unset)."""
    settings.load_profile(os.environ.get(PROFILE_VARIABLE) or "ci")


def bounded(examples: int, *, collect: bool = False) -> settings:
    """A fuzz test's settings: ``examples`` of them (ten times as many when exploring).
    ``collect``: a test that collects its failures with their inputs instead of raising them
    (a server's, sent over HTTP) needs no shrinking."""
    exploring = not settings.default.derandomize
    phases = [Phase.explicit, Phase.generate] if collect else list(Phase)
    return settings(
        max_examples=examples * (EXPLORE_FACTOR if exploring else 1),
        phases=phases,
        suppress_health_check=list(HealthCheck),
    )


# Text that leans on what breaks parsers and storage: NUL and other controls, quotes,
# backslashes, bidi overrides, lone surrogates' neighbours, very long runs.
HOSTILE_TEXT = st.one_of(
    st.text(max_size=40),
    st.text(alphabet="a-_ :/.\x00\x01\n\r\t\"'\\é日\u202e\u2028\ufeff[]()@", max_size=12),
    st.sampled_from(["", " ", "\x00", "../../etc/passwd", "a" * 600, "%00", "${x}", "'; --"]),
)


def mostly(good: st.SearchStrategy[T], bad: st.SearchStrategy[T]) -> st.SearchStrategy[T]:
    """``good`` four times in five: input that is nearly right gets past the first checks and
    reaches the deep ones. (``st.one_of`` would not weigh it so: it draws each distinct branch
    alike.)"""
    return st.sampled_from([good, good, good, good, bad]).flatmap(lambda chosen: chosen)
