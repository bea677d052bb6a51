"""The topics kind's backend table for models.registry (schemas.backends): a name or a path prefix, how to load
it, its identity without loading it. Apart from the package's ``__init__``, so that importing any module of the
kind never runs the table's imports (a package that imports its own modules forms import circles with them)."""

from __future__ import annotations

from schemas.backends import Backend


def _hdbscan(target, ctx):
    from models.topics.hdbscan_topics import HdbscanTopics

    t = ctx.section
    return HdbscanTopics(t.min_cluster_size, t.min_samples, t.dims, t.fit_sample)


def _hdbscan_identity(target, ctx) -> str:
    from models.topics.hdbscan_topics import hdbscan_identity

    t = ctx.section
    return hdbscan_identity(t.min_cluster_size, t.min_samples, t.dims, t.fit_sample)


BACKENDS = (
    Backend("hdbscan", _hdbscan, _hdbscan_identity),
)
