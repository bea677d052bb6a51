"""Which step of a GPU IVF build loses a base of many lists: training, the GPU add, or the search.

    python3 benchmarks/gpu_ivf_lists.py [--n 1000000] [--lists 12288 16383 16384] [--no-cpu-add] [--out F]

On an H200 (faiss-gpu-cu13-cuvs 1.15.0) every IVF index of 16,384 lists that ``indexes.builder`` built on the GPU
kept recall@10 of about .05 (docs/measurements/index-scale.md). For each list count this trains
``IVF{lists},Flat`` (inner product, the builder's training sample) on the GPU, then measures, on the seeded
clustered vectors of ``benchmarks/index_scale.clustered``:

* the trained centroids: NaNs, norms, how many are distinct;
* where 20,000 of the vectors are put: by the GPU add, by a CPU add, and by a flat search of the same centroids
  (then ``add_core``), each against exact assignment (the share that differs);
* recall@10 at nprobe 64 (200 of the base's vectors against exact search) of each of those builds searched on
  the CPU, and of the GPU index searched on the GPU;
* ``recall_cpu_only``: an index made without the GPU at all (100,000 of the vectors, centroids drawn from them,
  assigned by exact search, added with ``add_core``), searched at nprobe 64: whether the installed faiss's own
  CPU search keeps an index of that many lists.

Without a GPU it runs the CPU rows only. One JSON row per list count is written to ``--out`` as it is measured, so
a run cut short keeps what it had.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

NPROBE = 64
SAMPLE = 20_000


def stored_lists(index, n: int) -> np.ndarray:
    """The inverted list each id was stored in (-1: none)."""
    import faiss

    ivf = faiss.extract_index_ivf(index)
    where = np.full(n, -1, dtype=np.int64)
    inv = ivf.invlists
    for lst in range(ivf.nlist):
        size = inv.list_size(lst)
        if size:
            where[faiss.rev_swig_ptr(inv.get_ids(lst), size).copy()] = lst
    return where


def cpu_only_recall(vectors: np.ndarray, lists: int, n: int = 100_000) -> float:
    """Recall@10 at nprobe 64 of an IVF-Flat index of ``lists`` lists over ``n`` of the vectors, made on the CPU:
    centroids drawn from the vectors, each vector put in its exact nearest list."""
    import faiss

    from indexes.builder import exact_search, recall_at

    x = np.ascontiguousarray(vectors[:n])
    rng = np.random.default_rng(1)
    centroids = np.ascontiguousarray(x[rng.choice(len(x), size=min(lists, len(x)), replace=False)])
    quantizer = faiss.IndexFlatIP(x.shape[1])
    quantizer.add(centroids)
    index = faiss.IndexIVFFlat(quantizer, x.shape[1], len(centroids), faiss.METRIC_INNER_PRODUCT)
    index.is_trained = True
    assign = np.ascontiguousarray(faiss.knn(x, centroids, 1, metric=faiss.METRIC_INNER_PRODUCT)[1][:, 0])
    index.add_core(len(x), faiss.swig_ptr(x), None, faiss.swig_ptr(assign))
    index.nprobe = NPROBE
    queries = np.ascontiguousarray(x[rng.choice(len(x), size=200, replace=False)])
    return round(recall_at(index, queries, exact_search(x, queries, 10), 10), 4)


def probe(vectors: np.ndarray, lists: int, gpus: int, queries: np.ndarray, truth: np.ndarray,
          cpu_add: bool = True) -> dict:
    import faiss

    from indexes.builder import FaissIndexBuilder, recall_at

    n, dim = vectors.shape
    empty = faiss.index_factory(dim, f"IVF{lists},Flat", faiss.METRIC_INNER_PRODUCT)
    train = FaissIndexBuilder()._training_sample(empty, vectors)  # the builder's own sample
    pick = np.sort(np.random.default_rng(0).choice(n, size=min(SAMPLE, n), replace=False))
    row: dict = {"vectors": n, "lists": lists, "train_vectors": len(train),
                 "recall_cpu_only": cpu_only_recall(vectors, lists)}

    def recall(index):
        return round(recall_at(index, queries, truth, truth.shape[1]), 4)

    def recall_on_cpu(index):
        faiss.extract_index_ivf(index).nprobe = NPROBE
        return recall(index)

    def misplaced(index):
        return round(float(np.mean(stored_lists(index, n)[pick] != exact)), 4)

    t = time.perf_counter()
    if gpus:
        res = faiss.StandardGpuResources()
        gpu_index = faiss.index_cpu_to_gpu(res, 0, empty)
        gpu_index.train(train)
        trained = faiss.index_gpu_to_cpu(gpu_index)
    else:
        empty.train(train)
        trained = empty
    row["train_s"] = round(time.perf_counter() - t, 2)
    centroids = trained.quantizer.reconstruct_n(0, lists)
    norms = np.linalg.norm(centroids, axis=1)
    row.update(centroid_nans=int(np.isnan(centroids).sum()), centroid_norm_min=round(float(norms.min()), 4),
               centroid_norm_median=round(float(np.median(norms)), 4), centroid_norm_max=round(float(norms.max()), 4),
               distinct_centroids=int(len(np.unique(centroids.round(5), axis=0))))
    exact = faiss.knn(vectors[pick], centroids, 1, metric=faiss.METRIC_INNER_PRODUCT)[1][:, 0]

    if cpu_add:  # the slowest step (40 s at 1M and 16,000 lists on 16 cores)
        on_cpu = faiss.clone_index(trained)
        t = time.perf_counter()
        on_cpu.add(vectors)
        row["cpu_add_s"] = round(time.perf_counter() - t, 2)
        row["recall_cpu_add"] = recall_on_cpu(on_cpu)
        row["cpu_add_misplaced"] = misplaced(on_cpu)
        del on_cpu

    if gpus:
        t = time.perf_counter()
        gpu_index.add(vectors)
        row["gpu_add_s"] = round(time.perf_counter() - t, 2)
        gpu_index.nprobe = NPROBE
        row["recall_gpu_search"] = recall(gpu_index)
        copied = faiss.index_gpu_to_cpu(gpu_index)
        del gpu_index
        row["recall_gpu_add"] = recall_on_cpu(copied)
        row["gpu_add_misplaced"] = misplaced(copied)
        del copied
        flat = faiss.GpuIndexFlatIP(res, dim)
        flat.add(centroids)
    else:  # the same steps with the CPU's flat search, to check the script
        flat = faiss.IndexFlatIP(dim)
        flat.add(centroids)
    t = time.perf_counter()
    assign = np.concatenate([flat.search(vectors[s:s + 1_000_000], 1)[1][:, 0] for s in range(0, n, 1_000_000)])
    row["flat_assign_s"] = round(time.perf_counter() - t, 2)
    row["flat_misplaced"] = round(float(np.mean(assign[pick] != exact)), 4)
    precomputed = faiss.clone_index(trained)
    t = time.perf_counter()
    precomputed.add_core(n, faiss.swig_ptr(vectors), None, faiss.swig_ptr(np.ascontiguousarray(assign)))
    row["add_core_s"] = round(time.perf_counter() - t, 2)
    row["recall_flat_assign_add_core"] = recall_on_cpu(precomputed)
    row["add_core_misplaced"] = misplaced(precomputed)
    return row


def main(argv: list[str] | None = None) -> int:
    import faiss

    from index_scale import clustered
    from indexes.builder import exact_search, gpu_count

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--lists", type=int, nargs="+", default=[12_288, 16_383, 16_384])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--no-cpu-add", action="store_true", help="skip the build added on the CPU (the slow one)")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "gpu_ivf_lists.jsonl")
    args = ap.parse_args(argv)
    gpus = gpu_count()
    t = time.perf_counter()
    vectors = clustered(args.n)
    print(f"{args.n:,} vectors in {time.perf_counter() - t:.1f} s; faiss {faiss.__version__}, {gpus} GPU(s)",
          flush=True)
    queries = np.ascontiguousarray(vectors[np.sort(np.random.default_rng(0).choice(args.n, args.queries,
                                                                                   replace=False))])
    truth = exact_search(vectors, queries, 10)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w") as out:
        for lists in args.lists:
            try:
                row = probe(vectors, lists, gpus, queries, truth, not args.no_cpu_add)
            except Exception as exc:  # one list count's failure is itself a result
                row = {"vectors": args.n, "lists": lists, "error": f"{type(exc).__name__}: {exc}"}
            print(json.dumps(row), flush=True)
            out.write(json.dumps(row) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
