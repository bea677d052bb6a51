"""qabase: one console command, each subcommand = its tool's python -m form with the same arguments."""

import argparse
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines import cli

ROOT = Path(__file__).resolve().parents[2]


def test_every_subcommand_runs_a_tool_main():
    for name, (module, _) in cli.COMMANDS.items():
        assert callable(importlib.import_module(module).main), name


def test_help_lists_every_command(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(f"  {name}" in out for name in cli.COMMANDS)
    assert cli.main([]) == 2


def test_unknown_command_is_one_error_line(capsys):
    assert cli.main(["biuld"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown command 'biuld' (did you mean build?)") and err.count("\n") == 1


@pytest.mark.parametrize("args", [["--print-config", "--top-k", "7"], ["--output", "x", "--no-such-flag"]])
def test_build_takes_the_arguments_of_python_m_pipelines_build_base(args):
    def run(cmd):
        p = subprocess.run([sys.executable, *cmd, *args], capture_output=True, text=True, cwd=ROOT)
        return p.returncode, p.stdout, p.stderr.strip().splitlines()[-1:]

    assert run(["-m", "pipelines.cli", "build"]) == run(["-m", "pipelines.build_base"])


def test_score_subcommand_is_python_m_models_tools_score(tmp_path):
    q = tmp_path / "q.txt"
    q.write_text("How do I reset my password?\nhello\n", encoding="utf-8")
    outs = []
    for cmd in (["-m", "pipelines.cli", "score"], ["-m", "models.tools.score"]):
        out = tmp_path / f"out{len(outs)}.jsonl"
        subprocess.run([sys.executable, *cmd, "gec", "--input", str(q), "--output", str(out), "--backend", "zh-heuristic"],
                       check=True, cwd=ROOT, capture_output=True)
        outs.append(out.read_text(encoding="utf-8"))
    assert outs[0] == outs[1] and outs[0].count("\n") == 2


# --- every command's help: named `qabase COMMAND`, every option explained, defaults shown -------------------------

def _parsers():
    """(command, its parser) for every command, and the `score all` form, built without running the tool."""
    for name, (module, _) in cli.COMMANDS.items():
        yield name, importlib.import_module(module).build_parser()
    yield "score all", importlib.import_module("models.tools.judge_all").build_parser()


@pytest.mark.parametrize("name,parser", list(_parsers()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_command_names_itself_and_explains_every_option(name, parser):
    text = parser.format_help()
    assert text.startswith(f"usage: qabase {name} "), text.splitlines()[0]
    unexplained = [a.option_strings or a.dest for a in parser._actions
                   if not isinstance(a, argparse._HelpAction) and not (a.help and a.help.strip())]
    assert not unexplained, f"qabase {name}: no help for {unexplained}"


def test_help_shows_defaults_once_and_hides_the_empty_ones():
    from indexes.serve import build_parser as serve_parser
    from pipelines.build_base import build_parser as build_parser_

    serve = " ".join(serve_parser().format_help().split())  # wrapped lines joined
    assert "(default: 8000)" in serve and "(default: 127.0.0.1)" in serve and "(default: hybrid)" in serve
    assert "(default 64)" in serve and "(default: None)" not in serve  # said by the help itself: not twice
    build = build_parser_().format_help()
    assert "(default: False)" not in build and "(default: [])" not in build
    from models.tools.train_nonanswer import build_parser as nonanswer_parser

    # a default file is named in its folder's flag (found when the tool runs), the same on every checkout
    assert "(default: nonanswer_eval.tsv in --sets)" in " ".join(nonanswer_parser().format_help().split())
    assert str(ROOT) not in nonanswer_parser().format_help()
    from schemas.commandline import shown_default

    # a path default under the project reads from the project's root
    assert shown_default(ROOT / "benchmarks" / "x.tsv") == "benchmarks/x.tsv"
    assert shown_default(ROOT.parent / "shared" / "data") == "../shared/data"


def test_qabase_build_help_names_qabase_build_and_lists_the_exit_codes(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["build", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: qabase build ")
    table = out[out.index("exit codes:"):]
    for code in ("0", "1", "2", "3", "4", "130"):
        assert f"\n  {code} " in table, table
    assert "quality gate refused" in table and "another build holds the base" in table


def test_build_takes_base_as_well_as_output():
    from pipelines.build_base import parse_args

    assert parse_args(["--base", "b"])[0].output == parse_args(["--output", "b"])[0].output == "b"
    assert parse_args(["--base", "b", "--demo"])[1] == []  # not handed to Beam


def test_exit_codes_come_from_the_error_classes(capsys):
    from pipelines.exits import run_reporting
    from schemas.errors import BuildLockedError, ConfigError, GateRefused, PublishError

    def failing(exc):
        def work():
            raise exc
        return work

    assert run_reporting(lambda: 0) == 0
    assert run_reporting(failing(ConfigError("config: bad"))) == 2
    assert run_reporting(failing(GateRefused("quality gate: refused"))) == 3
    assert isinstance(GateRefused("x"), PublishError)  # callers catching PublishError still catch it
    assert run_reporting(failing(BuildLockedError("another build is running"))) == 4
    assert run_reporting(failing(KeyboardInterrupt())) == 130
    assert run_reporting(failing(RuntimeError("boom"))) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[:3] == ["error: config: bad", "error: quality gate: refused", "error: another build is running"]
    assert lines[3].startswith("error: interrupted") and lines[4].startswith("error: build failed (RuntimeError: boom)")
    assert len(lines) == 5


def test_daily_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    from pipelines.commands import daily

    assert daily.main(["--input-template", "logs/{nope}.jsonl", "--date", "2026-01-01",
                       "--base", str(tmp_path / "base")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: input template 'logs/{nope}.jsonl'"), lines
