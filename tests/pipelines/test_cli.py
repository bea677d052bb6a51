"""qabase: one console command, each subcommand = its tool's python -m form with the same arguments."""

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
