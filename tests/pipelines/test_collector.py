"""A build runs with young garbage collections only (pipelines.collector), and gives the thresholds back."""

import contextlib
import gc
from types import SimpleNamespace

import pytest

from pipelines import build, build_base
from pipelines.collector import NEVER, young_collections_only


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
