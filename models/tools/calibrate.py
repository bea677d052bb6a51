"""Score distributions and proposed filter thresholds (e1 for gec, e2 for intent).

    python -m models.tools.calibrate gec|intent --input FILE [--backend NAME] [--model-dir DIR]
        [--target-keep 0.9 | --target-precision 0.95] [--out DIR]

FILE is text (one question per line), JSONL with ``text`` (and optionally ``label``
1/0, as for ``models.tools.evaluate``), or the output of ``models.tools.score`` (lines that
already carry a ``score`` are not scored again). Prints a histogram table (counts
per score bin, by language, and by label when there are labels) and a proposed
threshold:

* ``--target-keep R`` (default 0.9): the threshold that keeps a share R of the questions;
* ``--target-precision P`` (needs labels): the lowest threshold whose kept questions are
  at least P good, i.e. the one with the most recall at that precision.

``--out DIR`` also writes ``<kind>_histogram.png`` and ``<kind>_calibration.json``.
A threshold t means "keep iff score > t", as in the pipeline's filter.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from schemas.errors import QabaseError

BINS = np.linspace(0.0, 1.0, 11)


def read_rows(path: Path) -> list[dict]:
    """[{"text", "label"?, "score"?}] from text or JSONL."""
    from schemas.jsonl import iter_jsonl, read_text_input

    if path.suffix not in (".jsonl", ".json"):
        rows = [{"text": line} for line in read_text_input(path).splitlines()]
        if not rows:
            raise QabaseError(f"input: {path} has no questions")
        return rows
    rows = []
    for n, obj in iter_jsonl(path):
        if not isinstance(obj.get("text"), str):
            raise QabaseError(f"input: {path}:{n} has no string 'text' field")
        if "label" in obj and obj["label"] not in (0, 1):
            raise QabaseError(f"input: {path}:{n}: 'label' must be 0 or 1")
        if "score" in obj and not isinstance(obj["score"], (int, float)):
            raise QabaseError(f"input: {path}:{n}: 'score' must be a number")
        rows.append(obj)
    if not rows:
        raise QabaseError(f"input: {path} has no questions")
    return rows


def threshold_for_keep(scores: np.ndarray, target: float) -> float:
    """The threshold t (keep iff score > t) that keeps closest to, and not below, a share ``target``."""
    if not 0.0 < target <= 1.0:
        raise QabaseError("calibrate: --target-keep must be in (0, 1]")
    s = np.sort(scores)
    n_drop = int(np.floor(len(s) * (1.0 - target) + 1e-9))
    if n_drop == 0:
        return float(max(0.0, s[0] - 1e-6))
    return float(s[n_drop - 1])


def threshold_for_precision(scores: np.ndarray, labels: np.ndarray, target: float) -> tuple[float, bool]:
    """(threshold, reached): the lowest threshold whose kept share has precision >= target. If no
    threshold reaches it, the one with the best precision that keeps at least one good question."""
    if not 0.0 < target <= 1.0:
        raise QabaseError("calibrate: --target-precision must be in (0, 1]")
    candidates = np.concatenate([[max(0.0, float(scores.min()) - 1e-6)], np.unique(scores)])
    best, best_prec = None, -1.0
    for t in candidates:
        kept = scores > t
        if not kept.any():
            continue
        prec = float(labels[kept].mean())
        if prec >= target:
            return float(t), True
        if prec > best_prec and labels[kept].sum() > 0:
            best, best_prec = float(t), prec
    return (best if best is not None else 1.0), False


def at(scores: np.ndarray, labels: np.ndarray | None, t: float) -> dict:
    kept = scores > t
    out = {"threshold": round(t, 4), "kept_share": round(float(kept.mean()), 4)}
    if labels is not None:
        tp = int((kept & (labels == 1)).sum())
        out["precision"] = round(tp / int(kept.sum()), 4) if kept.any() else 0.0
        out["recall"] = round(tp / int((labels == 1).sum()), 4) if (labels == 1).any() else 0.0
    return out


def histogram(scores: np.ndarray, groups: dict[str, np.ndarray]) -> list[dict]:
    rows = []
    for lo, hi in zip(BINS[:-1], BINS[1:]):
        last = hi >= 1.0
        row = {"bin": f"{lo:.1f}-{hi:.1f}"}
        for name, mask in groups.items():
            s = scores[mask]
            row[name] = int(((s >= lo) & ((s <= hi) if last else (s < hi))).sum())
        rows.append(row)
    return rows


def format_histogram(rows: list[dict]) -> str:
    cols = list(rows[0])
    widths = [max(len(c), *(len(str(r[c])) for r in rows)) for c in cols]
    line = lambda vals: "  ".join(str(v).rjust(w) for v, w in zip(vals, widths))  # noqa: E731
    return "\n".join([line(cols), line(["-" * w for w in widths])] + [line([r[c] for c in cols]) for r in rows])


def plot(path: Path, kind: str, scores: np.ndarray, groups: dict[str, np.ndarray], threshold: float,
         current: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    if "good" in groups:  # labelled: good against bad
        shown = {k: groups[k] for k in ("good", "bad")}
    else:  # by language
        shown = {k: m for k, m in groups.items() if k.startswith("lang=") and m.any()} or {"all": groups["all"]}
    for (name, mask), colour in zip(shown.items(), ("tab:green", "tab:red", "tab:blue", "tab:orange", "tab:purple")):
        ax.hist(scores[mask], bins=20, range=(0, 1), label=f"{name} ({int(mask.sum())})", alpha=0.45,
                color=colour, histtype="stepfilled", edgecolor=colour)
    ax.axvline(current, color="grey", linestyle=":", label=f"current {current:.2f}")
    ax.axvline(threshold, color="crimson", linestyle="--", label=f"proposed {threshold:.2f}")
    name = "e1 (GEC)" if kind == "gec" else "e2 (intent)"
    ax.set_xlabel(f"{kind} score (keep iff score > {name})")
    ax.set_ylabel("questions")
    ax.set_title(f"{kind} score distribution, n = {len(scores)}")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _add_arguments(ap) -> None:
    goal = ap.add_mutually_exclusive_group()
    goal.add_argument("--target-keep", type=float, metavar="R", help="share of questions to keep (default 0.9)")
    goal.add_argument("--target-precision", type=float, metavar="P",
                      help="wanted share of good questions among the kept (needs labels)")
    ap.add_argument("--out", type=Path, metavar="DIR",
                    help="also write <kind>_histogram.png and <kind>_calibration.json here")


def _calibrate(args, backend: str) -> int:
    from models.tools.score import score_texts
    from schemas.config import FilterConfig
    from schemas.text import detect_lang

    rows = read_rows(args.input)
    todo = [i for i, r in enumerate(rows) if "score" not in r]
    if todo:
        scored = score_texts(args.kind, [rows[i]["text"] for i in todo], backend, args.model_dir)
        for i, s in zip(todo, scored):
            rows[i]["score"] = s["score"]
    scores = np.asarray([float(r["score"]) for r in rows])
    has_labels = all("label" in r for r in rows)
    labels = np.asarray([int(r["label"]) for r in rows]) if has_labels else None
    langs = np.asarray([r.get("lang") or detect_lang(r["text"]) for r in rows])
    current = FilterConfig().gec_threshold if args.kind == "gec" else FilterConfig().intent_threshold
    if args.target_precision is not None:
        if labels is None:
            raise QabaseError("calibrate: --target-precision needs a 'label' (1/0) on every input line")
        threshold, reached = threshold_for_precision(scores, labels, args.target_precision)
        goal = {"target_precision": args.target_precision, "reached": reached}
    else:
        target = args.target_keep if args.target_keep is not None else 0.9
        threshold, goal = threshold_for_keep(scores, target), {"target_keep": target}
    groups = {"all": np.ones(len(rows), dtype=bool)}
    for lg in sorted(set(langs)):
        groups[f"lang={lg}"] = langs == lg
    if labels is not None:
        groups["good"] = labels == 1
        groups["bad"] = labels == 0
    hist = histogram(scores, groups)
    param = "e1 (filter.gec_threshold)" if args.kind == "gec" else "e2 (filter.intent_threshold)"
    result = {"kind": args.kind, "backend": backend, "n": len(rows), "goal": goal, "parameter": param,
              "proposed": at(scores, labels, threshold), "current": at(scores, labels, current),
              "quantiles": {f"p{q}": round(float(np.percentile(scores, q)), 4) for q in (5, 10, 25, 50, 75, 90)},
              "histogram": hist}
    print(format_histogram(hist))
    print()
    print(f"current  {param} = {current:.4f}: " + ", ".join(f"{k} {v}" for k, v in result["current"].items()
                                                          if k != "threshold"))
    print(f"proposed {param} = {threshold:.4f}: " + ", ".join(f"{k} {v}" for k, v in result["proposed"].items()
                                                            if k != "threshold")
          + ("" if goal.get("reached", True) else "  (target precision not reachable; best shown)"))
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        plot(args.out / f"{args.kind}_histogram.png", args.kind, scores, groups, threshold, current)
        (args.out / f"{args.kind}_calibration.json").write_text(json.dumps(result, indent=2, ensure_ascii=False),
                                                                encoding="utf-8")
        print(f"wrote {args.out / f'{args.kind}_histogram.png'} and {args.out / f'{args.kind}_calibration.json'}")
    return 0


def build_parser():
    from models.tools.score import scorer_parser

    return scorer_parser("calibrate", __doc__, _add_arguments)


def main(argv: list[str] | None = None) -> int:
    from models.tools.score import run_scorer_cli

    return run_scorer_cli(build_parser(), argv, _calibrate)


if __name__ == "__main__":
    sys.exit(main())
