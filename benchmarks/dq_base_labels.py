"""Counts of the hand labels on real DQ-sample answers (models.tools.dq_labels: provenance, columns, splits), per
split, kind and label; no text is printed.

    python benchmarks/dq_base_labels.py [--data DIR] [--split report|tune]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.tools.dq_labels import KINDS, SPLITS, load  # noqa: E402
from models.tools.paths import add_data_option  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="counts of the DQ-sample hand labels, per split, kind and label "
                                             "(no texts printed)")
    add_data_option(ap, "dq_base/dq_base_sample.jsonl")
    ap.add_argument("--split", choices=SPLITS)
    args = ap.parse_args(argv)
    rows = load(args.data, args.split)
    print(f"{len(rows)} labelled lines (qhash checked)")
    for sp in ([args.split] if args.split else [*SPLITS, None]):
        part = [r for r in rows if sp is None or r["split"] == sp]
        name = sp or "all"
        na = sum(r["non_answer"] for r in part)
        ts = sum(r["time_sensitive"] for r in part)
        amb = sum(r["note"].startswith("ambiguous") for r in part)
        print(f"\n[{name}] {len(part)} rows: non_answer {na} ({na / max(len(part), 1):.1%}), time_sensitive {ts} "
              f"({ts / max(len(part), 1):.1%}), both {sum(r['non_answer'] and r['time_sensitive'] for r in part)}, "
              f"ambiguous {amb}")
        kinds = Counter(r["kind"] for r in part)
        tsk = Counter(r["kind"] for r in part if r["time_sensitive"])
        for k in KINDS:
            print(f"  {k:<10} {kinds[k]:>4}  (time_sensitive {tsk[k]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
