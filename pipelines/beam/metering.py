"""Progress and busy time of stages running inside Beam: one idiom, ``with meter.timing(n):``.

Each stage keeps a :class:`StageMeter`: it logs a progress line every few seconds and reports items and busy
milliseconds as Beam counters (pipelines.beam.counters turns them into the per-stage time table). The
DoFn and ModelHandler helpers below meter through it, so a stage never times itself.

A progress line says how far a stage is where its total is known ("paraphrase en: 12,288 of 40,000 (31%),
850/s, about 0:33 left"), or bounded ("nonanswer: 1,200 of at most 3,000 (40%), 85/s, at most 0:21 left": the
candidates are the top K plus headroom, fewer when fewer entries pass), and "score: 12,000 items so far
(850/s)" where it is not. The counts are one worker's: with several workers each logs its own share.
Loading a stage's models logs what loads and how long it took (:func:`announce_loading`).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import time

from apache_beam.metrics import Metrics
from apache_beam.ml.inference.base import ModelHandler

from models.calls import stage_scope

LOG = logging.getLogger("qabase.progress")
NAMESPACE = "qabase"
LOG_EVERY_S = 5.0

# the order stages appear in the summary table
STAGE_ORDER = ("read", "validate", "count", "paraphrase", "score", "time", "select", "nonanswer", "embed", "aggregate",
               "write")


def clock(seconds: float) -> str:
    """M:SS, or H:MM:SS from an hour on."""
    s = max(0, round(seconds))
    h, m = divmod(s // 60, 60)
    return f"{h}:{m:02d}:{s % 60:02d}" if h else f"{m}:{s % 60:02d}"


def progress_line(label: str, count: int, elapsed_s: float, total: int | None = None, at_most: bool = False) -> str:
    """What a progress line says: against the total where it is known (``at_most``: an upper bound), else so
    far."""
    rate = count / max(elapsed_s, 1e-9)
    if total is None or count > total or total <= 0:
        return f"{label}: {count:,} items so far ({rate:.0f}/s)"
    left = (total - count) / rate if rate > 0 else None
    bound = "at most " if at_most else ""
    eta = f", {'at most' if at_most else 'about'} {clock(left)} left" if left is not None else ""
    return f"{label}: {count:,} of {bound}{total:,} ({100 * count / total:.0f}%), {rate:.0f}/s{eta}"


class StageMeter:
    """Counts items and busy time of one stage; logs progress; reports Beam counters.

    Busy time is only what the stage itself spends (inside :meth:`timing` or :meth:`timed_iter`),
    not the time fused downstream stages spend on the elements it yields. ``total``: the items the stage will
    count where it is known (``at_most``: an upper bound); ``label``: what its progress lines are headed with
    (default: the stage).
    """

    def __init__(self, stage: str, total: int | None = None, at_most: bool = False, label: str | None = None):
        self.stage = stage
        self.label = label or stage
        self.total = total
        self.at_most = at_most
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
            LOG.info("%s", progress_line(self.label, self._count, now - self._origin, self.total, self.at_most))
            self._last_log = now
            self.flush()

    @contextlib.contextmanager
    def timing(self, items: int = 1):
        """The block's time and ``items`` count go to this stage."""
        t0 = time.perf_counter()
        try:
            with stage_scope(self.label):  # the model calls made in the block count for this stage
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


# what a model stage loads, by the key of the build's model identities (ModelFactory.identities()): where
# the registry's factory (RegistryModels) keeps the name the config gives it
_CONFIG_NAMES = {"gec_en": ("models", "gec_en"), "gec_zh": ("models", "gec_zh"), "intent": ("models", "intent"),
                 "embedder": ("models", "embedder"), "paraphrase": ("para", "judge"),
                 "non_answer": ("non_answers", "model"), "time_sensitive": ("time", "model"),
                 "aggregator": ("aggregation", "backend")}


def model_names(factory, keys) -> str:
    """``keys`` (model identity keys) as a reader sees them: each with the name its config gives it where the
    factory keeps one ("gec_en quire-ngram"), else the key alone. Identities themselves are not asked for:
    some take seconds to compute."""
    out = []
    for key in keys:
        section, name = _CONFIG_NAMES.get(key, (None, None))
        value = getattr(getattr(factory, section, None), name, None) if section else None
        out.append(f"{key} {value}" if isinstance(value, str) else key)
    return ", ".join(out)


_ANNOUNCED: set[str] = set()  # the loads this process has announced: each stage's first
SLOW_RELOAD_S = 1.0  # a load announced before is said again only when it takes this long


def announce_loading(*keys):
    """Decorates a model stage's ``load_model()`` (or a DoFn's ``setup()``): logs "<stage>: loading <models>
    ..." before and "<stage>: loaded in X s" after, so the seconds a model takes to load are not silence.
    Once per process and stage: the frontier's tiers each load the scorers, served from the registry's cache
    after the first (a later load that is slow all the same is said after it ends).
    ``keys``: model identity keys (:func:`model_names`); a callable key ``key(self)`` gives a tuple of them
    (models loaded only under some config). The object needs ``stage`` and ``_factory``."""
    def wrap(load):
        @functools.wraps(load)
        def loading(self, *args, **kwargs):
            names = [n for key in keys for n in (key(self) if callable(key) else (key,))]
            what = f"{self.stage}: loading {model_names(self._factory, names)}"
            first = what not in _ANNOUNCED
            if first:
                _ANNOUNCED.add(what)
                LOG.info("%s ...", what)
            t0 = time.perf_counter()
            out = load(self, *args, **kwargs)
            took = time.perf_counter() - t0
            if first or took >= SLOW_RELOAD_S:
                LOG.info("%s: loaded in %.1f s", self.stage, took)
            return out
        return loading
    return wrap


class MeteredHandler(ModelHandler):
    """Beam ModelHandler base of the model stages: loading in ``load_model()`` (once per worker, through
    Beam's Shared; announced with :func:`announce_loading`), inference a batch function run by :meth:`_run`,
    which meters it as ``stage``. ``total``: the items the stage will see where the graph knows it
    (``at_most``: an upper bound)."""

    stage = ""

    def __init__(self, batch_size: int, total: int | None = None, at_most: bool = False):
        super().__init__()
        self._batch_size = batch_size
        self._total = total
        self._at_most = at_most
        self._meter = None

    def _run(self, fn, batch, total: int | None = None):
        """``fn(batch)``, metered; ``total``: the stage's total where only its elements know it."""
        if self._meter is None:
            self._meter = StageMeter(self.stage, self._total, self._at_most)
        if total is not None:
            self._meter.total, self._meter.at_most = total, False
        with self._meter.timing(len(batch)):
            out = fn(list(batch))
        self._meter.done()
        return out

    def batch_elements_kwargs(self):
        return {"min_batch_size": 1, "max_batch_size": self._batch_size}
