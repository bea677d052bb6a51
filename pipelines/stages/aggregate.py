"""Stage ``aggregate``: majority vote or viewpoints per kept question, and the question's qa.parquet row."""

from __future__ import annotations

from models.aggregators.base import AggregateResult
from models.aggregators.signals import answer_signals, reliability, reliability_parts
from models.factory import ModelFactory
from models.timesensitive.answers import entry_reasons
from models.timesensitive.cues import sure_cue
from pipelines.beam.counters import run_counted
from pipelines.beam.metering import MeteredHandler, MeteredInference, ModelBox, announce_loading
from schemas.dates import period_value
from schemas.records import AnswerGroup, KeptQuestion
from schemas.review_outcome import REVIEWED_METHOD


def time_reasons(detector, batch: list[tuple[KeptQuestion, AnswerGroup]]) -> list[str | None]:
    """Per entry, its time-sensitivity reason read with its answers (models.timesensitive.answers.entry_reasons:
    the question and its answers together where the detector has an answers head, then the answers' tells), ""
    where not time-sensitive; None where a reviewer decided the entry's flag (it stands)."""
    todo = [i for i, (k, _) in enumerate(batch) if k.review is None or k.review.time_sensitive is None]
    entries, sure = [], []
    for i in todo:
        kept, group = batch[i]
        q = kept.scored
        entries.append((q.question, q.lang, q.time_score, q.time_reason if q.time_sensitive else "",
                        [(a.text, a.count) for a in group.answers]))
        sure.append(any(sure_cue(text, q.lang) for text, _ in kept.aliases or [(q.question, 1)]))
    out: list[str | None] = [None] * len(batch)
    for i, reason in zip(todo, entry_reasons(detector, entries, sure)):
        out[i] = reason
    return out


def qa_row(kept: KeptQuestion, group: AnswerGroup, agg, time_reason: str | None = None) -> dict:
    """A row of qa.parquet (plus the index vector under 'vector', dropped before writing); ``time_reason``: the
    entry's time-sensitivity read with its answers (:func:`time_reasons`; "" not time-sensitive), None: its
    question's judgement stands."""
    q = kept.scored
    if time_reason is not None:
        q = q._replace(time_sensitive=bool(time_reason), time_reason=time_reason)
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


def aggregate_groups(aggregator, batch: list[tuple[KeptQuestion, AnswerGroup]], time_detector=None) -> list[dict]:
    """qa rows; ``time_detector``: the build's time-sensitivity judge where entries are also judged by their
    answers (:func:`time_reasons`; under ``time_sensitive.policy: flag`` with ``time_sensitive.answers``), None
    where the questions' judgements stand."""
    # only the answers that answer: a non-answer never wins a vote nor forms or supports a viewpoint; an entry
    # whose answer a reviewer set is served that answer, its logged answers kept in `answers` for reference
    todo = [(k, g) for k, g in batch if reviewed_answer(k) is None]
    results = iter(aggregator.aggregate_many([(k.scored.question, k.qtype, k.scored.lang, list(g.valid))
                                              for k, g in todo]) if todo else [])
    times = time_reasons(time_detector, batch) if time_detector is not None else [None] * len(batch)
    out = []
    for (k, g), time_reason in zip(batch, times):
        text = reviewed_answer(k)
        agg = (next(results) if text is None
               else AggregateResult(text, 1.0, 1.0, [], REVIEWED_METHOD, []))
        out.append(qa_row(k, g, agg, time_reason))
    return out


class AggregateHandler(MeteredHandler):
    stage = "aggregate"
    # batches counted in answers, as in the non-answer stage: the aggregator embeds in proportion to them (on the
    # packaged C engine no faster than batch_size // 8 groups a call, but a torch encoder pays per call)
    whole_batches = True

    def __init__(self, factory: ModelFactory, batch_size: int, cache_path: str | None = None,
                 tell_time: bool = False):
        super().__init__(batch_size)  # answers a call, not groups: see whole_batches
        self._factory = factory
        self._cache_path = cache_path
        self._tell_time = tell_time

    def element_size(self, element) -> int:
        """How many answers of an ((entry, group), total) pair the aggregator reads: the group's answers that
        answer (at least 1: an entry none of whose answers answers still takes its place in a call)."""
        (_, group), _ = element
        return max(1, len(group.valid))

    @announce_loading("aggregator")
    def load_model(self):
        agg = self._factory.aggregator()
        if self._cache_path:
            from models.caches.aggregations import AggregationCache, CachedAggregator

            agg = CachedAggregator(agg, AggregationCache(self._cache_path))
        # the time judge the score stage loaded (the registry's cache): it reads the answers' openings
        return ModelBox((agg, self._factory.time_sensitivity() if self._tell_time else None))

    def run_inference(self, batch, model, inference_args=None):
        agg, timely = model.value
        return run_counted("aggregate", agg,
                           lambda: self._run(lambda b: aggregate_groups(agg, b, timely), batch))


def aggregate_transform(factory: ModelFactory, batch_size: int, cache_path: str | None = None,
                        tell_time: bool = False) -> MeteredInference:
    """(KeptQuestion, AnswerGroup) -> qa row; ``cache_path``: the aggregation cache (or None); ``tell_time``: entries
    are also judged time-sensitive by their answers (:func:`time_reasons`). The progress lines' total: the entries
    that come."""
    return MeteredInference(AggregateHandler(factory, batch_size, cache_path, tell_time))
