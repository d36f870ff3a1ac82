"""A skill's trigger: one line saying when to use it, read from its body (pure).

The trigger is the text of the body's trigger section, found the way the form check finds it
(``## When to use`` or ``## Trigger``, see ``form``). Each list item and each paragraph of the
section becomes one part, its spacing collapsed; the parts are joined by ``"; "``, so that a
"Don't use when: ..." line stays in the trigger, written as it is. Fenced code is left out. A
body without the section, or with an empty one, has no trigger (None).
"""

from __future__ import annotations

import re

from resolvers.skills.form import role_text, sections

TRIGGER_SEPARATOR = "; "
_ITEM = re.compile(r"[ \t]*(?:[0-9]{1,9}[.)]|[-*+])[ \t]+")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def _parts(text: str) -> list[str]:
    """The section's list items and paragraphs, each on one line, fenced code left out."""
    parts: list[list[str]] = []
    fence: str | None = None
    open_part = False
    for line in text.split("\n"):
        marker = _FENCE.match(line)
        if fence is not None:
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence):
                fence = None
            continue
        if marker:
            fence, open_part = marker.group(1), False
            continue
        item = _ITEM.match(line)
        if item:
            parts.append([line[item.end() :]])
            open_part = True
        elif not line.strip():
            open_part = False
        elif open_part:
            parts[-1].append(line)
        else:
            parts.append([line])
            open_part = True
    joined = (" ".join(" ".join(part).split()) for part in parts)
    return [part for part in joined if part]


def trigger(body: str) -> str | None:
    """When to use the skill, on one line, its "don't use when" part included; None when the
    body has no trigger section or an empty one."""
    text = role_text(sections(body), "trigger")
    if text is None:
        return None
    parts = _parts(text)
    return TRIGGER_SEPARATOR.join(parts) if parts else None
