"""The skills the product ships, read from their folders without a database: each one valid for
the reference validator skills-ref and passing the L1 form check, and what each states true of
the product (its GraphQL operations valid against schema.graphql, its CLI commands, its lists
of refusal reasons and types)."""

from __future__ import annotations

import ast
import importlib.util
import re
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import typer
from graphql import build_schema, parse, validate
from hypothesis import given
from hypothesis import strategies as st
from skills_ref.validator import validate as skills_ref_validate

from gateway.cli.main import app as cli_app
from resolvers.catalog.shipped import shipped_skill, shipped_skills
from resolvers.memory.dreamer.refusals import REASONS
from resolvers.memory.proposals import text_problems
from resolvers.memory.souvenir_types import SOUVENIR_TYPES, TYPE_ALIASES
from resolvers.skills.fields import SHIPPED_SKILL_NAMES, SHIPPED_SKILLS_DIR
from resolvers.skills.form import form_check

ROOT = Path(__file__).resolve().parents[2]
NAMES = sorted(SHIPPED_SKILL_NAMES)
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def folder_of(name: str) -> Path:
    return SHIPPED_SKILLS_DIR / name


def blocks(name: str, language: str) -> list[str]:
    """The fenced blocks of a language in every markdown file of a shipped skill."""
    found = []
    for path in sorted(folder_of(name).rglob("*.md")):
        found += [m[2] for m in FENCE.finditer(path.read_text()) if m[1] == language]
    return found


def script_operations(name: str) -> list[str]:
    """The GraphQL operations the skill's scripts send (their ``OPERATION`` constant)."""
    found = []
    for path in sorted(folder_of(name).glob("scripts/*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
                "OPERATION"
            ]:
                found.append(ast.literal_eval(node.value))
    return found


def test_the_product_ships_at_least_four_skills_and_reserves_their_names():
    assert len(NAMES) >= 4
    assert [one.name for one in shipped_skills()] == NAMES
    assert all(one.name.startswith("skillmem-") for one in shipped_skills())


@pytest.mark.parametrize("name", NAMES)
def test_each_shipped_skill_is_valid_for_skills_ref(name):
    assert skills_ref_validate(folder_of(name)) == []


@pytest.mark.parametrize("name", NAMES)
def test_each_shipped_skill_passes_the_form_check(name):
    checks = form_check(name, shipped_skill(name).body)
    assert [(c.name, c.passed) for c in checks if not c.passed] == []


@pytest.mark.parametrize("name", NAMES)
def test_each_shipped_skill_has_a_script_or_a_reference(name):
    found = shipped_skill(name)
    assert found.files and all(f.size > 0 for f in found.files)
    assert all(f.script == f.path.startswith("scripts/") for f in found.files)


@pytest.mark.parametrize("name", NAMES)
def test_every_graphql_operation_a_skill_states_is_valid_against_the_schema(name):
    schema = build_schema((ROOT / "schema.graphql").read_text())
    operations = blocks(name, "graphql") + script_operations(name)
    for operation in operations:
        assert validate(schema, parse(operation)) == [], operation
    if (folder_of(name) / "scripts").is_dir():
        assert script_operations(name)


def command_paths(group: Any, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    paths = set()
    for word, command in group.commands.items():
        paths.add((*prefix, word))
        if hasattr(command, "commands"):
            paths |= command_paths(command, (*prefix, word))
    return paths


def test_every_skillmem_command_a_skill_states_exists():
    known = command_paths(typer.main.get_group(cli_app))
    stated = set()
    for name in NAMES:
        for block in blocks(name, "sh"):
            for line in block.splitlines():
                if line.startswith("skillmem "):
                    words = tuple(w for w in line.split()[1:] if not w.startswith(("-", ".")))
                    stated.add(next(words[:n] for n in (2, 1) if words[:n] in known))
    assert stated == {("skills", "pull"), ("skills", "push")}


def test_the_refusals_a_skill_lists_are_the_dreamers():
    text = (folder_of("skillmem-propose-memory") / "references" / "refusals.md").read_text()
    listed = re.findall(r"^\| `([a-z_]+)` \|", text, re.MULTILINE)
    assert sorted(listed) == sorted(REASONS)
    typed = re.findall(r"`\[([^\]]+)\]`", text)
    assert set(typed) == set(SOUVENIR_TYPES) | {a for forms in TYPE_ALIASES.values() for a in forms}


def load_script(path: Path) -> ModuleType:
    sys.dont_write_bytecode = True  # nothing written into the shipped folder
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PROPOSE = load_script(folder_of("skillmem-propose-memory") / "scripts" / "propose.py")


@given(st.text(max_size=30) | st.text(min_size=1995, max_size=2005))
def test_the_propose_script_refuses_what_the_server_refuses(text):
    assert bool(PROPOSE.problems(text)) == bool(text_problems(text))


def test_package_data_carries_every_file_of_the_shipped_skills():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["resolvers"]
    package = ROOT / "resolvers"
    carried = {p for pattern in patterns for p in package.glob(pattern) if p.is_file()}
    shipped = {
        p for p in SHIPPED_SKILLS_DIR.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    }
    assert shipped and shipped <= carried
