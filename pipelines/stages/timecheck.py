"""Stage ``time``: is each scored question time-sensitive (will its answers go stale)? Every scored question
is judged once, with its scoring (pipelines.stages.frontier; questions.parquet shows it); the detector reads
the vectors scoring computed in its own spaces, so nothing is embedded again. Under
``time_sensitive.policy: keep`` nothing is judged or flagged. The detector scores; ``time_sensitive.threshold``
(-1: the detector's own) is applied here (schemas.judgement).
"""

from __future__ import annotations

from models.timesensitive.backends import JUDGE as TIME_SENSITIVE
from models.timesensitive.base import score_questions
from schemas.judgement import OWN_THRESHOLD
from schemas.records import ScoredQuestion


def judge_time(detector, batch: list[ScoredQuestion], threshold: float = OWN_THRESHOLD) -> list[ScoredQuestion]:
    spaces = detector.embedders()
    vectors = []
    for q in batch:
        emb = spaces.get(detector.space(q.lang))
        vectors.append(q.vectors.get(emb.model_id) if emb is not None else None)
    results = score_questions(detector, [q.question for q in batch], [q.lang for q in batch], vectors, threshold,
                              TIME_SENSITIVE.flags_low)
    return [q._replace(time_sensitive=bool(reason), time_score=score, time_reason=reason)
            for q, (score, reason) in zip(batch, results)]
