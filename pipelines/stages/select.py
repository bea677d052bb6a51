"""Top-K: rank entries (paraphrase groups, see pipelines.stages.paraphrase) whose representative passed both
filters by their summed frequency; ties by the smallest member key (Entry.order_key), so runs agree. The build selects
twice: the candidates (top K plus headroom), whose answers are judged (pipelines.stages.nonanswer), then
the top K of those with a valid answer."""

from __future__ import annotations

import functools

import apache_beam as beam

from pipelines.beam.metering import MeteredMap
from pipelines.stages.paraphrase import merged_into_reason
from pipelines.stages.score import fate
from schemas.details import GEC_DETAILS, INTENT_DETAILS, details_value
from schemas.records import Entry
from schemas.review_outcome import EXCLUDED_REASON

REVIEWER = "reviewer"  # the time_sensitive_reason of an entry whose flag a reviewer set


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


def rank_order(e: Entry) -> tuple:
    """The entry's place in the build's one total order (smaller first): most asked first, then the smallest
    member key. It needs no scores, so the frontier (pipelines.stages.frontier) orders entries by it before
    scoring them, and the top K is ranked by it."""
    return (-e.asks, e.order_key)


def priority(e: Entry):
    """Larger is better: summed frequency first, then the smaller order key (the smallest member key: it
    needs no scores, so the frontier can rank entries before scoring them)."""
    return (e.asks, _Desc(e.order_key))


def with_entry_time_sensitivity(entry: Entry) -> Entry:
    """An entry is time-sensitive when any of its forms is ("How much is gold?" merged with "金价现在多少"), so
    the flag does not flip with which form happens to be asked most; the representative carries it (its own
    judgement stays on its questions.parquet row)."""
    rep = entry.representative
    review = entry.review
    if rep is not None and review is not None and review.time_sensitive is not None:  # a reviewer overrides the judge
        value = review.time_sensitive
        return entry._replace(representative=rep._replace(time_sensitive=value, time_score=float(value),
                                                          time_reason=REVIEWER if value else ""))
    if rep is None or rep.time_sensitive:
        return entry
    stale = [q for q in entry.members if q.time_sensitive]
    if not stale:
        return entry
    first = max(stale, key=lambda q: (q.time_score, q.key))
    return entry._replace(representative=rep._replace(time_sensitive=True, time_score=first.time_score,
                                                      time_reason=first.time_reason))


def eligible(entry: Entry, drop_time_sensitive: bool) -> bool:
    """Can the entry enter the base at all? (its representative passed both filters, or a reviewer keeps it; and,
    under time_sensitive.policy drop, is not time-sensitive unless a reviewer keeps it); never once a reviewer
    excluded it (docs/review.md)."""
    rep = entry.representative
    review = entry.review
    if review is not None and review.excluded:
        return False
    kept = review is not None and review.keep
    return rep is not None and not (drop_time_sensitive and rep.time_sensitive and not kept)


def has_answer(entry: Entry, group) -> bool:
    """Can the entry serve an answer? A valid logged one (schemas.records.AnswerGroup.valid), or a reviewer's."""
    return bool(group.valid) or (entry.review is not None and entry.review.answer is not None)


def question_rows(entry: Entry, ranks: dict[str, int], judged: dict | None = None,
                  drop_time_sensitive: bool = False) -> list[dict]:
    """The rows of questions.parquet of an entry's members: each with its own scores and frequency, and the
    entry's fate (rank, qid) when the entry is in the base. ``judged``: {entry key: (has a valid answer,
    {member key: non-answer share}, why it leaves when it has no valid answer)} of the entries whose answers were
    judged (the candidates): no_valid_answer, or instruction_like when instruction-like answers were shut out."""
    rank = ranks.get(entry.key) if entry.representative is not None else None
    valid, shares, withheld = (judged or {}).get(entry.key, (True, {}, ""))
    review = entry.review
    kept_by_reviewer = review is not None and review.keep
    out = []
    for q in entry.members:
        is_rep = entry.representative is not None and q.key == entry.key
        reasons = [] if is_rep and kept_by_reviewer else fate(q)
        if not reasons and not is_rep:
            reasons = ["merged"]
        elif not reasons and review is not None and review.excluded:
            reasons = [EXCLUDED_REASON]
        elif not reasons and not valid:
            reasons = [withheld or "no_valid_answer"]
        elif not reasons and drop_time_sensitive and entry.representative.time_sensitive and not kept_by_reviewer:
            reasons = ["time_sensitive"]
        elif not reasons and rank is None:
            reasons = ["below_top_k"]
        link = entry.links.get(q.key)
        scored = q.gec_score is not None
        out.append({
            "question_key": q.key, "question": q.question, "lang": q.lang, "frequency": q.frequency,
            "surface_forms": q.surface_forms, "gec_score": q.gec_score, "intent_score": q.intent_score,
            "gec_details": details_value(q.gec_details, GEC_DETAILS),
            "intent_details": details_value(q.intent_details, INTENT_DETAILS),
            "passed_gec": q.passed_gec if scored else None, "passed_intent": q.passed_intent if scored else None,
            "kept": is_rep and rank is not None, "reasons": reasons, "rank": rank,
            "qid": entry.qid if rank is not None else None, "merged_into_reason": merged_into_reason(entry, q),
            "merge_probability": link[1] if link is not None else None, "entry_key": entry.key,
            "time_sensitive": q.time_sensitive, "time_sensitive_score": q.time_score,
            "time_sensitive_reason": q.time_reason, "non_answer_share": shares.get(q.key),
        })
    return out


def _entry(x) -> Entry:
    return x if isinstance(x, Entry) else x[0]


class SelectTopK(beam.PTransform):
    """entries (or (Entry, ...) tuples) -> {'ranked': (rank, element) for the top K, 'ranks': singleton
    {entry key: rank}, 'members': singleton {member key: entry key} of the top K}."""

    def __init__(self, top_k: int, stage: str = "select", label: str | None = None):
        super().__init__()
        self._k = top_k
        self._stage = stage
        self._label = label  # of its progress line (default: the stage)

    def expand(self, entries):
        top = (
            entries
            | "Ranked" >> beam.Filter(lambda x: _entry(x).representative is not None)
            | "TopK" >> beam.combiners.Top.Of(self._k, key=lambda x: priority(_entry(x)))
            # one element: the top K as one list, ranked
            | "RankOrder" >> MeteredMap.of(self._stage, lambda xs: sorted(
                xs, key=lambda x: rank_order(_entry(x))), total=1, label=self._label)
        )
        ranks = top | "RankTable" >> beam.Map(lambda xs: {_entry(x).key: i + 1 for i, x in enumerate(xs)})
        members = top | "MemberTable" >> beam.Map(
            lambda xs: {m.key: _entry(x).key for x in xs for m in _entry(x).members})
        ranked = top | "EmitRanked" >> beam.FlatMap(lambda xs: [(i + 1, x) for i, x in enumerate(xs)])
        return {"ranked": ranked, "ranks": ranks, "members": members}
