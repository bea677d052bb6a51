"""Index builders: vectors (row i = qa.parquet row i) -> a FAISS index file + its facts.

The index type follows the base's size and a memory budget, or an explicit FAISS factory string.
``index.factory: auto`` walks one ladder, from exact to compact, and takes the first rung whose index fits
``index.memory_budget_mb`` (counted as :func:`index_memory_bytes` does: codes + ids + coarse centroids +
trained tables):

==========================  ====================  ============================================
rung                        bytes per vector      when
==========================  ====================  ============================================
``Flat``                    4·dim                 up to ``index.flat_max`` vectors (exact)
``IVF{nlist},Flat``         4·dim + 8             raw vectors fit the budget
``IVF{nlist},SQfp16``       2·dim + 8             half-precision vectors fit
``IVF{nlist},SQ8``          dim + 8               one byte a dimension fits
``IVF{nlist},PQ{dim/4}``    dim/4 + 8             the last rung, taken whatever its size
==========================  ====================  ============================================

At 384 dimensions and the default 4,096 MiB that is IVF-Flat to about 2.7M vectors, SQfp16 to 5.5M, SQ8 to
10.9M, then PQ96 (docs/measurements/index-scale.md has the recall each rung measured). ``nlist`` is about
4·sqrt(n), a power of two, capped so that every list is trained on at least 39 vectors, and at
``IVF_MAX_LISTS`` (16,000, from about 8.4M vectors: faiss's GPU build loses every IVF index of 16,384 lists
or more, searched on the CPU); the coarse quantiser learns from a seeded sample of at most 64·nlist vectors.

**Before building**, an index whose vectors are compressed (SQ, PQ, ... codes) and whose base is larger
than the pre-check's sample is tried on a sample first (:func:`precheck_recall`): if its codes lose too much
to reach the recall floor even when every list is searched, the build stops there with one line naming the
index, the recall and what to set instead, instead of after the whole build.

**After building**, for IVF indexes the search breadth ``nprobe`` is raised (8, 16, … 1024) until
recall@10 against exact search, on a sample of the base's own vectors, reaches the recall floor; it is
saved with the index. Vectors are L2-normalised, so inner product is cosine.

On a machine with a GPU and faiss GPU support (``pip install .[gpu-cu13]`` or ``.[gpu-cu12]``), training and
adding run on the GPU and the index is converted to CPU to save; ``built_on`` in the facts says which. No GPU
index holds more than ``GPU_SHARD_VALUES`` numbers: a larger base is added in shards, each on the GPU, merged on
the CPU (:func:`add_in_shards`).
"""

from __future__ import annotations

import logging
import math
import time
from pathlib import Path
from typing import Protocol

import numpy as np

from schemas.config import IVF_MAX_LISTS, IndexConfig

LOG = logging.getLogger("qabase.index")
NPROBES = (8, 16, 32, 64, 128, 256, 512, 1024)
TRAIN_PER_LIST = 64
# the rungs after Flat, most exact first: the codes each vector keeps in the inverted lists
LADDER = ("Flat", "SQfp16", "SQ8", "PQ{quarter}")
# the pre-check: this many of the base's vectors as queries, with their nearest neighbours in the whole base,
# plus a uniform sample, so that the codes are tried at the base's own density
PRECHECK_QUERIES = 200
PRECHECK_NEIGHBOURS = 100
PRECHECK_SAMPLE = 50_000
PRECHECK_LISTS = 256
ID_BYTES = 8
# one GPU add past 2^31 numbers was never seen to work, so a GPU index is filled in shards under it
GPU_SHARD_VALUES = 2**31 - 1


class IndexBuilder(Protocol):
    def build(self, vectors: np.ndarray, path: Path) -> dict: ...


