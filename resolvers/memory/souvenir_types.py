"""The five souvenir types (DESIGN §5) and the forms a person may type them in. Pure: no I/O.

A souvenir is stored with its canonical French type (``[préférence]``); a line may name it
without accents, in English, in any case (``[preference]``, ``[Preference]``, ``[PRÉFÉRENCE]``),
and is stored canonically.
"""

from __future__ import annotations

import unicodedata

SOUVENIR_TYPES = ("relation", "contexte", "décision", "consigne", "préférence")

# Each canonical type's other names: English, and the French without accents (for these two
# the same word). Any case, and accents or none on any letter, are accepted too (``fold``).
TYPE_ALIASES: dict[str, tuple[str, ...]] = {
    "relation": (),
    "contexte": ("context",),
    "décision": ("decision",),
    "consigne": ("instruction",),
    "préférence": ("preference",),
}


def fold(name: str) -> str:
    """A type's name without accents, in lower case: what two spellings of it share."""
    decomposed = unicodedata.normalize("NFD", name.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


_CANONICAL = {
    fold(form): canonical
    for canonical, aliases in TYPE_ALIASES.items()
    for form in (canonical, *aliases)
}


def canonical_type(name: str) -> str | None:
    """The canonical type a typed name stands for, or None when it names none."""
    return _CANONICAL.get(fold(name))


def accepted_types() -> str:
    """Every accepted form, as an error message lists them."""
    forms = []
    for canonical in SOUVENIR_TYPES:
        others = [f"[{alias}]" for alias in TYPE_ALIASES[canonical]]
        forms.append(f"[{canonical}]" + (f" (or {' or '.join(others)})" if others else ""))
    return "one of " + ", ".join(forms) + ", in any case"
