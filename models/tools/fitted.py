"""What the fitting tools (train_paraphrase, train_nonanswer) share: their --out / --json options and how
they write the fitted parameters and the measurement table."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def add_output_options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--out", type=Path, help="write the fitted parameters here (JSON)")
    ap.add_argument("--json", type=Path, help="also write the table as JSON")


def write_outputs(args: argparse.Namespace, params: dict, table: list[dict], text: str) -> None:
    """Parameters to ``--out``, the table to ``--json``, and ``text`` (the table as markdown) to stdout."""
    if args.out:
        args.out.write_text(json.dumps(params, indent=1) + "\n", encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(text)
    if args.out:
        print(f"parameters -> {args.out}")
