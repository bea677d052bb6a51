"""Train the answer-match model (models.answermatch: does this answer answer this question?) and measure it.

    python -m models.tools.train_answer_match [--data ../shared/data] [--sets benchmarks] [--epochs 4] [--seed 0]
        [--folds 3] [--layers 6 8] [--rank 8] [--cache DIR] [--out MODEL.npz] [--out-of-fold LOGITS.npz]
        [--combine MODEL.npz=LOGITS.npz ...] [--report] [--model MODEL.npz] [--json T.json]

A cross-encoder on the packaged e5 (models.cross_encoder: the question and the answer's opening read together),
LoRA adapters on its top layers; by default two of them, adapting the top 6 and the top 8 layers, their logits
averaged (models.pair_mean). Each is trained on:

- real answers: the hand labels on the Decompose-and-Query sample (models.tools.dq_labels; the answers of a real
  Chinese chatbot, ``dq_base/dq_base_sample.jsonl`` of the shared data: alkaidpku/DQ-ToolQA @e31f388,
  data/reliable.json, a seeded sample; released with the paper for research), their **tune** split only;
- another question's answer: each fitted question paired with the answer of another fitted line (a real answer
  that does not answer it), seeded;
- benchmarks/nonanswer_real_tune.tsv (written in this repository in the style of such answers);
- benchmarks/answer_match_positives_written.tsv (written in this repository: answers of the kinds the real answers
  hold few of, terse right answers and opinion viewpoints, all labelled as answers).

How the epoch count and the threshold (on P(does not answer)) are chosen: by default (``--folds 3``) cross-fitted
over every tune line (the folds cut by a hash of the line): the count with the best AUC over the pooled
out-of-fold logits and the best-F1 threshold on them, then a model fitted on every tune line. Several models: each
cross-fitted on the same folds, and the mean's threshold chosen on their averaged out-of-fold logits (each after its
own epoch count). ``--folds 0``: one model fitted on 70% of the tune lines, the best epoch and threshold on the other
30% (the models packaged before 2026-11-29's last). ``--report`` measures on the report split (never used for a
choice) the model, the build's default non-answer judge, both, and what a build applies.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import tempfile
from pathlib import Path

import numpy as np

from models.tools.cross_training import PairStates, auc, sigmoid, train_adapters
from models.tools.fitted import precision_recall_f1 as prf
from models.tools.fitted import read_labelled_tsv
from models.tools.paths import add_data_option, add_sets_option, sets_dir

PACKAGED = Path(__file__).resolve().parents[1] / "data" / "answer_match.npz"
# in the labelled sets' folder: non-answers and answers in the chatbot's style, then the terse answers and opinion
# viewpoints the real answers hold few of (without them the judge flagged "唐代。" and every viewpoint)
WRITTEN = ("nonanswer_real_tune.tsv", "answer_match_positives_written.tsv")
FIT_SHARE = 0.7
FOLDS = 3


def is_fit(line: int) -> bool:
    return int(hashlib.sha256(f"fit\x00{line}".encode()).hexdigest(), 16) % 100 < FIT_SHARE * 100


def fold_of(line: int, folds: int) -> int:
    """A tune line's fold for cross-fitting, by a hash of the line (not of its text)."""
    return int(hashlib.sha256(f"fold\x00{line}".encode()).hexdigest(), 16) % folds


def written_pairs(sets) -> list[tuple[str, str, int]]:
    return [(r["question"], r["answer"], r["label"]) for name in WRITTEN for r in
            read_labelled_tsv(sets_dir(sets) / name, ("lang", "label", "kind", "question", "answer"))]


def fit_pairs(rows, written, measured: set[str], seed: int) -> list[tuple[str, str, int]]:
    """What a model is fitted on from these labelled lines: each line; each line's question with another line's answer
    (a real answer that does not answer it; seeded); the written rows whose question is not ``measured`` (a written
    row may ask a question users asked too: it is left out where that question is measured on)."""
    fit = labelled(rows)
    rng = random.Random(seed)
    for i, r in enumerate(rows):
        other = rows[(i + 1 + rng.randrange(len(rows) - 1)) % len(rows)]
        if other["question"] != r["question"]:
            fit.append((r["question"], other["answer"], 1))
    return fit + [w for w in written if w[0] not in measured]


