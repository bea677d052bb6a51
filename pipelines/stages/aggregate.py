"""Stage ``aggregate``: majority vote or viewpoints per kept question, and the question's qa.parquet row."""

from __future__ import annotations

from models.aggregators.base import AggregateResult
from models.aggregators.signals import answer_signals, reliability, reliability_parts
from models.factory import ModelFactory
from models.timesensitive.answers import answer_tell
from pipelines.beam.counters import run_counted
from pipelines.beam.metering import MeteredHandler, MeteredInference, ModelBox, announce_loading
from schemas.dates import period_value
from schemas.records import AnswerGroup, KeptQuestion
from schemas.review_outcome import REVIEWED_METHOD


def told_by_answers(kept: KeptQuestion, group: AnswerGroup) -> str:
    """The entry's time-sensitivity reason where its question was not judged time-sensitive but one of its
    answers says it goes stale ("answer: 实时"), or "" (also where a reviewer decided the entry's flag)."""
    q, review = kept.scored, kept.review
    if q.time_sensitive or (review is not None and review.time_sensitive is not None):
        return ""
    told = next((t for t in (answer_tell(a.text, q.lang) for a in group.answers) if t), "")
    return f"answer: {told}" if told else ""


def qa_row(kept: KeptQuestion, group: AnswerGroup, agg, tell_time: bool = False) -> dict:
    """A row of qa.parquet (plus the index vector under 'vector', dropped before writing); ``tell_time``: an
    entry is also time-sensitive where its answers say so (:func:`told_by_answers`)."""
    told = told_by_answers(kept, group) if tell_time else ""
    q = kept.scored._replace(time_sensitive=True, time_reason=told) if told else kept.scored
    signals = answer_signals(agg, list(group.valid))
    # under injection.policy flag instruction-like answers vote: the entry is served with the reason of the most
    # given one (the answers are in frequency order)
    voting_instructions = [a.instruction_reason for a in group.valid if a.instruction_like]
    parts = reliability_parts(signals, sum(a.count for a in group.answers), group.non_answer_rows,
                              q.time_sensitive)
    review = kept.review
    if agg.method == REVIEWED_METHOD:  # a reviewer vouches for the answer: only its freshness can pull it down
        parts = {**{name: 1.0 for name in parts}, "fresh": parts["fresh"]}
    return {
        "qid": kept.qid, "question": q.question, "question_key": q.key, "lang": q.lang,
        "frequency": q.frequency, "rank": kept.rank, "gec_score": q.gec_score, "intent_score": q.intent_score,
        "qtype": kept.qtype, "qtype_score": kept.qtype_score, "answer": agg.answer,
        "confidence": agg.confidence, "vote_margin": agg.vote_margin,
        "viewpoints": [{"summary": v.summary, "answer_ids": list(v.answer_ids)} for v in agg.viewpoints],
        "answers": [{"answer_id": a.answer_id, "text": a.text, "count": a.count, "non_answer": a.non_answer,
                     "non_answer_score": a.non_answer_score, "non_answer_reason": a.non_answer_reason,
                     "instruction_like": a.instruction_like, "instruction_score": a.instruction_score,
                     "instruction_reason": a.instruction_reason}
                    for a in group.answers],
        "total_answers": group.total, "distinct_answers": group.distinct, "non_answers": group.non_answer_rows,
        "instruction_like_answers": group.instruction_like_rows,
        "instruction_like": bool(voting_instructions), "instruction_like_reason": voting_instructions[0] if
        voting_instructions else "",
        "method": agg.method, "flags": list(agg.flags),
        "aliases": [{"question": text, "count": int(n)} for text, n in kept.aliases]
        or [{"question": q.question, "count": q.frequency}],
        "time_sensitive": q.time_sensitive, "time_sensitive_reason": q.time_reason,
        "logs_period": period_value(group.period),
        "agreeing_answers": signals.agreeing_answers, "contradicted": signals.contradicted,
        "contradicting_answers": signals.contradicting_answers,
        "reliability": reliability(parts), "reliability_parts": parts,
        "reviewed": list(review.actions) if review is not None else [],
        "review_note": "; ".join(review.notes) if review is not None else "",
        "vector": kept.vector, "forms": kept.forms,
    }


def reviewed_answer(kept: KeptQuestion) -> str | None:
    """The answer a reviewer set for the entry, or None."""
    return kept.review.answer if kept.review is not None else None


def aggregate_groups(aggregator, batch: list[tuple[KeptQuestion, AnswerGroup]], tell_time: bool = False) -> list[dict]:
    # only the answers that answer: a non-answer never wins a vote nor forms or supports a viewpoint; an entry
    # whose answer a reviewer set is served that answer, its logged answers kept in `answers` for reference
    todo = [(k, g) for k, g in batch if reviewed_answer(k) is None]
    results = iter(aggregator.aggregate_many([(k.scored.question, k.qtype, k.scored.lang, list(g.valid))
                                              for k, g in todo]) if todo else [])
    out = []
    for k, g in batch:
        text = reviewed_answer(k)
        agg = (next(results) if text is None
               else AggregateResult(text, 1.0, 1.0, [], REVIEWED_METHOD, []))
        out.append(qa_row(k, g, agg, tell_time))
    return out


class AggregateHandler(MeteredHandler):
    stage = "aggregate"

    def __init__(self, factory: ModelFactory, batch_size: int, cache_path: str | None = None,
                 tell_time: bool = False):
        super().__init__(max(1, batch_size // 8))  # groups: up to max_answers texts
        self._factory = factory
        self._cache_path = cache_path
        self._tell_time = tell_time

    @announce_loading("aggregator")
    def load_model(self):
        agg = self._factory.aggregator()
        if self._cache_path:
            from models.caches.aggregations import AggregationCache, CachedAggregator

            agg = CachedAggregator(agg, AggregationCache(self._cache_path))
        return ModelBox(agg)

    def run_inference(self, batch, model, inference_args=None):
        agg = model.value
        return run_counted("aggregate", agg,
                           lambda: self._run(lambda b: aggregate_groups(agg, b, self._tell_time), batch))


def aggregate_transform(factory: ModelFactory, batch_size: int, cache_path: str | None = None,
                        tell_time: bool = False) -> MeteredInference:
    """(KeptQuestion, AnswerGroup) -> qa row; ``cache_path``: the aggregation cache (or None); ``tell_time``: see
    :func:`qa_row`. The progress lines' total: the entries that come."""
    return MeteredInference(AggregateHandler(factory, batch_size, cache_path, tell_time))
