"""The house rules CONTRIBUTING.md states, checked: module and function sizes, and imports that
only point down (gateway → schema → resolvers → db). Complexity is ruff's C90 (`make check`)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("gateway", "schema", "resolvers", "db")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
# What each layer may not import. Strawberry stays in schema/ and gateway/.
FORBIDDEN = {
    "gateway": set(),
    "schema": {"gateway"},
    "resolvers": {"gateway", "schema", "strawberry"},
    "db": {"gateway", "schema", "resolvers", "strawberry"},
}


def _modules() -> list[Path]:
    return sorted(p for layer in LAYERS for p in (ROOT / layer).rglob("*.py"))


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _imported(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_the_layers_hold_modules():
    assert len(_modules()) > 40


@pytest.mark.parametrize("path", _modules(), ids=_name)
def test_a_module_stays_short(path: Path):
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_MODULE_LINES, f"{_name(path)} has {lines} lines"


def _long_functions(source: str) -> list[str]:
    long = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            length = (node.end_lineno or node.lineno) - start + 1
            if length > MAX_FUNCTION_LINES:
                long.append(f"{node.name} ({length} lines)")
    return long


@pytest.mark.parametrize("path", _modules(), ids=_name)
def test_a_function_stays_short(path: Path):
    long = _long_functions(path.read_text())
    assert not long, f"{_name(path)}: {', '.join(long)}"


@pytest.mark.parametrize("path", _modules(), ids=_name)
def test_imports_point_down(path: Path):
    layer = path.relative_to(ROOT).parts[0]
    wrong = _imported(ast.parse(path.read_text())) & FORBIDDEN[layer]
    assert not wrong, f"{_name(path)} ({layer}) imports {sorted(wrong)}"


def test_the_checks_catch_what_they_look_for():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES - 1))
    assert _long_functions(f"def f():\n{body}\n") == []
    assert _long_functions(f"@decorated\ndef f():\n{body}\n") == ["f (61 lines)"]
    assert _imported(ast.parse("import strawberry.types\nfrom db.pool import x\n")) == {
        "strawberry",
        "db",
    }