def labelled(rows) -> list[tuple[str, str, int]]:
    return [(r["question"], r["answer"], r["non_answer"]) for r in rows]


def training_sets(data, sets, seed: int) -> dict[str, list[tuple[str, str, int]]]:
    """(question, answer, 1 if it does not answer) per set: fit, calibrate, report (``--folds 0``)."""
    from models.tools.dq_labels import load

    tune = load(data, "tune")
    calibrate = labelled(r for r in tune if not is_fit(r["line"]))
    report = labelled(load(data, "report"))
    fit = fit_pairs([r for r in tune if is_fit(r["line"])], written_pairs(sets),
                    {q for q, _, _ in calibrate + report}, seed)
    return {"fit": fit, "calibrate": calibrate, "report": report}


def cross_fit_sets(data, sets, seed: int, folds: int) -> dict:
    """Cross-fitting's sets: ``folds`` (per fold, the pairs fitted on the other folds, its own lines, and their
    places in ``tune``), ``tune`` (every tune line), ``fit`` (the pairs of the model fitted on all of them) and
    ``report``."""
    from models.tools.dq_labels import load

    tune = load(data, "tune")
    report = labelled(load(data, "report"))
    written, reported = written_pairs(sets), {q for q, _, _ in report}
    fold = [fold_of(r["line"], folds) for r in tune]
    parts = []
    for k in range(folds):
        index = [i for i, f in enumerate(fold) if f == k]
        held = [tune[i] for i in index]
        rest = [r for r, f in zip(tune, fold) if f != k]
        parts.append((fit_pairs(rest, written, reported | {r["question"] for r in held}, seed), labelled(held), index))
    return {"folds": parts, "tune": labelled(tune), "fit": fit_pairs(tune, written, reported, seed),
            "report": report}


def best_f1_threshold(p: np.ndarray, y: np.ndarray) -> float:
    best, best_f1 = 0.5, -1.0
    for t in np.unique(np.round(p, 4)):
        f1 = prf(p >= t, y)["f1"]
        if f1 > best_f1:
            best, best_f1 = float(t), f1
    return best


def default_judge_verdicts(pairs, cache_dir: str | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(flags, scores, sure) of the build's default non-answer judge (its config threshold, applied as the stage
    does; ``sure``: flagged by a sure rule, whatever the score); ``cache_dir``: its vector cache (or None)."""
    from models.config_check import load_config
    from models.registry import judge_model

    cfg = load_config(None)
    detector = judge_model("non_answer", cfg.non_answer, cfg.models, cache_dir)
    items = [(q, a, "zh") for q, a, _ in pairs]
    judgements = detector.judgements(items)
    judged = detector.decide(judgements, ["zh"] * len(items))
    return (np.array([bool(r) for _, r in judged]), np.array([s for s, _ in judged]),
            np.array([j.sure for j in judgements]))


def as_a_build_applies(model, tokenizer, pairs, threshold: float, cache_dir: str | None = None
                       ) -> tuple[np.ndarray, int]:
    """What a build with the default config shuts out, by the stage's own rule (models.answer_judging
    .judged_columns): the default non-answer judge, then this model as answer_match at ``threshold`` with the
    config's ``ask_above`` and ``lets_through_below``, in the number format ``models.precision`` resolves to here.
    And how many answers it asked. ``cache_dir``: the non-answer judge's vector cache (or None)."""
    import torch

    from models.answer_judging import judged_columns
    from models.answermatch.judge import AnswerMatchJudge
    from models.config_check import load_config
    from models.cross_encoder import pair_logits
    from models.embedders.hf_common import resolve_precision
    from models.registry import judge_kind, judge_model
    from schemas.judgement import Configured

    cfg = load_config(None)
    model = model.to(getattr(torch, resolve_precision(cfg.models.precision)))
    asked = []

    def logits(batch):
        asked.append(len(batch))
        return pair_logits(model, tokenizer, batch)

    section = cfg.answer_match
    matcher = AnswerMatchJudge(logits, threshold, "trained here", section.ask_above, section.lets_through_below)
    kind = judge_kind("answer_match")
    judges = ((judge_kind("non_answer"), judge_model("non_answer", cfg.non_answer, cfg.models, cache_dir)),
              (kind, Configured(matcher, section.threshold, matcher.model_id, kind.flags_low)))
    columns = judged_columns(judges, [(q, a, "zh") for q, a, _ in pairs])
    return np.array([bool(c["non_answer"]) for c in columns]), sum(asked)


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser, summary

    ap = command_parser("train-answer-match", summary(__doc__))
    add_data_option(ap, "holds dq_base/")
    add_sets_option(ap)
    ap.add_argument("--epochs", type=int, default=4, help="the most epochs (the count kept is chosen)")
    ap.add_argument("--folds", type=int, default=FOLDS,
                    help="cross-fit over every tune line in this many folds, then fit on all of them; 0: fit on 70%% "
                         "and calibrate on the rest (how the models packaged until 2026-11-29 were chosen)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--layers", type=int, nargs="+", default=[6, 8],
                    help="the top layers adapted (the others stay the packaged); several: a model for each, cross-"
                         "fitted, their logits averaged (models.pair_mean) and the mean's threshold chosen on their "
                         "averaged out-of-fold logits")
    ap.add_argument("--combine", nargs="+", metavar="MODEL.npz=LOGITS.npz",
                    help="average models this command fitted (each with the out-of-fold logits it kept) instead of "
                         "fitting: what several --layers do, in parts")
    ap.add_argument("--rank", type=int, default=8, help="the adapters' rank")
    ap.add_argument("--out-of-fold", type=Path, metavar="LOGITS.npz",
                    help="keep cross-fitting's out-of-fold logits here (per epoch, in tune-line order) to study them; "
                         "several --layers: one file each, LOGITS.layersN.npz")
    ap.add_argument("--cache", type=Path, help="keep the packaged layers' states here between runs")
    ap.add_argument("--out", type=Path, metavar="MODEL.npz",
                    help=f"write the adapters here (packaged: models/data/{PACKAGED.name})")
    ap.add_argument("--report", action="store_true", help="also measure on the report split (after every choice)")
    ap.add_argument("--model", type=Path, metavar="MODEL.npz", help="measure this file instead of training one")
    ap.add_argument("--json", type=Path, metavar="TABLE.json", help="also write the report as JSON")
    return ap


