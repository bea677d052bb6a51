"""A Beam runner that runs the build's graph in this process, as plain Python over lists (``--runner LocalRunner``).

Beam's DirectRunner runs a graph through its portable machinery: the graph is translated to protos, fused
into stages, and every element is encoded and decoded between stages. For a large log that machinery pays
its way (elements stream through fused stages; shuffles are compact bytes). For a small day's increment it
is a fixed cost of its own: the graph has about 135 fused stages and each pays, whatever its elements (11 s of
a +1% day's 43 s at 1M rows, docs/measurements/build-time-and-memory.md).

This runner runs the same graph, the same DoFns through Beam's own ``DoFnInvoker`` (setup, start_bundle,
process, finish_bundle, teardown), each step once over the whole of its input as one bundle, in the
pipeline's order; a GroupByKey is a dict of lists. So a build's store is the DirectRunner's (the tests compare
every table and index), without the translation, the fusion or the coders. What it gives up is streaming: every
step's output is held as a list until its last consumer has run, so it is for inputs that fit in memory
several times over: the build picks it by itself for a small input (``pipelines.runners.default_runner``).

Beam's metrics work as on any runner (stage busy time, cache hits, model calls): each step runs under a
metrics container of its own, and the result's ``metrics()`` answers queries over them.
"""

from __future__ import annotations

import collections

import apache_beam as beam
from apache_beam import pvalue
from apache_beam.internal import pickler
from apache_beam.metrics.execution import MetricResult, MetricsContainer
from apache_beam.metrics.metric import MetricResults
from apache_beam.pipeline import PipelineVisitor, PTransformOverride
from apache_beam.runners.common import Receiver
from apache_beam.runners.dask.overrides import _Create, _Read, _Reshuffle  # Beam's own primitives for them
from apache_beam.runners.runner import PipelineResult, PipelineRunner, PipelineState
from apache_beam.runners.worker import statesampler
from apache_beam.transforms.sideinputs import SideInputMap
from apache_beam.transforms.window import GlobalWindow, GlobalWindows
from apache_beam.utils.counters import CounterFactory
from apache_beam.utils.windowed_value import WindowedValue

from pipelines.beam.bundles import run_bundle, unwrap

_GLOBAL = (GlobalWindow(),)


def _windowed(value) -> WindowedValue:
    return value if isinstance(value, WindowedValue) else WindowedValue(value, 0, _GLOBAL)


class _Outputs(Receiver):
    """One output of a step (tag None: the main one), kept as plain values in ``by_tag``."""

    def __init__(self, by_tag: dict, tag=None):
        self.values = by_tag[tag]

    def receive(self, windowed_value):
        self.values.append(unwrap(windowed_value))


class _TaggedOutputs(dict):
    """The receivers of a step's tagged outputs, made on first use (a DoFn's tags are known when it emits them)."""

    def __init__(self, by_tag: dict):
        super().__init__()
        self.by_tag = by_tag

    def __missing__(self, tag):
        self[tag] = _Outputs(self.by_tag, tag)
        return self[tag]


def _run_par_do(fn, label: str, window_fn, args, kwargs, sides, items) -> dict:
    """One step's DoFn over all its input as one bundle; {tag: [values]}."""
    by_tag: dict = collections.defaultdict(list)
    run_bundle(fn, label, window_fn, _Outputs(by_tag), _TaggedOutputs(by_tag), sides, args, kwargs,
               (_windowed(item) for item in items))
    return by_tag


def _read(source) -> list:
    return list(source.read(source.get_range_tracker(None, None)))


def _group(items) -> list:
    """A GroupByKey's grouping: each key once, in the order keys first came, with its values in arrival order."""
    groups: dict = {}
    for key, value in items:
        groups.setdefault(key, []).append(value)
    return list(groups.items())


class _Primitive(PTransformOverride):
    """Beam's composite Create and Read, and Reshuffle, as primitives this runner runs itself (Beam's Dask runner's).

    GroupByKey and Flatten are primitives already and run as they are. Replacing each GroupByKey by the three
    steps the Dask runner expands it to (ReifyWindows, a grouping, GroupAlsoByWindow) applied each of them to the
    graph, about 1 s of a +1% day, and ran ReifyWindows over every element."""

    def __init__(self, kind, make):
        self.kind, self.make = kind, make

    def matches(self, applied_ptransform) -> bool:
        return applied_ptransform.transform.__class__ is self.kind

    def get_replacement_transform_for_applied_ptransform(self, applied_ptransform):
        return self.make(applied_ptransform.transform)


