"""Stage ``time``: is each scored question time-sensitive (will its answers go stale)? Every scored question
is judged once, with its scoring (pipelines.stages.frontier; questions.parquet shows it); the detector reads
the vectors scoring computed in its own spaces, so nothing is embedded again. Under
``time_sensitive.policy: keep`` nothing is judged or flagged.
"""

from __future__ import annotations

from schemas.records import ScoredQuestion


def judge_time(detector, batch: list[ScoredQuestion]) -> list[ScoredQuestion]:
    spaces = detector.embedders()
    vectors = []
    for q in batch:
        emb = spaces.get(detector.space(q.lang))
        vectors.append(q.vectors.get(emb.model_id) if emb is not None else None)
    results = detector.score([q.question for q in batch], [q.lang for q in batch], vectors)
    return [q._replace(time_sensitive=bool(reason), time_score=score, time_reason=reason)
            for q, (score, reason) in zip(batch, results)]
