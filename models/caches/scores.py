"""A persistent cache of question scores, so a rebuild scores only questions it has not scored before.

Key: sha256 of (the GEC and intent models' identities, language, representative text); value: the
scores and the details of which signals fired. Thresholds are applied afresh on every hit.
Stored in ``BASE_DIR/cache/scores.sqlite`` (schemas.layout.SCORE_CACHE).
"""

from __future__ import annotations

import hashlib
import json
from typing import Callable

from models.calls import record_cached
from models.caches.kv import SqliteKV
from models.gec.base import READS as GEC_READS
from schemas.records import QuestionStats, ScoredQuestion


class ScoreCache:
    """Scores and details of questions scored before, keyed by (text, language, scoring model identities).

    A question's scores depend on its representative surface form and language, so those are the key,
    with the identities of the GEC and intent models (a new model or version misses), and of any further
    question judge wired (models.registry.JUDGES: the standalone judge by default, unless disabled).
    """

    def __init__(self, path: str, models):
        """``models``: the scoring models (``gec_en``, ``gec_zh``, ``intent``, ``judges``), for their identities."""
        self.kv = SqliteKV(path, "scores", "result", "TEXT")
        # GEC_READS: how the GEC judge reads a question (placeholders as values), a change of which misses too
        ids = [models.gec_en.model_id, models.gec_zh.model_id, GEC_READS, models.intent.model_id]
        self.identity = "\x00".join(ids + [j.model_id for j in getattr(models, "judges", ())])
        self.hits = 0
        self.misses = 0

    def key(self, q: QuestionStats) -> str:
        return hashlib.sha256(f"{self.identity}\x00{q.lang}\x00{q.question}".encode("utf-8")).hexdigest()

    def score(self, batch: list[QuestionStats], score_fresh: Callable[[list[QuestionStats]], list[ScoredQuestion]],
              record: Callable[[ScoredQuestion], list], revive: Callable[[QuestionStats, list], ScoredQuestion]
              ) -> list[ScoredQuestion]:
        """Scored questions in ``batch`` order: cached ones from the cache, the rest by ``score_fresh``.
        ``record``: what to keep of a fresh one (scores and details, never a decision); ``revive``: a cached
        record back to a scored question (the scoring stage applies this build's thresholds)."""
        keys = [self.key(q) for q in batch]
        found = self.kv.get_many(sorted(set(keys)))
        todo = [i for i, k in enumerate(keys) if k not in found]
        fresh = score_fresh([batch[i] for i in todo]) if todo else []
        self.kv.put_many({keys[i]: json.dumps(record(s)) for i, s in zip(todo, fresh)})
        out: list[ScoredQuestion | None] = [None] * len(batch)
        for i, s in zip(todo, fresh):
            out[i] = s
        for i, k in enumerate(keys):
            if out[i] is None:
                out[i] = revive(batch[i], json.loads(found[k]))
        record_cached("question scores", len(batch) - len(todo))
        self.misses += len(todo)
        self.hits += len(batch) - len(todo)
        return out  # type: ignore[return-value]