SOURCES = {"dq_base": "alkaidpku/DQ-ToolQA @e31f388, data/reliable.json (seeded sample in the shared data; labels: "
                      "benchmarks/dq_base_labels.tsv, tune split)",
           "written": [f"benchmarks/{name} (written in this repository)" for name in WRITTEN]}


def fresh_model(args):
    """The packaged e5 with new adapters (seeded) and its tokenizer."""
    import torch

    from models.cross_encoder import CrossEncoder
    from models.embedders.e5_torch import load_e5_torch

    torch.manual_seed(args.seed)
    bert, tokenizer = load_e5_torch("cpu", for_training=True)
    return CrossEncoder(bert, args.rank, 2.0 * args.rank, bert.config.num_hidden_layers - args.layers), tokenizer


def fitted_on_70(args, sets):
    """Fitted on 70% of the tune lines; the epoch and the threshold chosen on the other 30%."""
    model, tokenizer = fresh_model(args)
    fit = PairStates(model, tokenizer, sets["fit"], args.cache, "fit states")
    calibrate = PairStates(model, tokenizer, sets["calibrate"], args.cache, "calibration states")
    model, aucs = train_adapters(model, fit, calibrate, args.epochs, args.seed, batch=16, lr=5e-4)
    p = sigmoid(calibrate.logits(model))
    y = calibrate.y.astype(int)
    threshold = best_f1_threshold(p, y)
    return model, tokenizer, {
        "threshold": round(threshold, 6), "epochs": args.epochs, "calibration_auc_per_epoch": aucs,
        "pairs": {k: len(sets[k]) for k in ("fit", "calibrate")}, "calibration": prf(p >= threshold, y),
        "calibration_auc": round(auc(p, y), 4)}


