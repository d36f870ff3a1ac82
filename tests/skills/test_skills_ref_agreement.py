"""The product never accepts a skill folder the reference validator (skills-ref) refuses.

Each edge case below is written to disk and given both to ``skills_ref.validator.validate``
(in process) and to ``check_folder``. Where skills-ref refuses, the product refuses. Where the
product refuses and skills-ref accepts, the case must be one of the product's narrowings
(DESIGN §3): a non-ASCII name, a metadata value that is not text, a file-path rule, or a
reserved name. Folders whose SKILL.md is not UTF-8 or holds control characters are not given
to skills-ref (it crashes on them); the product must refuse them.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from skills_ref.parser import parse_frontmatter
from skills_ref.validator import validate, validate_metadata

from resolvers.skills.drive import file_path_problems
from resolvers.skills.fields import SKILL_TEMPLATE
from resolvers.skills.folder import check_folder
from resolvers.skills.skill_md import SkillDraft, parse_skill_md, render_skill_md
from tests.skills.folders import DRAFTS

AGENTSKILLS = Path(sys.executable).with_name("agentskills")

# The ways the product is narrower than skills-ref, and how to tell a problem belongs to one.
NARROWINGS = {
    "non-ascii-name": lambda p: p.field == "name" and "ASCII" in p.message,
    "metadata-not-text": lambda p: (p.field or "").startswith("frontmatter.metadata"),
    "file-path": lambda p: (p.field or "").startswith("files"),
    "reserved-name": lambda p: p.field == "name" and "reserved" in p.message,
}
# Control characters refused anywhere in SKILL.md (carriage returns are read as line ends).
UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffe\uffff]")


@dataclass
class Case:
    id: str
    skill_md: str | bytes | None  # None: no SKILL.md at all
    folder: str = "demo"
    accepted: bool = True  # the product's verdict
    narrowing: str | None = None  # why the product refuses what skills-ref accepts
    body_name: str = "SKILL.md"
    other_files: dict[str, bytes] = field(default_factory=dict)


def fm(*lines: str, body: str = "Body.\n") -> str:
    return "---\n" + "".join(f"{line}\n" for line in lines) + "---\n" + body


OK = ("name: demo", "description: A demo skill.")
LONG_DESC = "d" * 1024

CASES = [
    # accepted by both ------------------------------------------------------------------
    Case("plain", fm(*OK)),
    Case("lowercase skill.md", fm(*OK), body_name="skill.md"),
    Case("block literal description", fm("name: demo", "description: |", "  line 1", "  line 2")),
    Case("folded description", fm("name: demo", "description: >", "  line 1", "  line 2", "")),
    Case("single-quoted description", fm("name: demo", "description: 'it''s: # fine'")),
    Case("double-quoted escapes", fm("name: demo", r'description: "tab\there \u00e9 \x2d"')),
    Case("quoted name", fm('name: "demo"', "description: d")),
    Case("name with spaces around it", fm('name: "  demo "', "description: d")),
    Case("crlf line ends", fm(*OK).replace("\n", "\r\n")),
    Case("cr line ends", fm(*OK).replace("\n", "\r")),
    Case("trailing spaces", "---  \nname: demo   \ndescription: d   \n---   \nBody\n"),
    Case("comments", fm("# a comment", "name: demo # the name", *OK[1:])),
    Case("unicode description", fm("name: demo", "description: Résumé des 技能 🙂")),
    Case("description 1024", fm("name: demo", f"description: {LONG_DESC}")),
    Case("name 64", fm(f"name: {'a' * 64}", "description: d"), folder="a" * 64),
    Case("digits name", fm("name: 123", "description: d"), folder="123"),
    Case("all extra fields", fm(*OK, "license: MIT", "compatibility: py3", "allowed-tools: Read")),
    Case("compatibility 500", fm(*OK, f"compatibility: {'c' * 500}")),
    Case("allowed-tools list", fm(*OK, "allowed-tools:", "  - Read", "  - Bash(git:*)")),
    Case("license mapping", fm(*OK, "license:", "  spdx: MIT", "  file: LICENSE")),
    Case("metadata text", fm(*OK, "metadata:", "  author: me", '  version: "1.0"', "  n: 3")),
    Case("metadata flag", fm(*OK, "metadata:", '  disable-model-invocation: "true"')),
    Case("metadata parent", fm(*OK, "metadata:", "  standards-parent: parent-skill")),
    Case("values that look typed", fm(*OK, "license: null", "compatibility: true")),
    Case("nfkc folder", fm("name: file", "description: d"), folder="\ufb01le"),
    Case("explicit key syntax", fm("? name", ": demo", "description: d")),
    Case("no body", "---\nname: demo\ndescription: d\n---"),
    Case("hyphens inside a plain value", fm("name: demo", "description: a---b")),
    Case("tab in body", fm(*OK, body="\tcode\n")),
    Case("drive files", fm(*OK), other_files={"scripts/run.sh": b"x", "references/a.md": b"y"}),
    Case(
        "five folders deep",
        fm(*OK),
        other_files={"a/b/c/d/e/f.txt": b"", "references/SKILL.md": b""},
    ),
    # refused by both -------------------------------------------------------------------
    Case("uppercase name", fm("name: Demo", "description: d"), folder="Demo", accepted=False),
    Case("folder mismatch", fm("name: demo", "description: d"), folder="other", accepted=False),
    Case("unknown field", fm(*OK, "version: 1.0"), accepted=False),
    Case("top-level disable flag", fm(*OK, "disable-model-invocation: true"), accepted=False),
    Case("description 1025", fm("name: demo", f"description: {LONG_DESC}d"), accepted=False),
    Case("name 65", fm(f"name: {'a' * 65}", "description: d"), folder="a" * 65, accepted=False),
    Case("compatibility 501", fm(*OK, f"compatibility: {'c' * 501}"), accepted=False),
    Case("compatibility list", fm(*OK, "compatibility:", "  - py3"), accepted=False),
    Case("empty frontmatter", "---\n---\nBody\n", accepted=False),
    Case("comment-only frontmatter", "---\n# nothing\n---\nBody\n", accepted=False),
    Case("missing closing fence", "---\nname: demo\ndescription: d\n", accepted=False),
    Case("no frontmatter", "# Demo\n\nBody\n", accepted=False),
    Case("leading blank line", "\n" + fm(*OK), accepted=False),
    Case("byte-order mark", "\ufeff" + fm(*OK), accepted=False),
    Case("duplicate keys", fm(*OK, "name: demo"), accepted=False),
    Case("flow mapping", fm(*OK, "metadata: {a: b}"), accepted=False),
    Case("flow list", fm(*OK, "allowed-tools: [Read, Grep]"), accepted=False),
    Case("tab indentation", fm(*OK, "metadata:", "\tauthor: me"), accepted=False),
    Case("anchor and alias", fm("name: &n demo", "description: *n"), accepted=False),
    Case("tag", fm("name: !!str demo", "description: d"), accepted=False),
    Case("missing name", fm("description: d"), accepted=False),
    Case("missing description", fm("name: demo"), accepted=False),
    Case("empty description", fm("name: demo", "description:"), accepted=False),
    Case("blank quoted description", fm("name: demo", 'description: "   "'), accepted=False),
    Case("description mapping", fm("name: demo", "description:", "  a: b"), accepted=False),
    Case("name mapping", fm("name:", "  a: b", "description: d"), accepted=False),
    Case("frontmatter list", fm("- name", "- description"), accepted=False),
    Case("frontmatter scalar", fm("just text"), accepted=False),
    Case("leading hyphen", fm("name: -demo", "description: d"), folder="-demo", accepted=False),
    Case("double hyphen", fm("name: de--mo", "description: d"), folder="de--mo", accepted=False),
    Case("underscore", fm("name: de_mo", "description: d"), folder="de_mo", accepted=False),
    Case("dot in name", fm("name: de.mo", "description: d"), folder="de.mo", accepted=False),
    Case("fullwidth mismatch", fm("name: ｄｅｍｏ", "description: d"), "other", accepted=False),
    Case("accent mismatch", fm("name: café", "description: d"), folder="cafe", accepted=False),
    Case("uppercase accent", fm("name: Café", "description: d"), folder="Café", accepted=False),
    Case("mixed-case file name", fm(*OK), body_name="Skill.md", accepted=False),
    Case("no SKILL.md", None, other_files={"README.md": b"x"}, accepted=False),
    Case("ellipsis document end", fm("name: demo", "...", "description: d"), accepted=False),
    # the product's narrowings: refused here, accepted by skills-ref -------------------------
    Case("accented name", fm("name: café", "description: d"), "café", False, "non-ascii-name"),
    Case("fullwidth name", fm("name: ｄｅｍｏ", "description: d"), "demo", False, "non-ascii-name"),
    Case("ligature name", fm("name: \ufb01le", "description: d"), "file", False, "non-ascii-name"),
    Case("cyrillic name", fm("name: навык", "description: d"), "навык", False, "non-ascii-name"),
    Case("han name", fm("name: 技能", "description: d"), "技能", False, "non-ascii-name"),
    Case(
        "metadata nested",
        fm(*OK, "metadata:", "  a:", "    b: c"),
        "demo",
        False,
        "metadata-not-text",
    ),
    Case(
        "metadata list value",
        fm(*OK, "metadata:", "  a:", "    - b"),
        "demo",
        False,
        "metadata-not-text",
    ),
    Case("metadata is text", fm(*OK, "metadata: me"), "demo", False, "metadata-not-text"),
    Case("metadata is a list", fm(*OK, "metadata:", "  - a"), "demo", False, "metadata-not-text"),
    Case("metadata is empty", fm(*OK, "metadata:"), "demo", False, "metadata-not-text"),
    Case(
        "metadata flag not a boolean",
        fm(*OK, "metadata:", "  disable-model-invocation: yes"),
        accepted=False,
        narrowing="metadata-not-text",
    ),
    Case("reserved name", fm("name: ui", "description: d"), "ui", False, "reserved-name"),
    Case(
        "reserved name 2",
        fm("name: skill-creator", "description: d"),
        "skill-creator",
        False,
        "reserved-name",
    ),
    *[
        Case(f"path: {label}", fm(*OK), accepted=False, narrowing="file-path", other_files=files)
        for label, files in {
            "traversal": {"../x.sh": b""},
            "absolute": {"/etc/x": b""},
            "control character": {"scripts/a\x01.sh": b""},
            "newline": {"a\nb.md": b""},
            "case collision": {"a.md": b"", "A.md": b""},
            "file named like a folder": {"docs": b"", "docs/x.md": b""},
            "SKILL.md and skill.md": {"skill.md": b""},
            "second SKILL.md in another case": {"Skill.MD": b""},
            "six folders deep": {"a/b/c/d/e/f/x.txt": b""},
            "501 files": {f"r/{i}.md": b"" for i in range(501)},
        }.items()
    ],
    # not given to skills-ref (it crashes): the product refuses --------------------------
    Case("invalid utf-8", fm(*OK).encode() + b"\xff\xfe", accepted=False),
    Case(
        "latin-1", "---\nname: demo\ndescription: caf\xe9\n---\n".encode("latin-1"), accepted=False
    ),
    Case("NUL in body", fm(*OK, body="a\x00b"), accepted=False),
    Case("control in description", fm("name: demo", "description: d\x01"), accepted=False),
    Case("escape in frontmatter", fm("name: demo", "description: \x1b[1md"), accepted=False),
    Case("NEL in frontmatter", fm("name: demo", "description: a\x85b"), accepted=False),
    Case("non-character", fm("name: demo", "description: a\uffffb"), accepted=False),
]


def skill_md_bytes(case: Case) -> bytes | None:
    if case.skill_md is None:
        return None
    return case.skill_md if isinstance(case.skill_md, bytes) else case.skill_md.encode("utf-8")


def files_of(case: Case) -> dict[str, bytes]:
    files = dict(case.other_files)
    content = skill_md_bytes(case)
    if content is not None:
        files = {case.body_name: content, **files}
    return files


def skills_ref_can_read(case: Case) -> bool:
    """skills-ref reads SKILL.md as UTF-8 and crashes on control characters."""
    content = skill_md_bytes(case)
    if content is None:
        return True
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return not UNSAFE.search(text)


def write_folder(root: Path, folder: str, files: dict[str, bytes]) -> Path:
    """The folder on disk: SKILL.md and every file that can land safely (skills-ref reads
    only SKILL.md; files that would leave the folder or clash are not written)."""
    target = root / folder
    target.mkdir(parents=True)
    for path, content in files.items():
        if file_path_problems([path]) and path.lower() != "skill.md":
            continue
        where = target / path
        try:
            where.parent.mkdir(parents=True, exist_ok=True)
            where.write_bytes(content)
        except OSError:
            continue
    return target


def skills_ref_errors(folder: Path) -> list[str]:
    try:
        return validate(folder)
    except Exception as error:  # a crash is a refusal
        return [f"crashed: {type(error).__name__}: {error}"]


def test_there_are_enough_edge_cases():
    assert len(CASES) >= 40
    assert len({case.id for case in CASES}) == len(CASES)
    assert {case.narrowing for case in CASES} - {None} == set(NARROWINGS)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_product_never_accepts_what_skills_ref_refuses(case, tmp_path):
    draft, _, problems = check_folder(case.folder, files_of(case))
    accepted = not problems
    assert (draft is not None) is accepted
    assert accepted is case.accepted, [p.as_dict() for p in problems]

    if not skills_ref_can_read(case):
        assert not accepted
        return
    errors = skills_ref_errors(write_folder(tmp_path, case.folder, files_of(case)))
    assert not any(e.startswith("crashed") for e in errors), errors
    if errors:
        assert not accepted, f"skills-ref refuses ({errors}), the product accepts"
        assert case.narrowing is None, f"a narrowing case skills-ref refuses too: {errors}"
    elif not accepted:
        # The product is narrower here: it must be one of the declared narrowings, and every
        # problem must belong to it.
        assert case.narrowing is not None, [p.as_dict() for p in problems]
        belongs = NARROWINGS[case.narrowing]
        assert all(belongs(p) for p in problems), [p.as_dict() for p in problems]
    else:
        assert case.narrowing is None


def test_the_narrowings_are_exactly_the_declared_ones(tmp_path):
    """Where the product refuses and skills-ref accepts, the reason is one of the narrowings."""
    narrower: dict[str, set[str]] = {}
    for index, case in enumerate(CASES):
        if not skills_ref_can_read(case):
            continue
        _, _, problems = check_folder(case.folder, files_of(case))
        errors = skills_ref_errors(write_folder(tmp_path / str(index), case.folder, files_of(case)))
        if problems and not errors:
            kinds = {kind for kind, belongs in NARROWINGS.items() if all(map(belongs, problems))}
            narrower.setdefault(case.narrowing or "undeclared", set()).update(kinds)
    assert set(narrower) == set(NARROWINGS)
    for declared, kinds in narrower.items():
        assert declared in kinds


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(DRAFTS)
def test_skills_ref_validates_every_exported_folder(draft):
    with tempfile.TemporaryDirectory() as root:
        files = {"SKILL.md": render_skill_md(draft).encode(), "scripts/run.sh": b"#!/bin/sh\n"}
        folder = write_folder(Path(root), draft.name, files)
        assert skills_ref_errors(folder) == []
        assert check_folder(draft.name, files)[0] == draft


def run_cli(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(AGENTSKILLS), "validate", str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_cli_agrees_with_the_library_and_the_product(tmp_path):
    valid = SkillDraft("demo", "Use when: testing # the CLI --- ok", SKILL_TEMPLATE, {})
    folders = {
        "valid": write_folder(
            tmp_path / "1", "demo", {"SKILL.md": render_skill_md(valid).encode()}
        ),
        "mismatch": write_folder(tmp_path / "2", "other", {"SKILL.md": fm(*OK).encode()}),
        "unknown field": write_folder(
            tmp_path / "3", "demo", {"SKILL.md": fm(*OK, "x: y").encode()}
        ),
        "non-ascii": write_folder(
            tmp_path / "4", "café", {"SKILL.md": fm("name: café", "description: d").encode()}
        ),
    }
    verdicts = {}
    for label, folder in folders.items():
        done = run_cli(folder)
        assert done.returncode in (0, 1), done.stderr
        files = {p.name: p.read_bytes() for p in folder.iterdir()}
        verdicts[label] = (
            done.returncode == 0,
            validate(folder) == [],
            check_folder(folder.name, files)[2] == [],
        )
    assert verdicts == {
        "valid": (True, True, True),
        "mismatch": (False, False, False),
        "unknown field": (False, False, False),
        "non-ascii": (True, True, False),  # the product's narrowing
    }
    assert "Valid skill" in run_cli(folders["valid"]).stdout
    assert "must match skill name" in run_cli(folders["mismatch"]).stderr


# Generated frontmatter: pieces of YAML, valid and not, put together at random.
KEYS = st.sampled_from(
    ["name", "description", "license", "compatibility", "allowed-tools", "metadata",
     "disable-model-invocation", "version", "Name", '"name"', "'description'", "? name\n:"]
)  # fmt: skip
SCALARS = st.sampled_from(
    ["demo", "Demo", " demo", "café", "ｄｅｍｏ", "\ufb01le", "ui", "", '""', "' '", "a: b",
     "a #b", "#c", '"x\\ty"', "'it''s'", "|\n  text\n  more", ">-\n  folded\n\n  text", "1",
     "true", "null", "~", "[a]", "{a: b}", "&a x", "*a", "!!str x", "x\u00a0", "日本", "a---b",
     "...", "? x", "%x", "@x", "`x", "x ", '"open', "d" * 1025, "c" * 501, '"true"', "yes"]
)  # fmt: skip
NESTED_KEYS = st.sampled_from(["a", "b", "disable-model-invocation", "standards-parent", "'q'"])


@st.composite
def yaml_value(draw: st.DrawFn, depth: int = 0) -> str:
    kind = draw(st.sampled_from(["scalar"] * 4 + (["list", "map"] if depth < 2 else [])))
    pad = "  " * (depth + 1)
    if kind == "scalar":
        return " " + draw(SCALARS)
    if kind == "list":
        items = draw(st.lists(SCALARS, min_size=1, max_size=2))
        return "".join(f"\n{pad}- {item}" for item in items)
    keys = draw(st.lists(NESTED_KEYS, min_size=1, max_size=2))
    return "".join(f"\n{pad}{key}:{draw(yaml_value(depth + 1))}" for key in keys)


@st.composite
def skill_md_texts(draw: st.DrawFn) -> str:
    lines = [f"{key}:{draw(yaml_value())}" for key in draw(st.lists(KEYS, max_size=3))]
    if draw(st.booleans()) or draw(st.booleans()):
        lines.insert(0, "name: demo")
    if draw(st.booleans()) or draw(st.booleans()):
        lines.insert(1, "description: d")
    extra = draw(st.sampled_from(["", "\tx: y", "  indented: z", "# note", "---", "-- x"]))
    return "---\n" + "\n".join([*lines, extra]) + "\n---\nBody\n"


@settings(max_examples=1500, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(skill_md_texts(), st.sampled_from(["demo", "café", "ｄｅｍｏ", "file", "ui", "other"]))
def test_generated_frontmatter_agrees_with_skills_ref(text, folder):
    """skills-ref's own parse and checks (what validate() runs) against the product's."""
    try:
        metadata, _ = parse_frontmatter(text)
        errors = validate_metadata(metadata, Path(folder))
    except Exception as error:  # skills-ref refuses by raising (or crashing)
        errors = [str(error)]
    draft, problems = parse_skill_md(text, folder_name=folder)
    if errors:
        assert problems, f"skills-ref refuses ({errors}), the product accepts"
    elif problems:
        narrowing = [p.as_dict() for p in problems if not any(n(p) for n in NARROWINGS.values())]
        assert narrowing == [], "refused for a reason that is not a narrowing"
    else:
        assert draft is not None and draft.name == metadata["name"].strip()
        assert draft.description == metadata["description"]
