"""Index builders: vectors (row i = qa.parquet row i) -> a FAISS index file + its facts.

``FlatIndexBuilder`` is exact inner-product search over L2-normalised vectors
(cosine). Any FAISS factory string can be given; trained index types are trained
on the vectors themselves. The facts returned go into ``index_infos.json`` and
the manifest.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Protocol

import numpy as np


class IndexBuilder(Protocol):
    def build(self, vectors: np.ndarray, path: Path) -> dict: ...


class FaissIndexBuilder:
    def __init__(self, factory: str = "Flat", metric: str = "ip"):
        self.factory = factory
        self.metric = metric

    def build(self, vectors: np.ndarray, path: Path) -> dict:
        import faiss

        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        n, dim = vectors.shape
        t0 = time.perf_counter()
        index = faiss.index_factory(dim, self.factory, faiss.METRIC_INNER_PRODUCT)
        if not index.is_trained:
            index.train(vectors)
        if n:
            index.add(vectors)
        faiss.write_index(index, str(path))
        seconds = time.perf_counter() - t0
        return {
            "file": path.name, "type": type(index).__name__, "factory": self.factory, "dim": int(dim),
            "metric": "inner_product", "normalized": True, "ntotal": int(index.ntotal),
            "id_mapping": "row", "built_on": "cpu", "faiss_version": faiss.__version__,
            "build_seconds": round(seconds, 3),
        }


def exact_self_recall(vectors: np.ndarray, path: Path, k: int = 10, sample: int = 1000, seed: int = 0) -> float:
    """recall@k of the saved index against exact search, on a sample of the base's own vectors."""
    import faiss

    n = len(vectors)
    if n == 0:
        return 1.0
    index = faiss.read_index(str(path))
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(n, size=min(sample, n), replace=False))
    queries = np.ascontiguousarray(vectors[idx], dtype=np.float32)
    kk = min(k, n)
    exact = faiss.IndexFlatIP(vectors.shape[1])
    exact.add(np.ascontiguousarray(vectors, dtype=np.float32))
    _, truth = exact.search(queries, kk)
    _, got = index.search(queries, kk)
    hits = sum(len(set(t) & set(g)) for t, g in zip(truth.tolist(), got.tolist()))
    return hits / float(len(idx) * kk)
