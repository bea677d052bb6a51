"""Stage ``score`` in frequency order: only entries that can still reach the top K are scored.

Algorithm 1 keeps a question iff it passes both filters, then ranks by frequency. An entry's frequency
(its members' summed asks) and its tie-break (:attr:`schemas.records.Entry.order_key`, the smallest member
key) are known before anything is scored, so entries have one total order before scoring; the candidates
are the first ``need`` eligible entries in that order (``need`` = top K plus the non-answer headroom).
Scoring every entry above the ``need``-th eligible one, and nothing below it, gives exactly the base that
scoring everything gives, whatever the pass rate.

Beam has no loops, so the frontier advances in a fixed number of tiers (``TIERS``): tier t scores the next
slice of the order, sized from the pass rate seen so far (``tier_window``), and runs only if the tiers
before it found fewer than ``need`` eligible entries; the last tier takes everything left. Each tier is a
plain filter on side inputs plus one model stage, so it works on any runner. Entries never scored keep
their members unscored (scores None: reason ``below_top_k`` in questions.parquet).
"""

from __future__ import annotations

import bisect
import math
from pathlib import Path

import apache_beam as beam
from apache_beam.transforms.combiners import TupleCombineFn

from models.caches.scores import ScoreCache
from models.factory import ModelFactory
from pipelines.beam.counters import run_counted
from pipelines.beam.metering import MeteredHandler, MeteredInference, ModelBox, StageMeter, announce_loading
from pipelines.stages.paraphrase import with_members
from pipelines.stages.score import cached_record, from_cached, score_questions
from pipelines.stages.select import eligible, rank_order, with_entry_time_sensitivity
from pipelines.stages.timecheck import judge_time
from schemas.config import FilterConfig
from schemas.judgement import OWN_THRESHOLD
from schemas.layout import SCORE_CACHE
from schemas.records import Entry

TIERS = 5  # tiers in the graph; the last takes every entry left
MARGIN = 1.2  # a tier is sized for the entries still needed at the pass rate seen so far, plus 20%
MIN_SHARE = 0.02  # and never smaller than 2% of what is needed, so a small shortfall is not a string of tiers
MIN_RATE = 0.02  # below this pass rate a tier is sized as if 1 in 50 passed


def tier_window(progress: tuple, order: list, need: int, last: bool, score_all: bool) -> tuple[int, int]:
    """The positions [lo, hi) of the order that the next tier scores; empty once ``need`` eligible entries are
    found or the order is exhausted. ``progress``: (end of the scored prefix, entries scored, eligible among
    them)."""
    end, scored, found = progress
    total = len(order)
    if end >= total or (found >= need and not score_all):
        return (end, end)
    if last or score_all:
        return (end, total)
    rate = found / scored if scored else 1.0
    size = max(math.ceil((need - found) / max(rate, MIN_RATE) * MARGIN), math.ceil(need * MIN_SHARE))
    return (end, min(total, end + size))


def in_window(entry: Entry, window: tuple[int, int], order: list) -> bool:
    lo, hi = window
    if lo >= hi:
        return False
    return lo <= bisect.bisect_left(order, rank_order(entry)) < hi


def beyond(entry: Entry, progress: tuple, order: list) -> bool:
    """Below everything the tiers scored?"""
    return bisect.bisect_left(order, rank_order(entry)) >= progress[0]


def member_count(entry: Entry) -> int:
    """What an entry counts for in the scoring stage's progress: its questions (the end-of-build table's unit)."""
    return len(entry.members)


def score_entries(models, cache, detector, filt: FilterConfig, entries: list[Entry],
                  time_threshold: float = OWN_THRESHOLD, time_meter: StageMeter | None = None) -> list[Entry]:
    """Score every member of ``entries`` (the score cache first), judge time-sensitivity (``detector``: None
    under policy keep; at ``time_threshold``, -1: its own; metered by ``time_meter``, a meter of its own when
    None), and rebuild each entry with its representative."""
    members = [m for e in entries for m in e.members]
    score = lambda b: score_questions(models, b, filt)  # noqa: E731
    scored = (cache.score(members, score, cached_record, from_cached(models, filt)) if cache is not None
              else score(members))
    if detector is not None and scored:
        meter = time_meter or StageMeter("time")
        with meter.timing(len(scored)):
            scored = judge_time(detector, scored, time_threshold)
        meter.done()
    out, at = [], 0
    for e in entries:
        n = len(e.members)
        out.append(with_entry_time_sensitivity(with_members(e, scored[at:at + n])))
        at += n
    return out