def cross_fitted(args, sets):
    """Cross-fitted: per fold, a model fitted on the other folds gives its fold's logits after each epoch; the epoch
    count with the best AUC over the pooled out-of-fold logits, and the best-F1 threshold on them, are chosen on every
    tune line at once; then a model is fitted on all of them for that many epochs. Every labelled line is fitted on,
    and the threshold is chosen on 2,013 lines where a 30% share gave 580 (its F1 moved by about .02 between runs)."""
    model, tokenizer = fresh_model(args)
    wanted = sets["fit"] + [p for fit, held, _ in sets["folds"] for p in fit + held]
    pool = PairStates(model, tokenizer, list({(q, a): (q, a, 0) for q, a, _ in wanted}.values()), args.cache,
                      "pair states")
    y = np.array([label for _, _, label in sets["tune"]])
    out_of_fold = np.zeros((args.epochs, len(y)))
    for k, (fit, held, index) in enumerate(sets["folds"]):
        print(f"fold {k + 1}/{len(sets['folds'])}: fit on {len(fit):,} pairs, {len(held):,} lines held out",
              file=sys.stderr)
        model = model if k == 0 else fresh_model(args)[0]
        per_epoch: list[np.ndarray] = []
        train_adapters(model, pool.subset(fit), pool.subset(held), args.epochs, args.seed, batch=16, lr=5e-4,
                       tune_logits=per_epoch)
        for epoch, logits in enumerate(per_epoch):
            out_of_fold[epoch, index] = logits
    if args.out_of_fold:
        np.savez(args.out_of_fold, logits=out_of_fold, y=y)
    aucs = [round(auc(o, y), 4) for o in out_of_fold]
    epochs = int(np.argmax(aucs)) + 1
    p = sigmoid(out_of_fold[epochs - 1])
    threshold = best_f1_threshold(p, y)
    print(f"out-of-fold AUC per epoch {aucs}: {epochs} epochs, threshold {threshold:.4f}; fitting on every tune line",
          file=sys.stderr)
    model, _ = train_adapters(fresh_model(args)[0], pool.subset(sets["fit"]), None, epochs, args.seed, batch=16,
                              lr=5e-4)
    return model, tokenizer, {
        "threshold": round(threshold, 6), "epochs": epochs, "folds": len(sets["folds"]),
        "out_of_fold_auc_per_epoch": aucs, "pairs": {"fit": len(sets["fit"]), "tune_lines": len(y)},
        "out_of_fold": prf(p >= threshold, y), "out_of_fold_auc": aucs[epochs - 1]}, out_of_fold


def mean_of(members: list[tuple[Path, np.ndarray, np.ndarray]]) -> dict:
    """The metadata of the mean of cross-fitted models (models.pair_mean), from each one's (file, out-of-fold logits
    per epoch, the tune lines' labels): each member's logits after the epoch count it was fitted for, averaged; the
    best-F1 threshold on the mean's probabilities, chosen on every tune line as a single model's is."""
    from models.pair_file import load_meta

    y = members[0][2]
    if any(len(m[2]) != len(y) or (m[2] != y).any() for m in members):
        raise ValueError("the models' out-of-fold logits are not of the same tune lines")
    chosen = [oof[int(load_meta(path)["epochs"]) - 1] for path, oof, _ in members]
    mean = np.mean(chosen, axis=0)
    p = sigmoid(mean)
    threshold = best_f1_threshold(p, y)
    return {"kind": "e5-answer-match-lora-mean", "threshold": round(threshold, 6),
            "out_of_fold": prf(p >= threshold, y), "out_of_fold_auc": round(auc(mean, y), 4),
            "members_out_of_fold_auc": [round(auc(c, y), 4) for c in chosen]}


def member_args(args, layers: int) -> argparse.Namespace:
    """``args`` for one model of ``layers`` adapted layers (of several: its own out-of-fold file)."""
    keep = args.out_of_fold
    if keep is not None and len(args.layers) > 1:
        keep = keep.with_name(f"{keep.stem}.layers{layers}{keep.suffix}")
    return argparse.Namespace(**dict(vars(args), layers=layers, out_of_fold=keep))


def one_model(args, sets):
    """(model, tokenizer, metadata, out-of-fold logits per epoch or None) of ``args.layers`` (one count)."""
    if args.folds > 1:
        model, tokenizer, meta, out_of_fold = cross_fitted(args, sets)
    else:
        (model, tokenizer, meta), out_of_fold = fitted_on_70(args, sets), None
    meta.update({"kind": "e5-answer-match-lora", "seed": args.seed, "layers": args.layers, "rank": args.rank,
                 "sources": SOURCES})
    print(json.dumps({k: v for k, v in meta.items() if k not in ("sources", "kind")}), file=sys.stderr)
    return model, tokenizer, meta, out_of_fold


