"""What the fitting tools (train_paraphrase, train_nonanswer, train_timesensitive) share: their hand-labelled
TSV sets, their --out / --json options and how they write the fitted parameters and the measurement table."""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path

from schemas.errors import QabaseError


def read_labelled_tsv(path: Path, columns: tuple[str, ...]) -> list[dict]:
    """The rows of a hand-labelled TSV (no quoting: texts hold quotes), each with every one of ``columns``
    and ``label`` as an int; a missing file or column, or a label that is not a number, is one QabaseError."""
    if not path.is_file():
        raise QabaseError(f"input: no such file: {path}")
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    try:
        for r in rows:
            missing = [c for c in columns if r.get(c) is None]
            if missing:
                raise KeyError(missing[0])
            r["label"] = int(r["label"])
    except (KeyError, ValueError, TypeError):
        named = ", ".join("label (0/1)" if c == "label" else c for c in columns)
        raise QabaseError(f"input: {path} needs the columns {named}") from None
    return rows


def add_output_options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--out", type=Path, metavar="PARAMS.json", help="write the fitted parameters here (JSON)")
    ap.add_argument("--json", type=Path, metavar="TABLE.json", help="also write the table as JSON")


def write_outputs(args: argparse.Namespace, params: dict, table: list[dict], text: str) -> None:
    """Parameters to ``--out``, the table to ``--json``, and ``text`` (the table as markdown) to stdout."""
    if args.out:
        args.out.write_text(json.dumps(params, indent=1) + "\n", encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(text)
    if args.out:
        print(f"parameters -> {args.out}")


def precision_recall_f1(flags, labels) -> dict:
    """Precision, recall and F1 (3 places) of boolean ``flags`` against 0/1 ``labels``; precision 1 when nothing is
    flagged, with the labelled positives counted."""
    pairs = [(bool(f), int(y)) for f, y in zip(flags, labels)]
    tp = sum(f and y == 1 for f, y in pairs)
    fp = sum(f and y == 0 for f, y in pairs)
    fn = sum((not f) and y == 1 for f, y in pairs)
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"n": len(pairs), "positives": tp + fn, "precision": round(p, 3), "recall": round(r, 3),
            "f1": round(2 * p * r / (p + r), 3) if p + r else 0.0}

