"""Index builders: vectors (row i = qa.parquet row i) -> a FAISS index file + its facts.

The index type follows the base's size and a memory budget, as autofaiss chooses, or
an explicit FAISS factory string:

* up to ``flat_max`` vectors (``index.flat_max``): ``Flat``, exact inner product;
* above that, while the raw vectors fit ``memory_budget_mb``: ``IVF{nlist},Flat``;
* beyond the budget: ``IVF{nlist},PQ{m}`` (m = dim / 8 sub-quantisers of 8 bits).

``nlist`` is about 4·sqrt(n), a power of two, capped so that every list is trained on
at least 39 vectors; the coarse quantiser learns from a seeded sample of at most
64·nlist vectors. For IVF indexes the search breadth ``nprobe`` is raised (8, 16,
… 1024) until recall@10 against exact search, on a sample of the base's own
vectors, reaches the recall floor; it is saved with the index. Vectors are
L2-normalised, so inner product is cosine.

On a machine with a GPU and faiss GPU support (``pip install .[gpu]``), training and
adding run on the GPU and the index is converted to CPU to save; ``built_on`` in the
facts says which.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Protocol

import numpy as np

from schemas.config import IndexConfig

NPROBES = (8, 16, 32, 64, 128, 256, 512, 1024)
TRAIN_PER_LIST = 64


class IndexBuilder(Protocol):
    def build(self, vectors: np.ndarray, path: Path) -> dict: ...


def choose_factory(n: int, dim: int, flat_max: int = IndexConfig.flat_max,
                   memory_budget_mb: float = IndexConfig.memory_budget_mb) -> str:
    """The factory string for n vectors of dim under the budget (see module doc)."""
    if n <= flat_max:
        return "Flat"
    nlist = 2 ** int(round(math.log2(max(4.0 * math.sqrt(n), 16.0))))
    nlist = max(16, min(nlist, 2 ** int(math.log2(max(n // 39, 16)))))
    raw_mb = n * dim * 4 / 2 ** 20
    if raw_mb <= memory_budget_mb:
        return f"IVF{nlist},Flat"
    m = max(1, dim // 8)
    while dim % m:
        m -= 1
    return f"IVF{nlist},PQ{m}"


def gpu_count() -> int:
    try:
        import faiss

        return faiss.get_num_gpus() if hasattr(faiss, "StandardGpuResources") else 0
    except Exception:  # a CPU-only faiss build
        return 0


def exact_search(vectors: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    import faiss

    exact = faiss.IndexFlatIP(vectors.shape[1])
    exact.add(np.ascontiguousarray(vectors, dtype=np.float32))
    return exact.search(np.ascontiguousarray(queries, dtype=np.float32), k)[1]


def recall_at(index, queries: np.ndarray, truth: np.ndarray, k: int) -> float:
    got = index.search(np.ascontiguousarray(queries, dtype=np.float32), k)[1]
    hits = sum(len(set(t) & set(g)) for t, g in zip(truth.tolist(), got.tolist()))
    return hits / float(len(queries) * k) if len(queries) else 1.0


class FaissIndexBuilder:
    def __init__(self, factory: str = IndexConfig.factory, metric: str = IndexConfig.metric,
                 flat_max: int = IndexConfig.flat_max, memory_budget_mb: float = IndexConfig.memory_budget_mb,
                 recall_floor: float = IndexConfig.recall_floor, use_gpu: str = IndexConfig.use_gpu,
                 sample: int = 1000, seed: int = 0):
        self.factory = factory
        self.metric = metric
        self.flat_max = flat_max
        self.memory_budget_mb = memory_budget_mb
        self.recall_floor = recall_floor
        self.use_gpu = use_gpu
        self.sample = sample
        self.seed = seed

    def _training_sample(self, index, vectors: np.ndarray) -> np.ndarray:
        """IVF quantisers learn from at most TRAIN_PER_LIST × nlist vectors (a seeded sample), as FAISS
        advises (30 to 256 per list); k-means on all of 1M vectors costs minutes for nothing."""
        import faiss

        ivf = faiss.try_extract_index_ivf(index)
        if ivf is None or len(vectors) <= TRAIN_PER_LIST * ivf.nlist:
            return vectors
        rng = np.random.default_rng(self.seed)
        pick = np.sort(rng.choice(len(vectors), size=TRAIN_PER_LIST * ivf.nlist, replace=False))
        return np.ascontiguousarray(vectors[pick])

    def build(self, vectors: np.ndarray, path: Path) -> dict:
        import faiss

        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        n, dim = vectors.shape
        factory = choose_factory(n, dim, self.flat_max, self.memory_budget_mb) if self.factory == "auto" \
            else self.factory
        t0 = time.perf_counter()
        index = faiss.index_factory(dim, factory, faiss.METRIC_INNER_PRODUCT)
        gpus = gpu_count() if self.use_gpu in ("auto", "yes") else 0
        if self.use_gpu == "yes" and not gpus:
            from schemas.errors import PublishError

            raise PublishError("index: index.use_gpu is yes but faiss sees no GPU (pip install .[gpu])")
        built_on = "cpu"
        train_set = self._training_sample(index, vectors)
        if gpus and n:
            res = faiss.StandardGpuResources()
            try:
                gpu_index = faiss.index_cpu_to_gpu(res, 0, index)
            except Exception:  # an index type without a GPU version (HNSW, ...): stay on the CPU
                gpu_index = None
            if gpu_index is not None:
                if not gpu_index.is_trained:
                    gpu_index.train(train_set)
                gpu_index.add(vectors)
                index = faiss.index_gpu_to_cpu(gpu_index)
                built_on = "gpu"
        if built_on == "cpu":
            if not index.is_trained and n:
                index.train(train_set)
            if n:
                index.add(vectors)
        build_seconds = time.perf_counter() - t0
        # recall self-test against exact search on a sample of the base's own vectors; IVF: widen nprobe
        rng = np.random.default_rng(self.seed)
        idx = np.sort(rng.choice(n, size=min(self.sample, n), replace=False)) if n else np.zeros(0, int)
        queries = vectors[idx]
        k = min(10, n)
        truth = exact_search(vectors, queries, k) if n else np.zeros((0, 0), int)
        recall = recall_at(index, queries, truth, k) if n else 1.0
        ivf = faiss.try_extract_index_ivf(index) if n else None
        nprobe = None
        if ivf is not None:
            for nprobe in NPROBES:
                if nprobe > ivf.nlist:
                    break
                ivf.nprobe = nprobe
                recall = recall_at(index, queries, truth, k)
                if recall >= self.recall_floor:
                    break
        faiss.write_index(index, str(path))
        facts = {
            "file": path.name, "type": type(index).__name__, "factory": factory,
            "factory_requested": self.factory, "dim": int(dim), "metric": "inner_product", "normalized": True,
            "ntotal": int(index.ntotal), "id_mapping": "row", "built_on": built_on, "gpus_seen": gpus,
            "faiss_version": faiss.__version__, "build_seconds": round(build_seconds, 3),
            "recall_at_10": round(recall, 6), "recall_sample": int(len(idx)), "recall_floor": self.recall_floor,
        }
        if ivf is not None:
            facts.update(nlist=int(ivf.nlist), nprobe=int(ivf.nprobe))
        return facts