def nlist_for(n: int) -> int:
    """About 4·sqrt(n) inverted lists, a power of two, each trained on at least 39 vectors, at most
    ``IVF_MAX_LISTS``."""
    nlist = 2 ** int(round(math.log2(max(4.0 * math.sqrt(n), 16.0))))
    return max(16, min(nlist, 2 ** int(math.log2(max(n // 39, 16))), IVF_MAX_LISTS))


def _pq_m(dim: int, per: int) -> int:
    """Sub-quantisers of about ``per`` dimensions each that divide ``dim`` (FAISS needs an exact split)."""
    m = max(1, dim // per)
    while dim % m:
        m -= 1
    return m


def code_bytes(code: str, dim: int) -> float:
    """Bytes one vector's code takes for a FAISS code name (``Flat``, ``SQfp16``, ``SQ8``, ``SQ4``, ``PQ96``)."""
    if code == "Flat":
        return 4.0 * dim
    if code.startswith("SQfp16") or code.startswith("SQbf16"):
        return 2.0 * dim
    if code.startswith("SQ"):
        return dim * int(code[2:]) / 8.0
    if code.startswith("PQ"):
        m, _, bits = code[2:].partition("x")
        return int(m) * int(bits or 8) / 8.0
    raise ValueError(f"no size known for the code {code!r}")


def index_memory_bytes(factory: str, n: int, dim: int) -> int:
    """What an index of n vectors takes in memory, as FAISS holds it: per vector its code (and its id in an
    IVF list, 8 bytes), plus the coarse centroids, the PQ codebooks or SQ ranges, and a ``Refine(...)``'s
    codes. Factories outside the ladder's shapes (HNSW, OPQ, ...) raise ValueError."""
    total = 0.0
    for part in factory.replace("Refine(", "REFINE:").replace(")", "").split(","):
        if part.startswith("REFINE:"):
            total += n * code_bytes(part[len("REFINE:"):], dim)
        elif part.startswith("IVF"):
            total += int(part[3:]) * dim * 4.0 + n * ID_BYTES
        elif part.startswith("PQ"):
            bits = int(part[2:].partition("x")[2] or 8)
            total += n * code_bytes(part, dim) + 2 ** bits * dim * 4.0  # every sub-quantiser's centroids
        elif part.startswith("SQ") and not part.startswith("SQfp16") and not part.startswith("SQbf16"):
            total += n * code_bytes(part, dim) + 2 * dim * 4.0
        else:
            total += n * code_bytes(part, dim)
    return int(total)


def ladder(n: int, dim: int) -> list[str]:
    """The factory strings ``auto`` may choose for n vectors above ``flat_max``, most exact first."""
    nlist = nlist_for(n)
    return [f"IVF{nlist},{code.format(quarter=_pq_m(dim, 4))}" for code in LADDER]


def choose_factory(n: int, dim: int, flat_max: int = IndexConfig.flat_max,
                   memory_budget_mb: float = IndexConfig.memory_budget_mb) -> str:
    """The factory string for n vectors of dim under the budget (see module doc): the first rung that fits,
    else the last."""
    if n <= flat_max:
        return "Flat"
    rungs = ladder(n, dim)
    for factory in rungs:
        if index_memory_bytes(factory, n, dim) <= memory_budget_mb * 2 ** 20:
            return factory
    return rungs[-1]


def stores_codes(factory: str) -> bool:
    """Whether the index keeps compressed codes instead of the vectors (its recall is lost in the codes, not
    only in the search)."""
    return any(tag in factory for tag in ("PQ", "SQ", "LSH", "RaBitQ"))


def _with_nlist(factory: str, nlist: int) -> str:
    return ",".join(f"IVF{nlist}" if part.startswith("IVF") and part[3:].isdigit() else part
                    for part in factory.split(","))


def _search_everything(index) -> None:
    """Widest search: every inverted list, and a refine step re-ranking four times the asked-for k."""
    import faiss

    ivf = faiss.try_extract_index_ivf(index)
    if ivf is not None:
        ivf.nprobe = ivf.nlist
    if isinstance(index, faiss.IndexRefine):
        index.k_factor = 4.0


def precheck_recall(vectors: np.ndarray, factory: str, seed: int = 0) -> float:
    """recall@10 that ``factory``'s codes keep on a sample of ``vectors``, searching every list: an upper
    bound, near enough, of what the full build can reach, at a small part of its cost.

    The sample is PRECHECK_QUERIES of the base's vectors, each with its PRECHECK_NEIGHBOURS nearest
    neighbours in the whole base (one exact search of those queries), and PRECHECK_SAMPLE more drawn
    uniformly; the neighbours keep the base's density where recall is decided (a plain sample would be
    sparser, so kinder to lossy codes). The index is ``factory`` with at most PRECHECK_LISTS lists, trained
    and filled with the sample; truth is exact search within it. Seeded."""
    import faiss

    n, dim = vectors.shape
    rng = np.random.default_rng(seed + 1)
    picked = np.sort(rng.choice(n, size=min(PRECHECK_QUERIES, n), replace=False))
    queries = np.ascontiguousarray(vectors[picked])
    near = exact_search(vectors, queries, min(PRECHECK_NEIGHBOURS, n))
    rows = np.union1d(rng.choice(n, size=min(PRECHECK_SAMPLE, n), replace=False), near.ravel())
    rows = np.union1d(rows, picked)
    sample = np.ascontiguousarray(vectors[rows])
    k = min(10, len(sample))
    truth = exact_search(sample, queries, k)
    # every list is searched, so the lists only shape the residuals the codes encode: a few suffice, and their
    # k-means stays cheap (coarser lists leave larger residuals, so this errs against the codes)
    lists = min(PRECHECK_LISTS, nlist_for(len(sample)))
    index = faiss.index_factory(dim, _with_nlist(factory, lists), faiss.METRIC_INNER_PRODUCT)
    train = sample
    ivf = faiss.try_extract_index_ivf(index)
    if ivf is not None and len(sample) > TRAIN_PER_LIST * ivf.nlist:
        train = sample[np.sort(rng.choice(len(sample), size=TRAIN_PER_LIST * ivf.nlist, replace=False))]
    index.train(np.ascontiguousarray(train))
    index.add(sample)
    _search_everything(index)
    return recall_at(index, queries, truth, k)


def faiss_gpu_build() -> bool:
    """Whether the installed faiss is built with GPU support (whether or not a GPU is seen)."""
    import faiss

    return hasattr(faiss, "StandardGpuResources")


def gpu_count() -> int:
    try:
        import faiss

        return faiss.get_num_gpus() if faiss_gpu_build() else 0
    except Exception:  # a CPU-only faiss build
        return 0


def add_in_shards(trained, vectors: np.ndarray, rows: int, add):
    """``trained`` (an empty trained CPU index) filled with ``vectors``, ``rows`` at a time: ``add(index, block)``
    fills a copy of it with one block and gives it back on the CPU; the shards are merged in order, each vector
    keeping its row as its id (the same inverted lists as one add)."""
    import faiss

    out = None
    for start in range(0, len(vectors), rows):
        part = add(faiss.clone_index(trained), vectors[start:start + rows])
        if out is None:
            out = part
        else:  # IVF lists store ids (shifted by the rows before); flat codes are numbered in order
            out.merge_from(part, start if faiss.try_extract_index_ivf(out) is not None else 0)
    return out


def exact_search(vectors: np.ndarray, queries: np.ndarray, k: int) -> np.ndarray:
    import faiss

    # faiss.knn reads the vectors in place: an IndexFlatIP would copy them (6 GB at 4M × 384)
    return faiss.knn(np.ascontiguousarray(queries, dtype=np.float32), np.ascontiguousarray(vectors, dtype=np.float32),
                     k, metric=faiss.METRIC_INNER_PRODUCT)[1]


def recall_at(index, queries: np.ndarray, truth: np.ndarray, k: int) -> float:
    got = index.search(np.ascontiguousarray(queries, dtype=np.float32), k)[1]
    hits = sum(len(set(t) & set(g)) for t, g in zip(truth.tolist(), got.tolist()))
    return hits / float(len(queries) * k) if len(queries) else 1.0


class FaissIndexBuilder:
    def __init__(self, factory: str = IndexConfig.factory, metric: str = IndexConfig.metric,
                 flat_max: int = IndexConfig.flat_max, memory_budget_mb: float = IndexConfig.memory_budget_mb,
                 recall_floor: float = IndexConfig.recall_floor, use_gpu: str = IndexConfig.use_gpu,
                 sample: int = 1000, seed: int = 0, precheck: bool = True):
        self.factory = factory
        self.metric = metric
        self.flat_max = flat_max
        self.memory_budget_mb = memory_budget_mb
        self.recall_floor = recall_floor
        self.use_gpu = use_gpu
        self.sample = sample
        self.seed = seed
        self.run_precheck = precheck

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
        index = faiss.index_factory(dim, factory, faiss.METRIC_INNER_PRODUCT)
        seen = gpus = gpu_count() if self.use_gpu in ("auto", "yes") else 0
        if self.use_gpu == "yes" and not gpus:
            from schemas.errors import PublishError

            raise PublishError("index: index.use_gpu is yes but faiss sees no GPU (pip install .[gpu])")
        precheck = self.precheck(vectors, factory)
        t0 = time.perf_counter()
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
                rows = max(1, GPU_SHARD_VALUES // dim)
                if n <= rows:
                    gpu_index.add(vectors)
                    index = faiss.index_gpu_to_cpu(gpu_index)
                else:
                    def add_on_gpu(empty, block):
                        shard = faiss.index_cpu_to_gpu(res, 0, empty)
                        shard.add(block)
                        return faiss.index_gpu_to_cpu(shard)

                    index = add_in_shards(faiss.index_gpu_to_cpu(gpu_index), vectors, rows, add_on_gpu)
                    del gpu_index
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
            "ntotal": int(index.ntotal), "id_mapping": "row", "built_on": built_on, "gpus_seen": seen,
            "faiss_version": faiss.__version__, "build_seconds": round(build_seconds, 3),
            "recall_at_10": round(recall, 6), "recall_sample": int(len(idx)), "recall_floor": self.recall_floor,
        }
        if ivf is not None:
            facts.update(nlist=int(ivf.nlist), nprobe=int(ivf.nprobe))
        facts["file_bytes"] = path.stat().st_size
        if precheck:
            facts.update(precheck)
        return facts

    def precheck(self, vectors: np.ndarray, factory: str) -> dict:
        """Refuse, before the build, an index whose codes cannot reach the recall floor (:func:`precheck_recall`);
        its figures for the facts. Skipped for indexes that keep the vectors, and for bases no larger than the
        sample, whose build costs about what the pre-check would."""
        n = len(vectors)
        if not self.run_precheck or not stores_codes(factory) \
                or n <= PRECHECK_SAMPLE + PRECHECK_QUERIES * PRECHECK_NEIGHBOURS:
            return {}
        t = time.perf_counter()
        recall = precheck_recall(vectors, factory, self.seed)
        if recall < self.recall_floor:
            from schemas.errors import PublishError

            raise PublishError(
                f"index: {factory} keeps recall@10 {recall:.3f} on a sample of the {n:,} vectors even searching "
                f"every list, below index.recall_floor {self.recall_floor}; not built. Set index.factory to "
                f"{self.instead(n, vectors.shape[1], factory)}, raise index.memory_budget_mb, or lower the floor")
        return {"precheck_recall_at_10": round(recall, 6), "precheck_seconds": round(time.perf_counter() - t, 3)}

    def instead(self, n: int, dim: int, factory: str) -> str:
        """What to set instead of a factory that fails the pre-check: the ladder's rung one more exact than the
        failing codes (half-precision when the codes are not on the ladder), and the memory it needs."""
        rungs = ladder(n, dim)
        codes = [r.split(",", 1)[1] for r in rungs]
        code = factory.split(",", 1)[1] if factory.startswith("IVF") and "," in factory else factory
        better = rungs[codes.index(code) - 1] if code in codes[1:] else rungs[1]
        return f"{better} (about {index_memory_bytes(better, n, dim) / 2 ** 20:,.0f} MiB)"
