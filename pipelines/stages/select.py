"""Top-K: rank entries (paraphrase groups, see pipelines.stages.paraphrase) whose representative passed both
filters by their summed frequency; ties by the representative's key, so runs agree."""

from __future__ import annotations

import functools

import apache_beam as beam

from pipelines.stages.metering import MeteredMap
from pipelines.stages.paraphrase import merged_into_reason
from pipelines.stages.score import fate
from schemas.records import Entry


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


def priority(e: Entry):
    """Larger is better: summed frequency first, then the smaller key."""
    return (e.representative.frequency, _Desc(e.key))


def rank_order(entries: list[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: (-e.representative.frequency, e.key))


def question_rows(entry: Entry, ranks: dict[str, int]) -> list[dict]:
    """The rows of questions.parquet of an entry's members: each with its own scores and frequency, and the
    entry's fate (rank, qid) when the entry is in the base."""
    rank = ranks.get(entry.key) if entry.representative is not None else None
    out = []
    for q in entry.members:
        is_rep = entry.representative is not None and q.key == entry.key
        reason = fate(q)
        if not reason and not is_rep:
            reason = "merged"
        elif not reason and rank is None:
            reason = "below_top_k"
        link = entry.links.get(q.key)
        out.append({
            "question_key": q.key, "question": q.question, "lang": q.lang, "frequency": q.frequency,
            "surface_forms": q.surface_forms, "gec_score": q.gec_score, "intent_score": q.intent_score,
            "gec_details": q.gec_details, "intent_details": q.intent_details, "passed_gec": q.passed_gec,
            "passed_intent": q.passed_intent, "kept": is_rep and rank is not None, "reason": reason, "rank": rank,
            "qid": entry.qid if rank is not None else None, "merged_into_reason": merged_into_reason(entry, q),
            "merge_probability": link[1] if link is not None else None, "entry_key": entry.key,
        })
    return out


class SelectTopK(beam.PTransform):
    """entries -> {'ranked': (rank, Entry) for the top K, 'ranks': singleton {entry key: rank},
    'members': singleton {member key: entry key} of the top K}."""

    def __init__(self, top_k: int):
        super().__init__()
        self._k = top_k

    def expand(self, entries):
        top = (
            entries
            | "Eligible" >> beam.Filter(lambda e: e.representative is not None)
            | "TopK" >> beam.combiners.Top.Of(self._k, key=priority)
            | "RankOrder" >> MeteredMap.of("select", rank_order)
        )
        ranks = top | "RankTable" >> beam.Map(lambda es: {e.key: i + 1 for i, e in enumerate(es)})
        members = top | "MemberTable" >> beam.Map(lambda es: {m.key: e.key for e in es for m in e.members})
        ranked = top | "EmitRanked" >> beam.FlatMap(lambda es: [(i + 1, e) for i, e in enumerate(es)])
        return {"ranked": ranked, "ranks": ranks, "members": members}
