"""Recall and precision of the personal-data redaction on values written to slip past it (zero-width characters,
dots and mixed separators, spelled-out e-mails) and on lookalikes that share their shapes, per kind and per form
(benchmarks/pii_obfuscated_set.py writes the set).

    python benchmarks/pii_obfuscated_set.py                  # writes benchmarks/pii_obfuscated.jsonl
    python benchmarks/pii_obfuscated_eval.py                 # this checkout's redactor
    python benchmarks/pii_obfuscated_eval.py --code DIR      # the redactor of another checkout (DIR/schemas)
    python benchmarks/pii_obfuscated_eval.py --misses        # every miss, wrong span and false find too
    python benchmarks/pii_obfuscated_eval.py benchmarks/pii_obfuscated_tricky.txt   # the hand-written items

Counted as :mod:`pii_eval` counts: a finding counts when its start, end and kind equal a labelled span's (so a
value is only redacted right if its invisible characters go with it); a lookalike is left alone when no finding
overlaps it. Per form of personal data: how many values written that way were found exactly.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "benchmarks" / "pii_obfuscated.jsonl"


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "-"


def by_form(rows: list[dict], redactor) -> str:
    """A table: per form of personal data, the values, how many were found exactly, the share (the lookalikes,
    one sort to a form, are in :func:`pii_eval.table`'s)."""
    total, exact = Counter(), Counter()
    for r in rows:
        if r["spans"]:
            got = {(f.start, f.end, f.kind) for f in redactor.findings(r["text"])}
            total[r["form"]] += 1
            exact[r["form"]] += all((s, e, k) in got for s, e, k in r["spans"])
    lines = ["| form | values | found exactly | recall |", "|---|---|---|---|"]
    for form in sorted(total):
        lines.append(f"| {form} | {total[form]} | {exact[form]} | {_ratio(exact[form], total[form])} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("path", nargs="?", default=str(DEFAULT))
    ap.add_argument("--code", default=str(ROOT), help="the checkout whose schemas.privacy is measured")
    ap.add_argument("--misses", action="store_true", help="print every miss, wrong span, false find")
    args = ap.parse_args(argv)
    path = Path(args.path)
    if not path.is_file():
        print(f"error: {path} not found (python benchmarks/pii_obfuscated_set.py writes it)", file=sys.stderr)
        return 2
    # the measured checkout's schemas first: pii_eval (imported after) then finds it already loaded
    sys.path.insert(0, str(Path(args.code).resolve()))
    from schemas.privacy.redactor import Redactor

    sys.path.insert(1, str(ROOT / "benchmarks"))
    import pii_eval

    rows = pii_eval.load(path)
    redactor = Redactor.of()
    import schemas

    print(f"{path.name}: {len(rows)} sentences; schemas from {Path(schemas.__file__).parent}")
    print(pii_eval.table(pii_eval.evaluate(rows, redactor, args.misses)))
    if all("form" in r for r in rows):
        print()
        print(by_form(rows, redactor))
    return 0


if __name__ == "__main__":
    sys.exit(main())
