"""Builders of skill bodies for the form, lessons and polish tests."""

from __future__ import annotations

TRIGGER = "When all tests pass.\nDon't use when: hotfixing a critical bug."


def body(
    purpose: str | None = "Deploy the application to production safely.",
    trigger: str | None = TRIGGER,
    steps: str | None = "1. Run the tests\n2. Build the bundle\n3. Deploy",
    check: str | None = "The health check answers 200 within a minute.",
    reflex: str | None = None,
    *,
    evo: bool = True,
) -> str:
    """A skill body with the given section texts, under evo's headings or the product's."""
    names = (
        ("Purpose", "Trigger", "Steps", "Check")
        if evo
        else ("Overview", "When to use", "Instructions", "Verification")
    )
    parts = ["# Deploy workflow", ""]
    for heading, text in zip(names, (purpose, trigger, steps, check), strict=True):
        if text is not None:
            parts += [f"## {heading}", "", text, ""]
    if reflex is not None:
        parts += ["## Reflex", "", reflex, ""]
    return "\n".join(parts)
