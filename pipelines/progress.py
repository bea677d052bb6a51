"""Progress and timing for stages running inside Beam.

Each DoFn keeps a :class:`StageMeter`: it logs a progress line every few seconds
("score: 12,000 items, 850/s") and reports items and busy milliseconds as Beam
metrics, which the driver turns into the per-stage time table at the end.
"""

from __future__ import annotations

import logging
import time

from apache_beam.metrics import Metrics

LOG = logging.getLogger("qabase.progress")
NAMESPACE = "qabase"
LOG_EVERY_S = 5.0

# the order stages appear in the summary table
STAGE_ORDER = ("read", "validate", "count", "score", "select", "group", "embed", "aggregate", "write")


class StageMeter:
    """Counts items and busy time of one stage; logs progress; reports Beam metrics.

    Busy time is only what the stage itself spends (``timed`` blocks or ``timed_iter``),
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

    def timed_iter(self, iterable):
        """Yield from ``iterable``, counting each item and the time spent producing it."""
        it = iter(iterable)
        while True:
            t0 = time.perf_counter()
            try:
                item = next(it)
            except StopIteration:
                self._busy += time.perf_counter() - t0
                return
            self.tick(1, time.perf_counter() - t0)
            yield item

    def flush(self) -> None:
        ms = int(self._busy * 1000)
        self._items.inc(self._count - self._flushed_count)
        self._ms.inc(ms - self._flushed_ms)
        self._flushed_count = self._count
        self._flushed_ms = ms

    done = flush


class Timed:
    """Context manager: a block's time and item count go to a stage's metrics."""

    def __init__(self, meter: StageMeter, items: int = 1):
        self._meter = meter
        self._items = items

    def __enter__(self) -> "Timed":
        self._t0 = time.perf_counter()
        return self

    def __exit__(self, *exc) -> None:
        self._meter.tick(self._items, time.perf_counter() - self._t0)


def stage_metrics(result) -> dict[str, dict[str, float]]:
    """{stage: {items, seconds}} from a finished Beam PipelineResult (empty if the runner has none)."""
    out: dict[str, dict[str, float]] = {}
    try:
        from apache_beam.metrics.metric import MetricsFilter

        counters = result.metrics().query(MetricsFilter().with_namespace(NAMESPACE))["counters"]
    except Exception:  # some runners expose no metrics; the table then shows counts only
        return out
    for c in counters:
        stage, _, kind = c.key.metric.name.rpartition(".")
        value = c.committed if c.committed is not None else c.attempted
        entry = out.setdefault(stage, {"items": 0, "seconds": 0.0})
        if kind == "items":
            entry["items"] += value
        elif kind == "ms":
            entry["seconds"] += value / 1000.0
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
                t0 = time.perf_counter()
                out = fn(element)
                self._meter.tick(1, time.perf_counter() - t0)
                yield out

            def finish_bundle(self):
                self._meter.done()

        return beam.ParDo(_Fn())
