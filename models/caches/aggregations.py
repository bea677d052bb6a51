"""A persistent cache of aggregation results, so rebuilds skip groups whose answers did not change.

Key: sha256 of (question, question type, language, the answer set with counts, the
aggregator's identity). The identity includes the embedder and the clustering
parameters, or the LLM and the prompt version (``aggregate-v1@<hash of the prompt
files>``), so changing any of them misses the cache instead of serving stale results.

Storage: one SQLite file (``<output>/cache/aggregation.sqlite`` in a build), see
:mod:`models.caches.kv`.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from models.aggregators.base import AggregateResult, Viewpoint
from models.caches.kv import SqliteKV


def group_key(question: str, qtype: str, lang: str, answers, model_id: str) -> str:
    payload = json.dumps([question, qtype, lang, [[a.answer_id, a.text, a.count] for a in answers], model_id],
                         ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _dump(res: AggregateResult) -> str:
    return json.dumps({"answer": res.answer, "confidence": res.confidence, "vote_margin": res.vote_margin,
                       "viewpoints": [[v.summary, list(v.answer_ids)] for v in res.viewpoints],
                       "method": res.method, "flags": list(res.flags)}, ensure_ascii=False)


def _load(text: str) -> AggregateResult:
    d = json.loads(text)
    return AggregateResult(d["answer"], d["confidence"], d["vote_margin"],
                           [Viewpoint(s, list(ids)) for s, ids in d["viewpoints"]], d["method"], list(d["flags"]))


class AggregationCache:
    def __init__(self, path: str | Path):
        self._kv = SqliteKV(path, "aggregation", "result", "TEXT")
        self.path = self._kv.path

    def get_many(self, keys: list[str]) -> dict[str, AggregateResult]:
        return {k: _load(v) for k, v in self._kv.get_many(keys).items()}

    def put_many(self, items: dict[str, AggregateResult]) -> None:
        self._kv.put_many({k: _dump(v) for k, v in items.items()})


class CachedAggregator:
    """Wraps an aggregator: cached groups are served from the cache, the rest aggregated and stored."""

    def __init__(self, inner, cache: AggregationCache):
        self.inner = inner
        self.cache = cache
        self.model_id = inner.model_id
        self.hits = 0
        self.misses = 0

    def aggregate_many(self, groups):
        keys = [group_key(q, t, lang, answers, self.inner.model_id) for q, t, lang, answers in groups]
        found = self.cache.get_many(keys)
        todo = [i for i, k in enumerate(keys) if k not in found]
        fresh = self.inner.aggregate_many([groups[i] for i in todo]) if todo else []
        self.cache.put_many({keys[i]: res for i, res in zip(todo, fresh)
                             if not any(f.startswith("llm_fallback:generation_failed") for f in res.flags)})
        self.hits += len(groups) - len(todo)
        self.misses += len(todo)
        results = [found.get(k) for k in keys]
        for i, res in zip(todo, fresh):
            results[i] = res
        return results