class EntryScoringHandler(MeteredHandler):
    """Loads the scorers (and the time-sensitivity detector) once per worker; scores entries' members."""

    stage = "score"
    # whole batches of questions: Beam's adaptive sizes start at one entry, and the English GEC tagger pays per
    # call (it pads a call to its longest question)
    whole_batches = True

    def __init__(self, factory: ModelFactory, filt: FilterConfig, batch_size: int, judge_time: bool,
                 cache_dir: str | None = None, time_threshold: float = OWN_THRESHOLD, label: str | None = None):
        super().__init__(batch_size, label)
        self._time_meter = None
        self._factory = factory
        self._filt = filt
        self._judge_time = judge_time
        self._cache_dir = cache_dir
        self._time_threshold = time_threshold

    @announce_loading("gec_en", "gec_zh", "intent", lambda self: ("time_sensitive",) if self._judge_time else ())
    def load_model(self):
        models = self._factory.scoring()
        cache = ScoreCache(str(Path(self._cache_dir) / SCORE_CACHE), models) if self._cache_dir else None
        detector = self._factory.time_sensitivity() if self._judge_time else None
        return ModelBox((models, cache, detector))

    def element_size(self, element) -> int:
        """What an (entry, total) pair counts for against ``batch_size``: the entry's questions."""
        entry, _ = element
        return member_count(entry)

    def run_inference(self, batch, model, inference_args=None):
        """``batch``: (entry, the questions of the tier's entries) pairs (MeteredInference)."""
        models, cache, detector = model.value
        if self._time_meter is None and detector is not None and batch:
            # the tier's questions are judged as they are scored, in the same batches: the score tier's progress
            # lines say how far both are, so this meter only counts (its time has its own row in the stage table)
            self._time_meter = StageMeter("time", batch[0][1], self._label and self._label.replace("score", "time"),
                                          scope="time", lines=False)
        run = lambda b: score_entries(models, cache, detector, self._filt, b, self._time_threshold,  # noqa: E731
                                      self._time_meter)
        return run_counted("score", cache, lambda: self._run(run, batch, member_count))


class ScoreFrontier(beam.PTransform):
    """unscored entries -> {'entries': every entry (scored as far as the top K needs; the rest unscored),
    'scored': the scored questions}."""

    def __init__(self, factory: ModelFactory, filt: FilterConfig, need: int, drop_time_sensitive: bool,
                 judge_time: bool, batch_size: int, cache_dir: str | None = None,
                 time_threshold: float = OWN_THRESHOLD):
        super().__init__()
        self._handler = lambda t: EntryScoringHandler(factory, filt, batch_size, judge_time, cache_dir,
                                                      time_threshold, f"score tier {t + 1}")
        self._need = need
        self._drop = drop_time_sensitive
        self._score_all = filt.score_all

    def expand(self, entries):
        p = entries.pipeline
        order = (entries
                 | "OrderKeys" >> beam.Map(rank_order)
                 | "AllOrderKeys" >> beam.combiners.ToList()
                 | "SortOrder" >> beam.Map(sorted))
        order_si = beam.pvalue.AsSingleton(order)
        progress = p | "Start" >> beam.Create([(0, 0, 0)])
        tiers = []
        for t in range(TIERS):
            window = progress | f"Window{t}" >> beam.Map(
                tier_window, order=order_si, need=self._need, last=t == TIERS - 1, score_all=self._score_all)
            scored = (entries
                      | f"InTier{t}" >> beam.Filter(in_window, window=beam.pvalue.AsSingleton(window), order=order_si)
                      | f"ScoreTier{t}" >> MeteredInference(self._handler(t), member_count))
            found = (scored
                     | f"Found{t}" >> beam.Map(lambda e, drop: (1, int(eligible(e, drop))), drop=self._drop)
                     | f"FoundSum{t}" >> beam.CombineGlobally(TupleCombineFn(sum, sum)))
            progress = window | f"Progress{t}" >> beam.Map(
                lambda w, prev, c: (w[1], prev[1] + c[0], prev[2] + c[1]),
                prev=beam.pvalue.AsSingleton(progress), c=beam.pvalue.AsSingleton(found))
            tiers.append(scored)
        rest = entries | "Unscored" >> beam.Filter(beyond, progress=beam.pvalue.AsSingleton(progress), order=order_si)
        scored_entries = tuple(tiers) | "ScoredEntries" >> beam.Flatten()
        return {"entries": (scored_entries, rest) | "AllEntries" >> beam.Flatten(),
                "scored": scored_entries | "ScoredQuestions" >> beam.FlatMap(lambda e: e.members)}
