"""Train the answer-match model (models.answermatch: does this answer answer this question?) and measure it.

    python -m models.tools.train_answer_match [--data ../shared/data] [--sets benchmarks] [--epochs 4] [--seed 0]
        [--layers 6] [--rank 8] [--cache DIR] [--out MODEL.npz] [--report] [--model MODEL.npz] [--json T.json]

A cross-encoder on the packaged e5 (models.cross_encoder: the question and the answer's opening read together),
LoRA adapters on its top layers, trained on:

- real answers: the hand labels on the Decompose-and-Query sample (models.tools.dq_labels; the answers of a real
  Chinese chatbot, ``dq_base/dq_base_sample.jsonl`` of the shared data: alkaidpku/DQ-ToolQA @e31f388,
  data/reliable.json, a seeded sample; released with the paper for research), their **tune** split only, cut
  by a hash of the line into fit (70%) and calibration (30%);
- another question's answer: each fit question paired with the answer of another fit question (a real answer
  that does not answer it), seeded;
- benchmarks/nonanswer_real_tune.tsv (written in this repository in the style of such answers; fit only);
- benchmarks/answer_match_positives_written.tsv (written in this repository: answers of the kinds the real answers
  hold few of, terse right answers and opinion viewpoints, all labelled as answers; fit only).

The threshold (on P(does not answer)) is the one with the best F1 on the calibration part. ``--report`` measures
on the report split (never used for a choice) the model, the build's default non-answer judge, and both (what a
build applies where both are on: an answer either flags is shut out).
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


def is_fit(line: int) -> bool:
    return int(hashlib.sha256(f"fit\x00{line}".encode()).hexdigest(), 16) % 100 < FIT_SHARE * 100


def training_sets(data, sets, seed: int) -> dict[str, list[tuple[str, str, int]]]:
    """(question, answer, 1 if it does not answer) per set: fit, calibrate, report."""
    from models.tools.dq_labels import load

    tune = load(data, "tune")
    fit_rows = [r for r in tune if is_fit(r["line"])]
    fit = [(r["question"], r["answer"], r["non_answer"]) for r in fit_rows]
    rng = random.Random(seed)
    for i, r in enumerate(fit_rows):
        other = fit_rows[(i + 1 + rng.randrange(len(fit_rows) - 1)) % len(fit_rows)]
        if other["question"] != r["question"]:
            fit.append((r["question"], other["answer"], 1))
    calibrate = [(r["question"], r["answer"], r["non_answer"]) for r in tune if not is_fit(r["line"])]
    report = [(r["question"], r["answer"], r["non_answer"]) for r in load(data, "report")]
    # a written row may ask a question users asked too: it is left out where that question is measured on
    measured = {q for q, _, _ in calibrate + report}
    for name in WRITTEN:
        fit += [(r["question"], r["answer"], r["label"]) for r in
                read_labelled_tsv(sets_dir(sets) / name, ("lang", "label", "kind", "question", "answer"))
                if r["question"] not in measured]
    return {"fit": fit, "calibrate": calibrate, "report": report}


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
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--layers", type=int, default=6, help="the top layers adapted (the others stay the packaged)")
    ap.add_argument("--rank", type=int, default=8, help="the adapters' rank")
    ap.add_argument("--cache", type=Path, help="keep the packaged layers' states here between runs")
    ap.add_argument("--out", type=Path, metavar="MODEL.npz",
                    help=f"write the adapters here (packaged: models/data/{PACKAGED.name})")
    ap.add_argument("--report", action="store_true", help="also measure on the report split (after every choice)")
    ap.add_argument("--model", type=Path, metavar="MODEL.npz", help="measure this file instead of training one")
    ap.add_argument("--json", type=Path, metavar="TABLE.json", help="also write the report as JSON")
    return ap


def main(argv: list[str] | None = None) -> int:
    import torch

    from models.cross_encoder import CrossEncoder, load_cross_encoder, save_adapter
    from models.embedders.e5_torch import load_e5_torch
    from schemas.errors import QabaseError

    args = build_parser().parse_args(argv)
    try:
        sets = training_sets(args.data, args.sets, args.seed)
    except (QabaseError, FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("pairs: " + ", ".join(f"{k} {len(v):,}" for k, v in sets.items()), file=sys.stderr)
    if args.model:
        model, tokenizer, meta = load_cross_encoder(args.model)
    else:
        torch.manual_seed(args.seed)
        bert, tokenizer = load_e5_torch("cpu")
        model = CrossEncoder(bert, args.rank, 2.0 * args.rank, bert.config.num_hidden_layers - args.layers)
        fit = PairStates(model, tokenizer, sets["fit"], args.cache, "fit states")
        calibrate = PairStates(model, tokenizer, sets["calibrate"], args.cache, "calibration states")
        model, aucs = train_adapters(model, fit, calibrate, args.epochs, args.seed, batch=16, lr=5e-4)
        p = sigmoid(calibrate.logits(model))
        y = calibrate.y.astype(int)
        threshold = best_f1_threshold(p, y)
        meta = {"kind": "e5-answer-match-lora", "threshold": round(threshold, 6), "seed": args.seed,
                "epochs": args.epochs, "layers": args.layers, "rank": args.rank, "calibration_auc_per_epoch": aucs,
                "pairs": {k: len(sets[k]) for k in ("fit", "calibrate")},
                "calibration": prf(p >= threshold, y), "calibration_auc": round(auc(p, y), 4),
                "sources": {"dq_base": "alkaidpku/DQ-ToolQA @e31f388, data/reliable.json (seeded sample in the "
                                       "shared data; labels: benchmarks/dq_base_labels.tsv, tune split)",
                            "written": [f"benchmarks/{name} (written in this repository)" for name in WRITTEN]}}
        print(json.dumps({k: meta[k] for k in ("threshold", "calibration", "calibration_auc_per_epoch")}),
              file=sys.stderr)
        if args.out:
            save_adapter(model, meta, args.out)
            print(f"answer-match model -> {args.out} ({args.out.stat().st_size:,} bytes)")
    if args.report:
        report = PairStates(model, tokenizer, sets["report"], args.cache, "report states")
        y = report.y.astype(int)
        ours = sigmoid(report.logits(model)) >= meta["threshold"]
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
