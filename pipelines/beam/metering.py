"""Progress and busy time of stages running inside Beam: one idiom, ``with meter.timing(n):``.

Each stage keeps a :class:`StageMeter`: it logs a progress line every few seconds and once when it has done
its total, and reports items and busy milliseconds as Beam counters (pipelines.beam.counters turns them into
the per-stage time table). The DoFn and ModelHandler helpers below meter through it, so a stage never times
itself.

Every stage knows its real total, the count of what it will process: the stage before it counts it
(:func:`total_of`, a side input, so the stage starts once that count is known) and the count travels with
each element (:func:`with_total`, :class:`MeteredInference`). ``read`` measures the input files' bytes (known
before the graph runs); ``validate`` runs fused with ``read`` (its rows are never held in between), so its
total is estimated from the share of the input read so far, and said so ("of about"). A progress line:
"nonanswer: 1,200 of 3,000 (40%), 85/s, about 0:21 left"; the last one of a stage: "nonanswer: 3,000 of
3,000 (100%) in 0:35, 85/s" (the same count the end-of-build table shows as the stage's items).

Where stderr is a terminal the same records draw one progress bar per stage (schemas.logs); in logs and under
Airflow they stay plain lines. The counts are one worker's: with several workers each logs its own share.
Loading a stage's models logs what loads and how long it took (:func:`announce_loading`).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import time
from typing import Callable

import apache_beam as beam
from apache_beam.metrics import Metrics

from models.calls import stage_scope
from pipelines.beam.inference import ModelHandler, RunInference

LOG = logging.getLogger("qabase.progress")
NAMESPACE = "qabase"
LOG_EVERY_S = 5.0
BAR_WIDTH = 24

# the order stages appear in the summary table
STAGE_ORDER = ("read", "validate", "count", "paraphrase", "score", "time", "select", "nonanswer", "embed", "aggregate",
               "write")


def clock(seconds: float) -> str:
    """M:SS, or H:MM:SS from an hour on."""
    s = max(0, round(seconds))
    h, m = divmod(s // 60, 60)
    return f"{h}:{m:02d}:{s % 60:02d}" if h else f"{m}:{s % 60:02d}"


def _amount(n: float, unit: str) -> str:
    return f"{n / 1e6:,.1f}" if unit == "MB" else f"{int(n):,}"


def _rate(per_s: float, unit: str) -> str:
    return f"{per_s / 1e6:.1f} MB/s" if unit == "MB" else f"{per_s:.0f}/s"


def progress_line(label: str, done: float, elapsed_s: float, total: float | None = None, estimated: bool = False,
                  unit: str = "", extra: str = "") -> str:
    """What a progress line says: against the stage's total where it is known (``estimated``: a total
    extrapolated, said "about"), else so far; ``unit`` "MB": ``done`` and ``total`` are bytes; ``extra``: what
    else the stage has to say ("41,000 rows")."""
    rate = done / max(elapsed_s, 1e-9)
    more = f", {extra}" if extra else ""
    if total is None or done > total or total <= 0:
        return f"{label}: {_amount(done, unit)}{' MB' if unit == 'MB' else ' items'} so far{more} ({_rate(rate, unit)})"
    mb = " MB" if unit == "MB" else ""
    of = f"{_amount(done, unit)} of {'about ' if estimated else ''}{_amount(total, unit)}{mb}"
    share = f"{100 if done >= total else int(100 * done / total)}%"  # 100% only when done
    if done >= total:
        return f"{label}: {of} ({share}){more} in {clock(elapsed_s)}, {_rate(rate, unit)}"
    left = f", about {clock((total - done) / rate)} left" if rate > 0 else ""
    return f"{label}: {of} ({share}){more}, {_rate(rate, unit)}{left}"


def progress_bar(label: str, done: float, elapsed_s: float, total: float | None, unit: str = "") -> str:
    """The same progress as one line redrawn in place on a terminal (schemas.logs draws it)."""
    rate = done / max(elapsed_s, 1e-9)
    if not total or done > total:
        return f"{label:<17} {_amount(done, unit)}{' MB' if unit == 'MB' else ''} so far  {_rate(rate, unit)}"
    filled = int(BAR_WIDTH * done / total)
    bar = "#" * filled + "-" * (BAR_WIDTH - filled)
    if done >= total:
        when = f"done in {clock(elapsed_s)}"
    else:
        when = f"about {clock((total - done) / rate)} left" if rate > 0 else ""
    share = 100 if done >= total else int(100 * done / total)
    return (f"{label:<17} [{bar}] {share:3d}%  {_amount(done, unit)}/{_amount(total, unit)}"
            f"{' MB' if unit == 'MB' else ''}  {_rate(rate, unit)}  {when}")


_LIVE: dict[str, "StageMeter"] = {}  # this process's meters by stage: a stage fused with another follows its share


class StageMeter:
    """Counts items and busy time of one stage; logs progress; reports Beam counters.

    Busy time is only what the stage itself spends (inside :meth:`timing` or :meth:`timed_iter`),
    not the time fused downstream stages spend on the elements it yields. ``total``: what the stage will
    do, in items unless ``position`` says otherwise (a callable giving how far it is, e.g. bytes read, in
    ``unit``); ``follows``: a stage run fused with this one upstream, whose share done gives this stage's
    total (estimated); ``label``: what its progress lines are headed with (default: the stage); ``scope``:
    whom its model calls count for (models.calls; default: the label); ``lines``: False for a stage that runs
    item for item inside another's batches, whose lines already say how far both are (it still counts its items
    and busy time for the stage table).
    """

    def __init__(self, stage: str, total: float | None = None, label: str | None = None, *,
                 position: Callable[[], float] | None = None, unit: str = "", follows: str | None = None,
                 scope: str | None = None, lines: bool = True):
        self.stage = stage
        self._lines = lines
        self.label = label or stage
        self._scope = scope or self.label
        self.total = total
        self.unit = unit
        self._position = position
        self._follows = follows
        self._items = Metrics.counter(NAMESPACE, f"{stage}.items")
        self._ms = Metrics.counter(NAMESPACE, f"{stage}.ms")
        self._origin = time.perf_counter()
        self._last_log = self._origin
        self._count = 0
        self._busy = 0.0
        self._flushed_count = 0
        self._flushed_ms = 0
        self._finished = False
        self._complete = False  # a meter with a position: its stage has said it reached the total
        _LIVE[stage] = self

    @property
    def count(self) -> int:
        return self._count

    def position(self) -> float:
        """How far the stage is, in the unit of its total."""
        return self._position() if self._position is not None else self._count

    def share_done(self) -> float | None:
        """The share of its total done (None: no total)."""
        if not self.total:
            return None
        return min(1.0, self.position() / self.total)

    def _against(self, final: bool = False) -> tuple[float, float | None, bool]:
        """(done, total, estimated) for the progress line (``final``: the stage has ended)."""
        if self._position is not None:
            # a reader's position runs ahead of what it has given out (it reads ahead): done only once its
            # stage says so (:meth:`check`)
            at = self.position()
            return (at if self._complete or not self.total else min(at, self.total * 0.999)), self.total, False
        if self._follows is None:
            return self.position(), self.total, False
        lead = _LIVE.get(self._follows)
        share = lead.share_done() if lead is not None else None
        if not share:
            return self._count, None, False
        if final:
            return self._count, self._count, False
        if lead._complete:
            # the stage it follows has ended (or ran before it, on a runner that does not fuse): about as many as
            # that one counted, until this one ends
            return self._count, max(self._count, lead._count), True
        return self._count, self._count / share, True

    def tick(self, n: int = 1, busy_s: float = 0.0) -> None:
        self._count += n
        self._busy += busy_s
        now = time.perf_counter()
        # a meter of items knows when it is done; one with a position is asked by its stage (:meth:`check`)
        done = self.total and self._position is None and self._follows is None and self._count >= self.total
        if now - self._last_log >= LOG_EVERY_S or (done and not self._finished):
            self.log(now)
            self._last_log = now
            self.flush()

    def check(self) -> None:
        """The last line of a meter with a position, once its position has reached the total."""
        if self.total and not self._finished and self.position() >= self.total:
            self._complete = True
            self.log()

    def log(self, now: float | None = None, final: bool = False) -> None:
        """One progress line now (the last one once the total is done)."""
        if self._finished or not self._lines:
            return
        now = time.perf_counter() if now is None else now
        done, total, estimated = self._against(final)
        if not done:  # still preparing (loading, building an index): nothing done to report
            return
        extra = f"{self._count:,} rows" if self.unit == "MB" else ""
        elapsed = now - self._origin
        self._finished = bool(total) and not estimated and done >= total
        LOG.info("%s", progress_line(self.label, done, elapsed, total, estimated, self.unit, extra),
                 extra={"bar": progress_bar(self.label, done, elapsed, total if not estimated else None, self.unit),
                        "bar_done": self._finished})

    def finish(self) -> None:
        """A stage fused after another: its last line, once the stage it follows has done its total."""
        lead = _LIVE.get(self._follows) if self._follows else None
        if lead is not None and lead._complete and self._count:
            self.log(final=True)
        self.flush()

    @contextlib.contextmanager
    def timing(self, items: int = 1):
        """The block's time and ``items`` count go to this stage."""
        t0 = time.perf_counter()
        try:
            with stage_scope(self._scope):  # the model calls made in the block count for this stage
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


