"""The in-process runner (pipelines/local_runner.py): Beam's primitives give the DirectRunner's results, its metrics
are queryable, and a build on it writes the DirectRunner's files, a first build and an increment alike."""

from __future__ import annotations

import json

import apache_beam as beam
import pyarrow.parquet as pq
import pytest
from apache_beam.metrics import Metrics
from apache_beam.metrics.metric import MetricsFilter
from apache_beam.testing.util import assert_that, equal_to

from pipelines.local_runner import LocalRunner
from pipelines.runners import QABASE_LOCAL, default_runner, runner_args

TABLES = ("qa.parquet", "questions.parquet", "rejected.parquet", "accepted_sample.parquet", "topics.parquet",
          "state/questions.parquet")


class _Tagged(beam.DoFn):
    """Main and tagged outputs, a counter, and an output from finish_bundle (Beam's batching pattern)."""

    def start_bundle(self):
        self.n = 0

    def process(self, x, offset):
        Metrics.counter("test", "seen").inc()
        self.n += 1
        yield x + offset
        if x % 2:
            yield beam.pvalue.TaggedOutput("odd", x)

    def finish_bundle(self):
        from apache_beam.transforms.window import GlobalWindow
        from apache_beam.utils.windowed_value import WindowedValue

        yield WindowedValue(-self.n, 0, (GlobalWindow(),))


def _graph(p):
    xs = p | "Xs" >> beam.Create([5, 3, 9, 1, 4])
    words = p | "Words" >> beam.Create([("a", 1), ("b", 2), ("a", 3)])
    out = xs | beam.ParDo(_Tagged(), beam.pvalue.AsSingleton(p | "Off" >> beam.Create([100]))).with_outputs(
        "odd", main="main")
    grouped = words | beam.GroupByKey() | beam.MapTuple(lambda k, vs: (k, sorted(vs)))
    joined = ({"w": words, "g": grouped} | beam.CoGroupByKey()
              | beam.MapTuple(lambda k, d: (k, sorted(d["w"]), list(d["g"]))))
    return {
        "main": out.main,
        "odd": out.odd,
        "grouped": grouped,
        "sums": words | beam.CombinePerKey(sum),
        "top": xs | beam.combiners.Top.Smallest(2),
        "count": xs | beam.combiners.Count.Globally(),
        "empty count": (p | "None" >> beam.Create([])) | "CountNone" >> beam.combiners.Count.Globally(),
        "dict": words | beam.combiners.ToDict(),
        "flat": (xs, out.odd) | beam.Flatten(),
        "joined": joined,
        "sides": xs | beam.Map(lambda x, d, it: (x, d.get("b"), sorted(it)), beam.pvalue.AsDict(grouped),
                               beam.pvalue.AsList(out.odd)),
    }


_GOT: dict = {}  # what _Keep saw, by name: module-level, so a DoFn unpickled in this process writes here


class _Keep(beam.DoFn):
    def __init__(self, name):
        self.name = name

    def process(self, x):
        _GOT.setdefault(self.name, []).append(x)


def _collected(runner) -> dict:
    _GOT.clear()
    p = beam.Pipeline(runner=runner)
    for name, pcoll in _graph(p).items():
        _ = pcoll | f"Keep {name}" >> beam.ParDo(_Keep(name))
    p.run().wait_until_finish()
    return {k: sorted(v, key=repr) for k, v in _GOT.items()}


def test_every_primitive_the_build_uses_gives_the_direct_runner_s_elements():
    local = _collected(LocalRunner())
    assert set(local) == set(_graph(beam.Pipeline()))
    assert local == _collected("DirectRunner")
    assert local["main"] == sorted([101, 103, 104, 105, 109, -5], key=repr)  # finish_bundle's output kept
    assert local["empty count"] == [0]


def test_assert_that_runs_on_it_and_fails_when_it_should():
    p = beam.Pipeline(runner=LocalRunner())
    assert_that(p | beam.Create([1, 2]) | beam.Map(lambda x: x * 2), equal_to([2, 4]))
    p.run()
    p = beam.Pipeline(runner=LocalRunner())
    assert_that(p | beam.Create([1, 2]), equal_to([1, 3]))
    with pytest.raises(Exception, match="Failed assert"):
        p.run()


def test_a_source_it_does_not_know_is_one_clear_error():
    p = beam.Pipeline(runner=LocalRunner())
    _ = p | beam.Impulse() | beam.Map(lambda x: x)
    with pytest.raises(NotImplementedError, match="Impulse.*DirectRunner"):
        p.run()


