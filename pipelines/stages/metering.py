"""Progress and busy time of stages running inside Beam: one idiom, ``with meter.timing(n):``.

Each stage keeps a :class:`StageMeter`: it logs a progress line every few seconds
("score: 12,000 items so far (850/s)") and reports items and busy milliseconds as Beam
counters (pipelines.stages.counters turns them into the per-stage time table). The
DoFn and ModelHandler helpers below meter through it, so a stage never times itself.
"""

from __future__ import annotations

import contextlib
import logging
import time

from apache_beam.metrics import Metrics
from apache_beam.ml.inference.base import ModelHandler

LOG = logging.getLogger("qabase.progress")
NAMESPACE = "qabase"
LOG_EVERY_S = 5.0

# the order stages appear in the summary table
STAGE_ORDER = ("read", "validate", "count", "paraphrase", "score", "time", "select", "nonanswer", "embed", "aggregate",
               "write")


class StageMeter:
    """Counts items and busy time of one stage; logs progress; reports Beam counters.

    Busy time is only what the stage itself spends (inside :meth:`timing` or :meth:`timed_iter`),
    not the time fused downstream stages spend on the elements it yields.
    """

    def __init__(self, stage: str):
        self.stage = stage
        self._items = Metrics.counter(NAMESPACE, f"{stage}.items")
        self._ms = Metrics.counter(NAMESPACE, f"{stage}.ms")
        self._origin = time.perf_counter()
        self._last_log = self._origin
        self._count = 0
        self._busy = 0.0
        self._flushed_count = 0
        self._flushed_ms = 0

    def tick(self, n: int = 1, busy_s: float = 0.0) -> None:
        self._count += n
        self._busy += busy_s
        now = time.perf_counter()
        if now - self._last_log >= LOG_EVERY_S:
            rate = self._count / max(now - self._origin, 1e-9)
            LOG.info("%s: %s items so far (%.0f/s)", self.stage, f"{self._count:,}", rate)
            self._last_log = now
            self.flush()

    @contextlib.contextmanager
    def timing(self, items: int = 1):
        """The block's time and ``items`` count go to this stage."""
        t0 = time.perf_counter()
        try:
            yield self
        finally:
            self.tick(items, time.perf_counter() - t0)

    def timed_iter(self, iterable):
        """Yield from ``iterable``, counting each item and the time spent producing it."""
        it = iter(iterable)
        while True:
            with self.timing(0):
                try:
                    item = next(it)
                except StopIteration:
                    return
            self.tick(1)
            yield item

    def flush(self) -> None:
        ms = int(self._busy * 1000)
        self._items.inc(self._count - self._flushed_count)
        self._ms.inc(ms - self._flushed_ms)
        self._flushed_count = self._count
        self._flushed_ms = ms

    done = flush


def metered_call(stage: str, fn, items, *args, **kwargs):
    """``fn(items, ...)`` once, its time and ``len(items)`` counted as ``stage`` (for one-off steps)."""
    meter = StageMeter(stage)
    with meter.timing(len(items)):
        out = fn(items, *args, **kwargs)
    meter.done()
    return out


class MeteredMap:
    """A Beam DoFn factory: ``fn`` applied to each element, its time counted as ``stage``."""

    @staticmethod
    def of(stage: str, fn):
        import apache_beam as beam

        class _Fn(beam.DoFn):
            def start_bundle(self):
                self._meter = StageMeter(stage)

            def process(self, element):
                with self._meter.timing(1):
                    out = fn(element)
                yield out

            def finish_bundle(self):
                self._meter.done()

        return beam.ParDo(_Fn())


class ModelBox:
    """A weak-referenceable holder: Beam's Shared keeps loaded models by weak reference."""

    def __init__(self, value):
        self.value = value


class MeteredHandler(ModelHandler):
    """Beam ModelHandler base of the model stages: loading in ``load_model()`` (once per worker, through
    Beam's Shared), inference a batch function run by :meth:`_run`, which meters it as ``stage``."""

    stage = ""

    def __init__(self, batch_size: int):
        super().__init__()
        self._batch_size = batch_size
        self._meter = None

    def _run(self, fn, batch):
        if self._meter is None:
            self._meter = StageMeter(self.stage)
        with self._meter.timing(len(batch)):
            out = fn(list(batch))
        self._meter.done()
        return out

    def batch_elements_kwargs(self):
        return {"min_batch_size": 1, "max_batch_size": self._batch_size}