def metered_call(stage: str, fn, items, *args, meter_label: str | None = None, **kwargs):
    """``fn(items, ...)`` once, its time and ``len(items)`` counted as ``stage`` (for one-off steps; its one
    progress line headed ``meter_label``, default the stage)."""
    meter = StageMeter(stage, total=len(items), label=meter_label, scope=stage)
    with meter.timing(len(items)):
        out = fn(items, *args, **kwargs)
    meter.done()
    return out


def total_of(pcoll, label: str, weight: Callable | None = None):
    """A side input: how many elements ``pcoll`` holds (or the sum of ``weight(element)``), known once the
    stage that makes ``pcoll`` has ended."""
    if weight is None:
        counted = pcoll | label >> beam.combiners.Count.Globally()
    else:
        counted = pcoll | label >> (beam.Map(weight) | beam.CombineGlobally(sum))
    return beam.pvalue.AsSingleton(counted)


def with_total(pcoll, label: str, weight: Callable | None = None):
    """``pcoll`` -> (element, total) pairs: the total (:func:`total_of`) travels with every element, so a stage
    that cannot take side inputs (a RunInference model stage) knows it."""
    return pcoll | f"{label}Paired" >> beam.Map(lambda e, n: (e, n), n=total_of(pcoll, f"{label}Count", weight))