def test_counters_are_queryable_per_step_as_on_beam_s_runners():
    p = beam.Pipeline(runner=LocalRunner())
    _ = p | beam.Create([1, 2, 3]) | "Tag" >> beam.ParDo(_Tagged(), 0)
    result = p.run()
    counters = result.metrics().query(MetricsFilter().with_namespace("test"))["counters"]
    assert [(c.key.metric.name, c.committed) for c in counters] == [("seen", 3)]
    assert result.wait_until_finish() == "DONE"


def test_a_step_s_output_is_dropped_once_its_last_reader_has_run():
    """Lists are held only while a later step still reads them (the runner's memory)."""
    from apache_beam.runners.dask.overrides import dask_overrides

    from pipelines.local_runner import _Consumers, _Executor

    p = beam.Pipeline(runner=LocalRunner())
    xs = p | beam.Create([1, 2])
    _ = xs | "A" >> beam.Map(lambda x: x) | "B" >> beam.Map(lambda x: x)
    _ = xs | "C" >> beam.Map(lambda x: x)
    p.replace_all(dask_overrides())
    consumers = _Consumers()
    p.visit(consumers)
    executor = _Executor(consumers.count)
    p.visit(executor)
    assert executor.outputs == {}


def test_the_default_runner_follows_the_input_size_and_the_direct_runner_s_own_options():
    mb = 1024 * 1024
    assert default_runner(3 * mb, 64) == QABASE_LOCAL
    assert default_runner(64 * mb, 64) == QABASE_LOCAL
    assert default_runner(64 * mb + 1, 64) == "DirectRunner"
    assert default_runner(0, 0) == "DirectRunner"  # 0: always the DirectRunner
    assert default_runner(10, 64, ["--direct_num_workers=2"]) == "DirectRunner"
    assert runner_args(["--runner=LocalRunner"]) == [f"--runner={QABASE_LOCAL}"]
    assert runner_args(["--runner", "local"]) == ["--runner", QABASE_LOCAL]


def _same_files(a, b):
    for name in TABLES:
        assert pq.read_table(a / name).equals(pq.read_table(b / name)), name
    indexes = sorted(p.name for p in a.iterdir() if p.suffix in (".faiss", ".npy"))
    assert "index.faiss" in indexes
    for name in indexes:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


@pytest.mark.slow
def test_a_build_and_a_day_s_increment_on_it_write_the_direct_runner_s_files(tmp_path):
    """The demo's logs, split in two days: day one on each runner, then day two as an increment on the local
    runner (the default for a small day) against a full rebuild of both days on the DirectRunner."""
    from pipelines.build_base import main
    from pipelines.demo import write_demo_logs

    logs = [str(p) for p in write_demo_logs(tmp_path / "logs")]
    day1 = [a for p in logs[:-1] for a in ("--input", p)]
    both = [a for p in logs for a in ("--input", p)]
    assert main([*day1, "--output", str(tmp_path / "local"), "-q", "--runner=LocalRunner"]) == 0
    assert main([*day1, "--output", str(tmp_path / "direct"), "-q", "--runner=DirectRunner"]) == 0
    _same_files(tmp_path / "local" / "latest", tmp_path / "direct" / "latest")
    assert main([*both, "--output", str(tmp_path / "local"), "-q"]) == 0
    assert main([*both, "--output", str(tmp_path / "rebuild"), "-q", "--runner=DirectRunner"]) == 0
    increment = tmp_path / "local" / "latest"
    _same_files(increment, tmp_path / "rebuild" / "latest")
    manifest = json.loads((increment / "manifest.json").read_text())
    assert manifest["beam"]["runner"] == QABASE_LOCAL
    assert manifest["stages"] and any(row.get("seconds") for row in manifest["stages"])  # metrics reached the table


def test_the_size_that_picks_the_runner_counts_the_saved_state_it_continues(tmp_path):
    from pipelines.build import InputPlan, _input_bytes
    from pipelines.state import PreviousState

    state = tmp_path / "questions.parquet"
    state.write_bytes(b"x" * 1000)
    prev = PreviousState("v1", str(state), [], {}, tmp_path)
    new = [{"path": "day.jsonl", "size": 234}]
    assert _input_bytes(InputPlan(new, [], [], "v1", prev)) == 1234
    assert _input_bytes(InputPlan(new, [], [], None, None)) == 234
