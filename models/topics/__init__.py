"""Topic models (``topics.backend``): published entries grouped by meaning for review (models.topics.base), named
by their words (models.topics.naming). ``BACKENDS``: this kind's table for models.registry (schemas.backends)."""

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
