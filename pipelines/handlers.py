"""Beam ModelHandler base for this project's stages.

Loading stays in ``load_model()`` (run once per worker through Beam's Shared);
inference is a batch function. Each handler meters its stage's items and busy time.
"""

from __future__ import annotations

from apache_beam.ml.inference.base import ModelHandler

from pipelines.progress import StageMeter, Timed


class ModelBox:
    """A weak-referenceable holder: Beam's Shared keeps loaded models by weak reference."""

    def __init__(self, value):
        self.value = value


class MeteredHandler(ModelHandler):
    stage = ""

    def __init__(self, batch_size: int):
        super().__init__()
        self._batch_size = batch_size
        self._meter = None

    def _run(self, fn, batch):
        if self._meter is None:
            self._meter = StageMeter(self.stage)
        with Timed(self._meter, len(batch)):
            out = fn(list(batch))
        self._meter.done()
        return out

    def batch_elements_kwargs(self):
        return {"min_batch_size": 1, "max_batch_size": self._batch_size}


CACHE_NAMESPACE = "qabase.cache"


def count_cache(stage: str, hits: int, misses: int) -> None:
    """Beam counters of a cache's hits and misses in one stage (summed over workers; see cache_counts)."""
    from apache_beam.metrics import Metrics

    Metrics.counter(CACHE_NAMESPACE, f"{stage}.hits").inc(hits)
    Metrics.counter(CACHE_NAMESPACE, f"{stage}.misses").inc(misses)


def run_counted(stage: str, cache, fn):
    """``fn()``, then the hits and misses ``cache`` (an object with ``hits``/``misses`` totals) added during it."""
    before = (cache.hits, cache.misses)
    out = fn()
    count_cache(stage, cache.hits - before[0], cache.misses - before[1])
    return out


def cache_counts(result) -> dict[str, dict[str, int]] | None:
    """{stage: {hits, misses}} of the build caches from a finished pipeline (None if the runner has no metrics)."""
    try:
        from apache_beam.metrics.metric import MetricsFilter

        counters = result.metrics().query(MetricsFilter().with_namespace(CACHE_NAMESPACE))["counters"]
    except Exception:
        return None
    out: dict[str, dict[str, int]] = {}
    for c in counters:
        stage, _, kind = c.key.metric.name.rpartition(".")
        value = c.committed if c.committed is not None else c.attempted
        slot = out.setdefault(stage, {"hits": 0, "misses": 0})
        slot[kind] = slot.get(kind, 0) + value
    return dict(sorted(out.items()))
