"""Evaluate a scorer on labelled questions: AUROC and precision/recall at a threshold, beside a length baseline.

    python -m models.tools.evaluate gec|intent --input labelled.jsonl [--threshold T] [--backend NAME] [--model-dir DIR]
        [--json OUT.json]

Each input line: ``{"text": str, "label": 1 | 0}`` (1 = good: fluent for gec, a
clear request for intent). Optional ``"pair": id`` groups a bad text with its good
version; pairwise accuracy is then the share of pairs where the good one scores
higher. The baseline scores each text by its length alone; a scorer is only worth
its cost where it beats that clearly.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from schemas.errors import QabaseError


def auroc(scores: list[float], labels: list[int]) -> float:
    """Area under the ROC curve: P(score of a random positive > a random negative), ties counting half."""
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=int)
    pos, neg = s[y == 1], s[y == 0]
    if len(pos) == 0 or len(neg) == 0:
        raise QabaseError("evaluate: need both labels 1 and 0 to compute AUROC")
    from scipy.stats import rankdata

    ranks = rankdata(np.concatenate([pos, neg]))
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def precision_recall(scores: list[float], labels: list[int], threshold: float) -> dict[str, float]:
    """Precision and recall of "keep iff score > threshold" for the positive (good) class."""
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=int)
    kept = s > threshold
    tp = int(np.sum(kept & (y == 1)))
    precision = tp / int(kept.sum()) if kept.any() else 0.0
    recall = tp / int((y == 1).sum()) if (y == 1).any() else 0.0
    return {"threshold": threshold, "precision": round(precision, 4), "recall": round(recall, 4),
            "kept_share": round(float(kept.mean()), 4)}


def pairwise_accuracy(scores: list[float], labels: list[int], pairs: list) -> float | None:
    """Share of (good, bad) pairs with the same pair id where the good text scores higher (ties half)."""
    groups: dict = {}
    for s, y, p in zip(scores, labels, pairs):
        if p is not None:
            groups.setdefault(p, {0: [], 1: []})[y].append(s)
    wins = total = 0.0
    for g in groups.values():
        for good in g[1]:
            for bad in g[0]:
                wins += 1.0 if good > bad else 0.5 if good == bad else 0.0
                total += 1
    return round(wins / total, 4) if total else None


def length_matched_auroc(scores: list[float], labels: list[int], texts: list[str]) -> dict | None:
    """AUROC over only the (positive, negative) pairs of similar length (within 25% of the longer, or
    2 characters), beside the length baseline on the same pairs: what a scorer knows beyond length."""
    pos = [(s, len(t)) for s, t, y in zip(scores, texts, labels) if y == 1]
    neg = [(s, len(t)) for s, t, y in zip(scores, texts, labels) if y == 0]
    wins = base = total = 0.0
    for sp, lp in pos:
        for sn, ln in neg:
            if abs(lp - ln) <= max(2, 0.25 * max(lp, ln)):
                wins += 1.0 if sp > sn else 0.5 if sp == sn else 0.0
                base += 1.0 if lp > ln else 0.5 if lp == ln else 0.0
                total += 1
    if not total:
        return None
    return {"auroc": round(wins / total, 4), "baseline_length_auroc": round(base / total, 4), "pairs": int(total)}


def read_labelled(path: Path) -> tuple[list[str], list[int], list, list]:
    from schemas.jsonl import iter_jsonl

    texts, labels, pairs, kinds = [], [], [], []
    for n, obj in iter_jsonl(path):
        if not isinstance(obj.get("text"), str) or obj.get("label") not in (0, 1):
            raise QabaseError(f"input: {path}:{n} needs a string 'text' and a 'label' of 0 or 1")
        texts.append(obj["text"])
        labels.append(int(obj["label"]))
        pairs.append(obj.get("pair"))
        kinds.append(obj.get("kind"))
    return texts, labels, pairs, kinds


def report(scores: list[float], labels: list[int], pairs: list, texts: list[str], threshold: float,
           kinds: list | None = None) -> dict:
    length = [float(len(t)) for t in texts]
    out = {
        "n": len(texts), "positives": int(sum(labels)),
        "auroc": round(auroc(scores, labels), 4),
        "baseline_length_auroc": round(auroc(length, labels), 4),
        "at_threshold": precision_recall(scores, labels, threshold),
    }
    matched = length_matched_auroc(scores, labels, texts)
    if matched:
        out["length_matched"] = matched
    pa = pairwise_accuracy(scores, labels, pairs)
    if pa is not None:
        out["pairwise_accuracy"] = pa
        out["baseline_length_pairwise_accuracy"] = pairwise_accuracy(length, labels, pairs)
        # per kind of bad text: each pair judged by its bad member's kind
        bad_kind = {p: k for p, k, y in zip(pairs, kinds or [None] * len(pairs), labels) if y == 0 and k}
        by_kind = {}
        for kind in sorted(set(bad_kind.values())):
            keep = [bad_kind.get(p) == kind for p in pairs]
            sub = [(s, y, p) for s, y, p, k in zip(scores, labels, pairs, keep) if k]
            by_kind[kind] = pairwise_accuracy(*map(list, zip(*sub)))
        if by_kind:
            out["pairwise_accuracy_by_kind"] = by_kind
    elif kinds and any(k for k, y in zip(kinds, labels) if y == 0):
        # no pairs: every positive against the negatives of one kind at a time
        pos = [(s, ln) for s, ln, y in zip(scores, length, labels) if y == 1]
        by_kind_auroc = {}
        for kind in sorted({k for k, y in zip(kinds, labels) if y == 0 and k}):
            neg = [(s, ln) for s, ln, y, k in zip(scores, length, labels, kinds) if y == 0 and k == kind]
            ys = [1] * len(pos) + [0] * len(neg)
            by_kind_auroc[kind] = {"auroc": round(auroc([s for s, _ in pos + neg], ys), 4),
                                   "baseline_length_auroc": round(auroc([ln for _, ln in pos + neg], ys), 4),
                                   "n": len(neg)}
        out["auroc_by_unclear_kind"] = by_kind_auroc
    return out


def _add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--threshold", type=float, help="default: the pipeline's e1 (gec) or e2 (intent)")
    ap.add_argument("--json", type=Path, metavar="FILE.json", help="also write the figures as JSON")


def _evaluate(args, backend: str) -> int:
    from models.tools.score import score_texts
    from schemas.config import FilterConfig

    threshold = args.threshold if args.threshold is not None else (
        FilterConfig().gec_threshold if args.kind == "gec" else FilterConfig().intent_threshold)
    texts, labels, pairs, kinds = read_labelled(args.input)
    rows = score_texts(args.kind, texts, backend, args.model_dir)
    figures = report([r["score"] for r in rows], labels, pairs, texts, threshold, kinds)
    figures.update(kind=args.kind, backend=backend, input=str(args.input))
    print(json.dumps(figures, indent=2, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from models.tools.score import scorer_parser

    return scorer_parser("evaluate", __doc__, _add_arguments)


def main(argv: list[str] | None = None) -> int:
    from models.tools.score import run_scorer_cli

    return run_scorer_cli(build_parser(), argv, _evaluate)


if __name__ == "__main__":
    sys.exit(main())
