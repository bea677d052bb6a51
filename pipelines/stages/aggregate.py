"""Stage ``aggregate``: majority vote or viewpoints per kept question, and the question's qa.parquet row."""

from __future__ import annotations

from apache_beam.ml.inference.base import RunInference

from models.registry import ModelFactory
from pipelines.stages.counters import run_counted
from pipelines.stages.metering import MeteredHandler, ModelBox
from schemas.records import AnswerCount, KeptQuestion


def qa_row(kept: KeptQuestion, answers: list[AnswerCount], total: int, distinct: int, agg) -> dict:
    """A row of qa.parquet (plus the index vector under 'vector', dropped before writing)."""
    q = kept.scored
    return {
        "qid": kept.qid, "question": q.question, "question_key": q.key, "lang": q.lang,
        "frequency": q.frequency, "rank": kept.rank, "gec_score": q.gec_score, "intent_score": q.intent_score,
        "qtype": kept.qtype, "qtype_score": kept.qtype_score, "answer": agg.answer,
        "confidence": agg.confidence, "vote_margin": agg.vote_margin,
        "viewpoints": [{"summary": v.summary, "answer_ids": list(v.answer_ids)} for v in agg.viewpoints],
        "answers": [{"answer_id": a.answer_id, "text": a.text, "count": a.count} for a in answers],
        "total_answers": total, "distinct_answers": distinct, "method": agg.method, "flags": list(agg.flags),
        "aliases": [{"question": text, "count": int(n)} for text, n in kept.aliases]
        or [{"question": q.question, "count": q.frequency}],
        "vector": kept.vector,
    }


def aggregate_groups(aggregator, batch: list[tuple[KeptQuestion, tuple]]) -> list[dict]:
    groups = [(k.scored.question, k.qtype, k.scored.lang, answers) for k, (answers, _, _) in batch]
    results = aggregator.aggregate_many(groups)
    return [qa_row(k, answers, total, distinct, agg)
            for (k, (answers, total, distinct)), agg in zip(batch, results)]


class AggregateHandler(MeteredHandler):
    stage = "aggregate"

    def __init__(self, factory: ModelFactory, batch_size: int, cache_path: str | None = None):
        super().__init__(max(1, batch_size // 8))  # groups hold up to max_answers texts
        self._factory = factory
        self._cache_path = cache_path

    def load_model(self):
        agg = self._factory.aggregator()
        if self._cache_path:
            from models.caches.aggregations import AggregationCache, CachedAggregator

            agg = CachedAggregator(agg, AggregationCache(self._cache_path))
        return ModelBox(agg)

    def run_inference(self, batch, model, inference_args=None):
        agg = model.value
        return run_counted("aggregate", agg, lambda: self._run(lambda b: aggregate_groups(agg, b), batch))


def aggregate_transform(factory: ModelFactory, batch_size: int, cache_path: str | None = None) -> RunInference:
    """(KeptQuestion, answer group) -> qa row; ``cache_path``: the aggregation cache (or None)."""
    return RunInference(AggregateHandler(factory, batch_size, cache_path))