class MeteredMap:
    """A Beam DoFn factory: ``fn`` applied to each element, its time counted as ``stage``; ``total``: a side
    input of how many elements come (:func:`total_of`), or a number; ``label``: its progress lines' head. An
    ``fn`` with ``setup`` and ``finish_bundle`` methods has them called where the DoFn's are (a worker's cache
    opened once, its writes flushed per bundle)."""

    @staticmethod
    def of(stage: str, fn, total=None, label: str | None = None):
        class _Fn(beam.DoFn):
            def setup(self):
                self._meter = None
                if hasattr(fn, "setup"):
                    fn.setup()

            def process(self, element, total=None):
                if self._meter is None:
                    self._meter = StageMeter(stage, total, label, scope=stage)
                with self._meter.timing(1):
                    out = fn(element)
                yield out

            def finish_bundle(self):
                if hasattr(fn, "finish_bundle"):
                    fn.finish_bundle()
                if self._meter is not None:
                    self._meter.done()

        return beam.ParDo(_Fn(), total=total) if total is not None else beam.ParDo(_Fn())


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
            with stage_scope(self.stage):  # what a model computes as it loads (its prototypes) counts for the stage
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
    which meters it as ``stage``. Its elements come as (element, total) pairs (:class:`MeteredInference`):
    the total is the stage's progress total."""

    stage = ""

    def __init__(self, batch_size: int, label: str | None = None):
        super().__init__()
        self._batch_size = batch_size
        self._label = label
        self._meter = None

    def _run(self, fn, batch, items: Callable | None = None):
        """``fn(elements)`` of a batch of (element, total) pairs, metered; ``items``: what one element counts
        for (default 1; the scoring tiers count their entries' questions)."""
        elements = [e for e, _ in batch]
        if self._meter is None:
            self._meter = StageMeter(self.stage, batch[0][1] if batch else None, self._label, scope=self.stage)
        n = sum(items(e) for e in elements) if items is not None else len(elements)
        with self._meter.timing(n):
            out = fn(elements)
        self._meter.done()
        return out

    def get_num_bytes(self, batch) -> int:
        """0: Beam's default pickles every batch after inference only to put its size in a metric of its own
        (``RunInference``'s batch byte size, which nothing here reads), 0.6 s of a +1% day at 1M rows. The stages'
        own figures are items and busy time (:class:`StageMeter`)."""
        return 0

    # Beam's adaptive batching starts at one element and grows a batch only while calls stay fast; a stage whose
    # models pay per call (padding to like lengths, an engine's set-up) sets this to get full batches instead,
    # ``batch_size`` counted in :meth:`element_size` units
    whole_batches = False

    def element_size(self, element) -> int:
        """What one (element, total) pair counts for against ``batch_size`` where ``whole_batches`` (default 1)."""
        return 1

    def batch_elements_kwargs(self):
        if not self.whole_batches:
            return {"min_batch_size": 1, "max_batch_size": self._batch_size}
        return {"min_batch_size": self._batch_size, "max_batch_size": self._batch_size,
                "element_size_fn": self.element_size}


class MeteredInference(beam.PTransform):
    """RunInference of a :class:`MeteredHandler`, with the stage's total (how many elements come, or the sum
    of ``weight``) paired with each element."""

    def __init__(self, handler: MeteredHandler, weight: Callable | None = None):
        super().__init__()
        self._handler = handler
        self._weight = weight

    def expand(self, pcoll):
        return with_total(pcoll, "Total", self._weight) | "Infer" >> RunInference(self._handler)
