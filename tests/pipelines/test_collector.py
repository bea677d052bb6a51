"""A build runs with young garbage collections only (pipelines.collector), and gives the thresholds back; a command
ends without the last full collection."""

import contextlib
import gc
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from pipelines import build, build_base
from pipelines.collector import NEVER, young_collections_only

ROOT = Path(__file__).resolve().parents[2]


def test_inside_the_block_no_full_collection_comes_and_the_thresholds_come_back_even_on_an_error():
    before = gc.get_threshold()
    with pytest.raises(RuntimeError):
        with young_collections_only():
            assert gc.get_threshold() == (before[0], before[1], NEVER)
            with young_collections_only():
                assert gc.get_threshold() == (before[0], before[1], NEVER)
            assert gc.get_threshold() == (before[0], before[1], NEVER)  # the inner block kept the outer's
            raise RuntimeError("a failed build")
    assert gc.get_threshold() == before


def test_a_build_and_the_build_command_run_under_it(monkeypatch, tmp_path):
    seen = []

    @contextlib.contextmanager
    def staged(*args):
        seen.append(("run_build", gc.get_threshold()[2]))
        yield SimpleNamespace(unchanged=True)

    monkeypatch.setattr(build, "_staged", staged)
    build.run_build(["logs.jsonl"], tmp_path, None)

    def command(args, beam_args):
        seen.append(("build_base", gc.get_threshold()[2]))
        return 0

    monkeypatch.setattr(build_base, "_build", command)
    assert build_base.main(["--input", "logs.jsonl", "--base", str(tmp_path)]) == 0
    assert seen == [("run_build", NEVER), ("build_base", NEVER)]
    assert gc.get_threshold()[2] != NEVER


def _exit_with(code_line: str) -> subprocess.CompletedProcess:
    # a cycle whose finalizer speaks: Python's shutdown collection finalizes it, a frozen process's does not
    script = ("import sys\nclass Node:\n    def __del__(self):\n        print('collected', flush=True)\n"
              "a, b = Node(), Node()\na.other, b.other = b, a\ndel a, b\n"
              "import gc\ngc.disable()\n" + code_line)
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_a_command_ends_with_its_status_and_without_the_last_full_collection():
    plain = _exit_with("sys.exit(3)")
    assert (plain.returncode, plain.stdout.split()) == (3, ["collected", "collected"])
    frozen = _exit_with("from pipelines.collector import exit_without_collecting\nexit_without_collecting(3)")
    assert (frozen.returncode, frozen.stdout, frozen.stderr) == (3, "", "")


def test_the_qabase_command_and_the_build_module_end_through_it():
    unknown = subprocess.run([sys.executable, "-c", "import sys; sys.argv = ['qabase', 'biuld']\n"
                              "from pipelines.cli import console; console()"], cwd=ROOT, capture_output=True,
                             text=True, timeout=120)
    assert unknown.returncode == 2 and "did you mean build?" in unknown.stderr
    usage = subprocess.run([sys.executable, "-m", "pipelines.build_base"], cwd=ROOT, capture_output=True, text=True,
                           timeout=300)
    assert usage.returncode == 2 and usage.stderr.startswith("error: usage:")
