"""Top-K: rank questions that passed both filters by frequency; ties by key, so runs agree."""

from __future__ import annotations

import functools

import apache_beam as beam

from pipelines.stages.metering import MeteredMap
from pipelines.stages.score import fate
from schemas.records import ScoredQuestion


@functools.total_ordering
class _Desc:
    """Reverses string order inside a sort key (smaller key = higher priority)."""

    __slots__ = ("s",)

    def __init__(self, s: str):
        self.s = s

    def __eq__(self, other):
        return self.s == other.s

    def __lt__(self, other):
        return self.s > other.s


def priority(q: ScoredQuestion):
    """Larger is better: frequency first, then the smaller key."""
    return (q.frequency, _Desc(q.key))


def rank_order(questions: list[ScoredQuestion]) -> list[ScoredQuestion]:
    return sorted(questions, key=lambda q: (-q.frequency, q.key))


def question_row(q: ScoredQuestion, ranks: dict[str, int]) -> dict:
    """A row of questions.parquet."""
    reason = fate(q)
    rank = ranks.get(q.key)
    if not reason and rank is None:
        reason = "below_top_k"
    return {
        "question_key": q.key, "question": q.question, "lang": q.lang, "frequency": q.frequency,
        "surface_forms": q.surface_forms, "gec_score": q.gec_score, "intent_score": q.intent_score,
        "gec_details": q.gec_details, "intent_details": q.intent_details, "passed_gec": q.passed_gec,
        "passed_intent": q.passed_intent, "kept": rank is not None, "reason": reason, "rank": rank,
    }


class SelectTopK(beam.PTransform):
    """scored -> {'ranked': (rank, ScoredQuestion) for the top K, 'ranks': singleton {key: rank}}."""

    def __init__(self, top_k: int):
        super().__init__()
        self._k = top_k

    def expand(self, scored):
        top = (
            scored
            | "PassedBoth" >> beam.Filter(lambda q: q.passed_gec and q.passed_intent)
            | "TopK" >> beam.combiners.Top.Of(self._k, key=priority)
            | "RankOrder" >> MeteredMap.of("select", rank_order)
        )
        ranks = top | "RankTable" >> beam.Map(lambda qs: {q.key: i + 1 for i, q in enumerate(qs)})
        ranked = top | "EmitRanked" >> beam.FlatMap(lambda qs: [(i + 1, q) for i, q in enumerate(qs)])
        return {"ranked": ranked, "ranks": ranks}
