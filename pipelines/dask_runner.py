"""Beam's Dask runner, with the four gaps that stop a real pipeline fixed (extra ``dask``).

``--runner=DaskRunner`` (or Beam's class path, ``apache_beam.runners.dask.dask_runner.DaskRunner``: see
pipelines.runners) runs the build on this subclass of Beam's runner: the same translation of Beam steps to ``dask.bag`` operations,
against the ``dask.distributed`` cluster that ``--dask_client_address`` names (a local cluster without it).
What Beam 2.77's runner does, and why it cannot run this build as it is:

* **Only the last step is computed.** Beam hands Dask the graph of the last step it translated, so a write
  that no later step consumes never runs. Here: every step nothing consumes (every sink) is computed.
* **Side inputs recompute their whole upstream inside a worker**, by calling ``compute()`` on a bag from
  within a task: the upstream graph, DoFns already set up included, is pickled again (a loaded model
  is not picklable) and every model stage before it runs again. Here: each step is persisted on the
  cluster as it is translated (later steps depend on its results, not on its graph), and a side input is
  a ``dask`` Item (the step's elements as one list), an ordinary dependency of the tasks that read it.
* **The outputs of a multi-output ParDo reach every consumer mixed**, and what a DoFn emits in
  ``finish_bundle`` (Beam's batching, so RunInference's last batch) is dropped. Here: each consumer sees its
  own tag, and the results are collected after ``finish_bundle``.
* **Nothing spreads work**: a bag keeps the partitions of the ``Create`` it started from (a handful of
  files: one partition, one core). Here: every GroupByKey shuffles into as many partitions as the cluster
  has threads (or ``--dask_npartitions``), so the stages after it run on every worker.
* ``beam.io.Read`` (``ReadFromParquet``: the saved state of an incremental build) became a no-op; here the
  source is split into bundles and read on the workers.

Metrics stay unsupported (Beam's ``NotImplementedError``): the build's counts are data (stats.json), so the
stage table shows counts without busy seconds on this runner.
"""

from __future__ import annotations

import collections
import dataclasses
import math
import typing as t

import apache_beam as beam
from apache_beam import TaggedOutput, pvalue
from apache_beam.pipeline import PipelineVisitor
from apache_beam.runners.dask import dask_runner as beam_dask
from apache_beam.runners.dask.overrides import _Create, _Flatten, _GroupAlsoByWindow, _GroupByKeyOnly, _Read
from apache_beam.runners.dask.transform_evaluator import OneReceiver, defenestrate, get_windowed_value
from apache_beam.transforms.sideinputs import SideInputMap

from pipelines.beam.bundles import run_bundle, unwrap

READ_BUNDLE_BYTES = 64 << 20


def _run_bundle(items, fn, label, window_fn, args, kwargs, side_specs, *side_values):
    """One partition through a DoFn: setup, start, every element, finish, teardown; what it emitted, main
    outputs as values and tagged ones as TaggedOutput(tag, value), after finish_bundle."""
    receivers = OneReceiver()
    sides = [SideInputMap(view_class, view_options, [get_windowed_value(v, wfn) for v in values])
             for (view_class, view_options, wfn), values in zip(side_specs, side_values)]
    run_bundle(fn, label, window_fn, receivers[None], receivers, sides, args, kwargs, items)
    return [TaggedOutput(v.tag, unwrap(v.value)) if isinstance(v, TaggedOutput) else unwrap(v)
            for v in receivers.values]


def _concat(parts):
    return [x for part in parts for x in part]


def _as_item(bag):
    """A bag as one dependency holding all its elements (a side input)."""
    return bag.reduction(list, _concat)


def _of_tag(bag, tag):
    """The elements of one output of a multi-output step (tag None: the main output)."""
    if tag is None:
        return bag.filter(lambda x: not isinstance(x, TaggedOutput))
    return bag.filter(lambda x, t=tag: isinstance(x, TaggedOutput) and x.tag == t).map(lambda x: x.value)


def _read_bundle(bundle):
    source = bundle.source
    return list(source.read(source.get_range_tracker(bundle.start_position, bundle.stop_position)))


def _group_value(item):
    k, v = item
    return k, [defenestrate(elm[1]) for elm in v]