def _primitives() -> list:
    return [_Primitive(beam.Create, lambda t: _Create(t.values)), _Primitive(beam.io.Read, lambda t: _Read(t.source)),
            _Primitive(beam.Reshuffle, lambda t: _Reshuffle())]


class _Consumers(PipelineVisitor):
    """How many steps read each step's outputs (main or side input): a list is dropped after its last."""

    def __init__(self):
        self.count: collections.Counter = collections.Counter()

    def visit_transform(self, node) -> None:
        for i in list(node.inputs) + [si.pvalue for si in node.side_inputs]:
            if not isinstance(i, pvalue.PBegin):
                self.count[i.producer] += 1


class _Executor(PipelineVisitor):
    """Beam's leaf steps, run in pipeline order over lists."""

    def __init__(self, consumers: collections.Counter):
        self.outputs: dict = {}  # step -> {tag: [values]}
        self.left = consumers
        self.containers: list[MetricsContainer] = []
        self.sampler = statesampler.StateSampler("local", CounterFactory())

    def _values(self, pcoll) -> list:
        producer = pcoll.producer
        values = self.outputs[producer].get(pcoll.tag, [])
        self.left[producer] -= 1
        if self.left[producer] <= 0:
            del self.outputs[producer]
        return values

    def visit_transform(self, node) -> None:
        transform = node.transform
        if isinstance(transform, _Create):
            out = {None: list(transform.values)}
        elif isinstance(transform, _Read):
            out = {None: _read(transform.source)}
        elif isinstance(transform, beam.Flatten):
            out = {None: [v for i in node.inputs for v in self._values(i)]}
        elif isinstance(transform, beam.GroupByKey):
            out = {None: _group(self._values(node.inputs[0]))}
        elif isinstance(transform, beam.ParDo):
            out = self._par_do(node)
        elif node.inputs and not isinstance(node.inputs[0], pvalue.PBegin):  # leaves that pass elements on
            out = {None: self._values(node.inputs[0])}
        else:  # a source of another kind (Impulse, a splittable DoFn's read): none in this build's graph
            raise NotImplementedError(f"LocalRunner: {node.full_label} ({type(transform).__name__}) is not supported; "
                                      "use --runner DirectRunner")
        if self.left[node] > 0:
            self.outputs[node] = out

    def _par_do(self, node) -> dict:
        transform = node.transform
        args, kwargs = getattr(transform, "args", []), getattr(transform, "kwargs", {})  # side inputs as placeholders
        sides = [SideInputMap(type(si), si._view_options(), [_windowed(v) for v in self._values(si.pvalue)])
                 for si in node.side_inputs]
        main = next(iter(node.main_inputs.values()))
        window_fn = main.windowing.windowfn if hasattr(main, "windowing") else GlobalWindows()
        items = self._values(main)
        fn = pickler.roundtrip(transform.fn)  # a fresh DoFn, as a worker would have (pickled, not compressed)
        container = MetricsContainer(node.full_label)
        self.containers.append(container)
        with self.sampler.scoped_state(node.full_label, "process", metrics_container=container):
            return _run_par_do(fn, transform.label, window_fn, args, kwargs, sides, items)


class _LocalMetrics(MetricResults):
    def __init__(self, containers: list[MetricsContainer]):
        self._counters = {}
        for c in containers:
            self._counters.update(c.get_cumulative().counters)

    def query(self, filter=None):
        counters = [MetricResult(k, v, v) for k, v in self._counters.items() if self.matches(filter, k)]
        return {self.COUNTERS: counters, self.DISTRIBUTIONS: [], self.GAUGES: [], self.STRINGSETS: [],
                self.BOUNDED_TRIES: []}


class LocalResult(PipelineResult):
    def __init__(self, metrics: _LocalMetrics):
        super().__init__(PipelineState.DONE)
        self._metrics = metrics

    def wait_until_finish(self, duration=None):
        return self._state

    def metrics(self):
        return self._metrics


class LocalRunner(PipelineRunner):
    """Runs a pipeline in this process over lists (see the module doc)."""

    def run_pipeline(self, pipeline, options):
        pipeline.replace_all(_primitives())
        consumers = _Consumers()
        pipeline.visit(consumers)
        executor = _Executor(consumers.count)
        previous = statesampler.get_current_tracker()
        statesampler.set_current_tracker(executor.sampler)
        try:
            pipeline.visit(executor)
        finally:
            statesampler.set_current_tracker(previous)
        return LocalResult(_LocalMetrics(executor.containers))