def fitted_members(args, sets, folder: Path) -> list[tuple[Path, np.ndarray, np.ndarray]]:
    """(file, out-of-fold logits per epoch, the tune lines' labels) of each model to average: fitted here (several
    ``--layers``, written to ``folder``) or read (``--combine``)."""
    from models.cross_encoder import save_adapter

    if args.folds < 2:
        raise ValueError("models are averaged on their out-of-fold logits: --folds 2 or more")
    y = np.array([label for _, _, label in sets["tune"]])
    members = []
    if args.combine:
        for item in args.combine:
            path, sep, logits = item.partition("=")
            if not sep:
                raise ValueError(f"--combine takes MODEL.npz=LOGITS.npz, not {item!r}")
            with np.load(logits) as f:
                if len(f["y"]) != len(y) or (f["y"] != y).any():
                    raise ValueError(f"{logits} holds the logits of other tune lines")
                members.append((Path(path), f["logits"], y))
        return members
    for layers in args.layers:
        model, _, meta, out_of_fold = one_model(member_args(args, layers), sets)
        save_adapter(model, meta, folder / f"layers{layers}.npz")
        members.append((folder / f"layers{layers}.npz", out_of_fold, y))
    return members


def trained(args, sets, folder: Path):
    """(model, tokenizer, metadata) as the options ask: read (``--model``), one fitted, or several averaged; written
    to ``--out`` where given."""
    from models.cross_encoder import load_cross_encoder, save_adapter
    from models.pair_mean import save_pair_mean

    if args.model:
        return load_cross_encoder(args.model)
    if not args.combine and len(args.layers) == 1:
        model, tokenizer, meta, out_of_fold = one_model(member_args(args, args.layers[0]), sets)
        if args.out:
            save_adapter(model, meta, args.out)
            print(f"answer-match model -> {args.out} ({args.out.stat().st_size:,} bytes)")
        return model, tokenizer, meta
    members = fitted_members(args, sets, folder)
    meta = dict(mean_of(members), seed=args.seed, sources=SOURCES)
    print(json.dumps({k: v for k, v in meta.items() if k not in ("sources", "kind")}), file=sys.stderr)
    out = args.out or folder / "mean.npz"
    save_pair_mean([path for path, _, _ in members], meta, out)
    if args.out:
        print(f"answer-match model (a mean of {len(members)}) -> {out} ({out.stat().st_size:,} bytes)")
    return load_cross_encoder(out)


def main(argv: list[str] | None = None) -> int:
    from models.cross_encoder import CrossEncoder, pair_logits
    from schemas.errors import QabaseError

    args = build_parser().parse_args(argv)
    try:
        sets = cross_fit_sets(args.data, args.sets, args.seed, args.folds) if args.folds > 1 else \
            training_sets(args.data, args.sets, args.seed)
        print("pairs: " + ", ".join(f"{k} {len(v):,}" for k, v in sets.items()), file=sys.stderr)
        with tempfile.TemporaryDirectory() as folder:
            model, tokenizer, meta = trained(args, sets, Path(folder))
    except (QabaseError, FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.report:
        if isinstance(model, CrossEncoder):
            report = PairStates(model, tokenizer, sets["report"], args.cache, "report states")
            logits = report.logits(model)
        else:  # models averaged: their whole pass (no states of one member's layers to keep)
            logits = pair_logits(model, tokenizer, [(q, a) for q, a, _ in sets["report"]])
        y = np.array([label for _, _, label in sets["report"]])
        ours = sigmoid(logits) >= meta["threshold"]
        with tempfile.TemporaryDirectory() as vectors:  # the answers' openings are embedded once for both
            default = default_judge_verdicts(sets["report"], vectors)
            applied, asked = as_a_build_applies(model, tokenizer, sets["report"], meta["threshold"], vectors)
        table = {"pairs": len(y), "non_answers": int(y.sum()), "answer_match": prf(ours, y),
                 "default_non_answer_judge": prf(default[0], y), "both": prf(ours | default[0], y),
                 "as_a_build_applies": dict(prf(applied, y), asked=asked, let_through=int((~default[0]).sum()))}
        print(json.dumps(table, indent=1))
        if args.json:
            args.json.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
