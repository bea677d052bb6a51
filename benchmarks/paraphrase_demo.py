"""Paraphrase merging on the demo base, against the demo's own ground truth.

    python benchmarks/paraphrase_demo.py [--base DIR]   (default: build the demo into a temporary folder)

The demo's content (pipelines/demo/data/demo_questions.json) lists each base question's surface
variants, so every distinct question of the built base whose normalised key is one of those variants
has a known meaning (typo'd forms are left out: their meaning is not listed). Over all pairs of such
questions: precision and recall of "same entry" (questions.parquet ``entry_key``) against "same base
question", per language, and the entries before (one per distinct question that passed both filters)
and after merging. Prints a table and one JSON line.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def truth() -> dict[str, tuple[str, str]]:
    """{normalised variant: (base question key, language)} from the demo's content."""
    from pipelines.demo import _load
    from schemas.text import normalize_key

    out = {}
    for spec in _load()["base_questions"]:
        for v in spec["variants"]:
            out[normalize_key(v)] = (spec["key"], spec["lang"])
    return out


def measure(version_dir: Path) -> dict:
    import pyarrow.parquet as pq

    rows = pq.read_table(version_dir / "questions.parquet").to_pylist()
    known = truth()
    labelled = [(r["question_key"], r["entry_key"], *known[r["question_key"]]) for r in rows
                if r["question_key"] in known]
    out = {}
    for lang in ("en", "zh"):
        qs = [q for q in labelled if q[3] == lang]
        tp = fp = fn = 0
        wrong, missed = [], []
        for a, b in itertools.combinations(qs, 2):
            same_entry, same_meaning = a[1] == b[1], a[2] == b[2]
            tp += same_entry and same_meaning
            fp += same_entry and not same_meaning
            fn += same_meaning and not same_entry
            if same_entry and not same_meaning:
                wrong.append((a[0], b[0]))
            if same_meaning and not same_entry:
                missed.append((a[0], b[0]))
        out[lang] = {"questions": len(qs), "true_pairs": tp + fn, "merged_pairs": tp + fp,
                     "precision": round(tp / (tp + fp), 3) if tp + fp else 1.0,
                     "recall": round(tp / (tp + fn), 3) if tp + fn else 0.0, "wrong_merges": wrong,
                     "missed_merges": missed}
    passed = sum(1 for r in rows if r["passed_gec"] and r["passed_intent"])
    entries = len({r["entry_key"] for r in rows if r["passed_gec"] and r["passed_intent"]})
    out["entries"] = {"before": passed, "after": entries, "distinct_questions": len(rows)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", type=Path, help="a built demo base (its latest version is measured)")
    args = ap.parse_args(argv)
    from schemas.layout import resolve_version

    if args.base is None:
        from models.config_check import load_config
        from pipelines.build import run_build
        from pipelines.demo import write_demo_logs

        tmp = Path(tempfile.mkdtemp(prefix="qabase-para-demo-"))
        logs = write_demo_logs(tmp / "logs")
        args.base = tmp / "base"
        run_build([str(p) for p in logs], args.base, load_config(None))
    res = measure(resolve_version(args.base))
    print("| language | labelled distinct questions | true pairs | merged pairs | precision | recall |")
    print("|---|---|---|---|---|---|")
    for lang in ("en", "zh"):
        r = res[lang]
        print(f"| {lang} | {r['questions']} | {r['true_pairs']} | {r['merged_pairs']} | {r['precision']:.3f} | "
              f"{r['recall']:.3f} |")
    print(f"entries that passed both filters: {res['entries']['before']} distinct questions -> "
          f"{res['entries']['after']} entries")
    print(json.dumps(res, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
