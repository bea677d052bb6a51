"""Index choice at scale: build time, memory and recall@10 of ``index.factory: auto`` and its alternatives.

    nice -n 10 python benchmarks/index_scale.py [--sizes 1000000 4000000] [--ten-million]
        [--every-candidate-up-to 1000000] [--alternatives IVF{nlist},SQ8] [--use-gpu auto|no] [--out FILE]

Vectors: seeded clustered 384-d unit vectors: n / 100 gaussian centres (at least 10,000, at most 100,000),
each coordinate N(0, 1); a vector is its centre plus N(0, 0.5²) noise in every coordinate, L2-normalised
(made in float32 chunks of 100,000). Isotropic noise in 384 dimensions puts a vector's neighbours at nearly
the same distance, a hard case for compressed codes; real sentence embeddings are less uniform.

For each n: up to ``--every-candidate-up-to`` every rung of the ladder (``indexes.builder.ladder``) and the
previous automatic choice beyond the budget (``IVF{nlist},PQ{dim/8}``) are built; above it, ``auto`` and the
``--alternatives`` only. Each is first pre-checked (``indexes.builder.precheck_recall``, timed), then built
with :class:`indexes.builder.FaissIndexBuilder` with its own pre-check off, so that a factory the pre-check
would refuse is still built and its full recall shows whether the pre-check was right. Recall@10 is the
builder's self-test (``--queries`` of the base's vectors against exact search), nprobe the smallest that
reaches the floor (or 1,024). Memory: the written file's bytes and ``index_memory_bytes``' estimate.
``--use-gpu`` is the builder's ``index.use_gpu`` (``auto``: trained and filled on the GPU where faiss sees one; the
pre-check and the self-test stay on the CPU). Writes ``benchmarks/results/index_scale.json`` (or ``--out``) after
every row, so a run cut short keeps what it measured.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

DIM = 384
CHUNK = 100_000


def clustered(n: int, dim: int = DIM, sigma: float = 0.5, seed: int = 0) -> np.ndarray:
    """n seeded unit vectors around n / 100 gaussian centres (10,000 to 100,000), made in float32 chunks."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((min(100_000, max(10_000, n // 100)), dim), dtype=np.float32)
    out = np.empty((n, dim), dtype=np.float32)
    for start in range(0, n, CHUNK):
        m = min(CHUNK, n - start)
        block = out[start:start + m]
        block[:] = centres[rng.integers(0, len(centres), m)]
        block += sigma * rng.standard_normal((m, dim), dtype=np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
    return out


def candidates(n: int, every: bool, alternatives: list[str]) -> list[str]:
    from indexes.builder import _pq_m, choose_factory, ladder, nlist_for

    if not every:  # an alternative that is auto's own choice is measured once
        return ["auto"] + [f for f in (a.format(nlist=nlist_for(n)) for a in alternatives)
                           if f != choose_factory(n, DIM)]
    previous = f"IVF{nlist_for(n)},PQ{_pq_m(DIM, 8)}"  # what auto chose beyond the budget before the ladder
    return ["auto"] + [f for f in ladder(n, DIM) + [previous] if f != choose_factory(n, DIM)]


def measure(vectors: np.ndarray, requested: str, queries: int, floor: float, use_gpu: str = "auto") -> dict:
    import faiss

    from indexes.builder import (FaissIndexBuilder, choose_factory, index_memory_bytes, precheck_recall,
                                 stores_codes)

    n = len(vectors)
    factory = choose_factory(n, DIM) if requested == "auto" else requested
    row = {"vectors": n, "requested": requested, "factory": factory, "load_before": os.getloadavg()[0]}
    if stores_codes(factory):
        t = time.perf_counter()
        row["precheck_recall_at_10"] = round(precheck_recall(vectors, factory), 4)
        row["precheck_s"] = round(time.perf_counter() - t, 1)
        row["precheck_refuses"] = row["precheck_recall_at_10"] < floor
    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        facts = FaissIndexBuilder(factory, recall_floor=floor, use_gpu=use_gpu, sample=queries,
                                  precheck=False).build(vectors, Path(tmp) / "i.faiss")
        total = time.perf_counter() - t
    row.update(built_on=facts["built_on"], build_s=facts["build_seconds"], with_self_test_s=round(total, 1),
               recall_at_10=facts["recall_at_10"], nprobe=facts.get("nprobe"), file_mib=round(facts["file_bytes"]
               / 2 ** 20, 1), estimate_mib=round(index_memory_bytes(factory, n, DIM) / 2 ** 20, 1),
               meets_floor=facts["recall_at_10"] >= floor, load_after=os.getloadavg()[0],
               faiss_threads=faiss.omp_get_max_threads())
    if "precheck_s" in row:
        row["precheck_share_of_build"] = round(row["precheck_s"] / total, 3)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 4_000_000])
    ap.add_argument("--ten-million", action="store_true", help="also 10M vectors (15 GB of raw float32)")
    ap.add_argument("--every-candidate-up-to", type=int, default=1_000_000)
    ap.add_argument("--alternatives", nargs="*", default=["IVF{nlist},SQ8"],
                    help="built besides auto above --every-candidate-up-to ({nlist} as auto's)")
    ap.add_argument("--queries", type=int, default=200, help="self-test queries (exact search is the cost)")
    ap.add_argument("--floor", type=float, default=0.95)
    ap.add_argument("--use-gpu", choices=["auto", "no"], default="auto", help="index.use_gpu for the builds")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "index_scale.json")
    args = ap.parse_args(argv)
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    sizes = args.sizes + ([10_000_000] if args.ten_million else [])
    rows = []
    for n in sizes:
        t = time.perf_counter()
        vectors = clustered(n)
        print(json.dumps({"vectors": n, "generate_s": round(time.perf_counter() - t, 1)}), flush=True)
        for requested in candidates(n, n <= args.every_candidate_up_to, args.alternatives):
            row = measure(vectors, requested, args.queries, args.floor, args.use_gpu)
            print(json.dumps(row), flush=True)
            rows.append(row)
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(rows, indent=2), encoding="utf-8")
        del vectors
    return 0


if __name__ == "__main__":
    sys.exit(main())
