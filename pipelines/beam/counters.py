"""Beam counters of the build, and reading them back from a finished pipeline.

Stage items and busy time are counted by pipelines.beam.metering (namespace ``qabase``); cache hits
and misses by :func:`run_counted` (namespace ``qabase.cache``). Both are best effort: a runner without
metrics gives an empty table, never a wrong count (the counts that must be exact are data: stats.json).
"""

from __future__ import annotations

from pipelines.beam.metering import NAMESPACE

CACHE_NAMESPACE = "qabase.cache"


def count_cache(stage: str, hits: int, misses: int) -> None:
    """Beam counters of a cache's hits and misses in one stage (summed over workers; see cache_counts)."""
    from apache_beam.metrics import Metrics

    Metrics.counter(CACHE_NAMESPACE, f"{stage}.hits").inc(hits)
    Metrics.counter(CACHE_NAMESPACE, f"{stage}.misses").inc(misses)


def run_counted(stage: str, cache, fn):
    """``fn()``, then the hits and misses ``cache`` (an object with ``hits``/``misses`` totals) added during it;
    just ``fn()`` when ``cache`` keeps no such totals (no cache configured)."""
    if not hasattr(cache, "hits"):
        return fn()
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


def model_calls(result) -> list[dict] | None:
    """The build's model calls (models.calls) from a finished pipeline: one row per stage and model, with the
    texts computed, their characters, and the texts a cache served instead; None if the runner has no metrics."""
    from models.calls import NAMESPACE as CALLS, SEP

    try:
        from apache_beam.metrics.metric import MetricsFilter

        counters = result.metrics().query(MetricsFilter().with_namespace(CALLS))["counters"]
    except Exception:
        return None
    rows: dict[tuple[str, str], dict] = {}
    for c in counters:
        stage, model, kind = c.key.metric.name.split(SEP)
        value = c.committed if c.committed is not None else c.attempted
        row = rows.setdefault((stage, model), {"stage": stage, "model": model, "texts": 0, "chars": 0, "cached": 0})
        row[kind] += value
    return [rows[k] for k in sorted(rows)]