def _key(item):
    return item[0]


@dataclasses.dataclass
class _Translator(PipelineVisitor):
    """Beam's leaf steps -> dask bags, in pipeline order."""

    client: t.Any  # dask.distributed.Client
    partitions: int
    bag_kwargs: dict
    bags: dict = dataclasses.field(default_factory=collections.OrderedDict)
    consumed: set = dataclasses.field(default_factory=set)

    def _bag_of(self, pcoll):
        producer = pcoll.producer
        self.consumed.add(producer)
        bag = self.bags[producer]
        return _of_tag(bag, pcoll.tag) if len(producer.outputs) > 1 else bag

    def visit_transform(self, node) -> None:
        import dask.bag as db

        transform = node.transform
        inputs = [self._bag_of(i) for i in node.inputs if not isinstance(i, pvalue.PBegin)]
        if isinstance(transform, _Create):
            self.bags[node] = self._create(transform.values)
        elif isinstance(transform, _Read):
            bundles = list(transform.source.split(READ_BUNDLE_BYTES))
            self.bags[node] = db.from_sequence(bundles, npartitions=max(1, len(bundles))).map(_read_bundle).flatten()
        elif isinstance(transform, _Flatten):
            self.bags[node] = db.concat(inputs)
        elif isinstance(transform, _GroupByKeyOnly):
            self.bags[node] = inputs[0].groupby(_key, npartitions=self.partitions).map(_group_value)
        elif isinstance(transform, beam.ParDo) and not isinstance(transform, _GroupAlsoByWindow):
            self.bags[node] = self._par_do(node, inputs[0])
        else:  # composites' leaves that pass elements on (Reshuffle, GroupAlsoByWindow after the grouping)
            self.bags[node] = inputs[0] if inputs else None
        if self.bags[node] is not None:
            # run it now, on the cluster: later steps (and side inputs) then depend on its results, not on
            # its whole graph again (a graph that nests every upstream graph grows without bound)
            self.bags[node] = self.client.persist(self.bags[node])

    def _create(self, values):
        import dask.bag as db

        n = self.bag_kwargs.get("npartitions") or self.partitions
        return db.from_sequence(list(values), npartitions=max(1, min(n, len(values) or 1)))

    def _par_do(self, node, bag):
        transform = node.transform
        args, kwargs = transform.raw_side_inputs
        main = next(iter(node.main_inputs.values()))
        window_fn = main.windowing.windowfn if hasattr(main, "windowing") else None
        specs, items = [], []
        for si in node.side_inputs:
            specs.append((type(si), si._view_options(), si._window_mapping_fn))
            items.append(_as_item(self._bag_of(si.pvalue)))
        return bag.map(get_windowed_value, window_fn).map_partitions(
            _run_bundle, transform.fn, transform.label, window_fn, tuple(args), kwargs, specs, *items)

    def sinks(self) -> list:
        return [bag for node, bag in self.bags.items() if node not in self.consumed and bag is not None]


class _Result(beam_dask.DaskRunnerResult):
    """Beam's result, closing its client once the pipeline is over (and the local cluster it started, if
    any): a client left open keeps reconnecting to a cluster that has gone."""

    def wait_until_finish(self, duration=None) -> str:
        try:
            return super().wait_until_finish(duration)
        finally:
            if duration is None or self.state in ("DONE", "FAILED", "CANCELLED"):
                self.client.close()


class DaskRunner(beam_dask.DaskRunner):
    """Beam's DaskRunner, computing every sink, with side inputs as dependencies (see the module doc)."""

    def run_pipeline(self, pipeline, options):
        import dask.distributed as ddist

        dask_options = options.view_as(beam_dask.DaskOptions).get_all_options(drop_default=True, current_only=True)
        bag_kwargs = beam_dask.DaskOptions._extract_bag_kwargs(dask_options)
        client = ddist.Client(**dask_options)
        threads = sum(client.nthreads().values()) or 1
        pipeline.replace_all(beam_dask.dask_overrides())
        translator = _Translator(client, bag_kwargs.get("npartitions") or max(1, math.ceil(threads)), bag_kwargs)
        pipeline.visit(translator)
        futures = client.compute(translator.sinks())
        return _Result(client, futures)
