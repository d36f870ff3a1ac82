"""`skillmem` in this process: `--version`, help on every command and every option, and a
mistake on the command line answered in one line with exit code 2 (no traceback)."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import version

import pytest
import typer
from pytest_httpserver import HTTPServer
from typer.core import TyperGroup

from gateway.cli.main import app, main
from resolvers.skills.archive.members import ArchiveFile, ArchiveFolder
from resolvers.skills.archive.write import write_zip


def commands() -> Iterator[tuple[str, object]]:
    """Every command and group of the command line, by its full name."""
    top = typer.main.get_command(app)
    todo: list[tuple[str, object]] = [("skillmem", top)]
    while todo:
        name, command = todo.pop()
        yield name, command
        if isinstance(command, TyperGroup):
            todo.extend((f"{name} {sub}", child) for sub, child in command.commands.items())


def test_version_prints_the_package_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"skillmem {version('skillmem')}\n"


def test_every_command_and_every_option_has_help():
    names = []
    for name, command in commands():
        names.append(name)
        assert getattr(command, "help", None), f"{name} has no help"
        for param in command.params:  # type: ignore[attr-defined]
            if param.param_type_name == "option" or param.param_type_name == "argument":
                assert getattr(param, "help", None), f"{name} {param.name} has no help"
    # Every group and verb the README lists is there.
    for verb in (
        "serve",
        "worker",
        "migrate",
        "demo",
        "load",
        "token create",
        "workspace create",
        "workspace list",
        "agent create",
        "api-key create",
        "skills pull",
        "skills push",
        "schema",
        "schema inspect",
        "records search",
        "dreamer run",
    ):
        assert f"skillmem {verb}" in names, verb


@pytest.mark.parametrize(
    "argv",
    [
        ["-h"],
        ["load", "--help"],
        ["token", "create", "-h"],
        ["records", "search", "-h"],
        ["schema", "inspect", "-h"],
    ],
)
def test_help_is_printed_with_exit_code_0(argv, capsys):
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("Usage: skillmem")
    assert "-h, --help" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bogus"], "No such command 'bogus'"),
        (["records", "search", "memory"], "Missing option '--query'"),
        (["records", "search", "deals", "--query", "x"], "Invalid value for 'OBJECT'"),
        (["load"], "Missing argument 'FILE'"),
        (["worker", "--concurrency", "0"], "Invalid value for '--concurrency'"),
        (["token", "create", "--workspace", "Demo"], "give exactly one of --member"),
        (["skills", "pull", "out"], "give --token or set SKILLMEM_TOKEN"),
    ],
)
def test_a_command_line_mistake_is_one_line_and_exit_code_2(argv, message, capsys, monkeypatch):
    monkeypatch.delenv("SKILLMEM_TOKEN", raising=False)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_a_url_that_is_no_url_is_one_line_and_exit_code_2(capsys):
    argv = ["records", "search", "memory", "-q", "x", "--url", "http://[::1", "--token", "smk_x"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("skillmem: --url http://[::1 is not a URL")
    assert "Traceback" not in err


def test_a_folder_that_cannot_be_written_is_one_line_and_exit_code_2(
    tmp_path, capsys, httpserver: HTTPServer
):
    # A server of the test's own answers an export with one skill; DIR lies under a file.
    skill = b"---\nname: blocked\ndescription: Blocked.\n---\nBody.\n"
    folder = ArchiveFolder("blocked", {"SKILL.md": ArchiveFile("SKILL.md", skill, 0o644)})
    httpserver.expect_request("/skills/export", method="POST").respond_with_data(
        write_zip([folder]), content_type="application/zip"
    )
    # ... and the skills panel that AGENT_MEMORY.md is written from.
    httpserver.expect_request("/graphql", method="POST").respond_with_json(
        {"data": {"skillsPanel": [{"name": "blocked", "trigger": None, "dormant": False}]}}
    )
    blocker = tmp_path / "file"
    blocker.write_text("x")
    argv = ["skills", "pull", str(blocker / "skills"), "--url", httpserver.url_for("/")]
    assert main([*argv, "--token", "smk_x"]) == 2
    err = capsys.readouterr().err
    assert err == f"skillmem: Not a directory: {blocker / 'skills'}\n"
