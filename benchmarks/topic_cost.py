"""Cost of the build's topics step (pipelines.stages.topics.assign_topics: projection, HDBSCAN on a seeded sample,
nearest-neighbour topics for the rest, naming and counts) on synthetic entries, as a build hands it its rows
(docs/measurements/topics.md, "Cost").

    python benchmarks/topic_cost.py [--entries 50000] [--dims 384]

The entries: 300 Gaussian groups, each entry its group's centre plus noise (L2-normalised), its question six
words of its group's vocabulary; frequencies falling with rank, every 7th entry flagged, reliability uniform.
Prints the seconds of two runs and whether they gave the same topics.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def synthetic_rows(n: int, d: int, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    group = rng.integers(0, 300, n)
    centres = rng.normal(size=(300, d))
    x = centres[group] + rng.normal(scale=0.9, size=(n, d))
    x = (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)
    words = [f"w{i}" for i in range(3000)]
    return [{"rank": i + 1, "question": " ".join(words[(group[i] * 10 + k) % 3000] for k in rng.integers(0, 10, 6)),
             "frequency": 1000 // (i + 1) + 1, "flags": ["tie"] if i % 7 == 0 else [],
             "reliability": float(rng.random()), "aliases": [], "vector": x[i]} for i in range(n)]


def main(argv=None) -> int:
    from pipelines.stages.topics import assign_topics
    from schemas.config import TopicsConfig

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--entries", type=int, default=50_000)
    ap.add_argument("--dims", type=int, default=384)
    args = ap.parse_args(argv)
    rows = synthetic_rows(args.entries, args.dims)
    tables = []
    for run in (1, 2):
        t = time.perf_counter()
        tables.append(assign_topics([dict(r) for r in rows], TopicsConfig()))
        unassigned = next((t["size"] for t in tables[-1] if t["topic"] == -1), 0) / len(rows)
        print(f"run {run}: {args.entries:,} entries x {args.dims} dims: {time.perf_counter() - t:.1f} s; "
              f"{sum(1 for t in tables[-1] if t['topic'] != -1)} topics, {unassigned:.1%} unassigned")
    print("same topics on both runs:", tables[0] == tables[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
