"""Questions that cannot stand alone: the standalone judge against a labelled TSV (issue 31).

    python benchmarks/standalone_eval.py --tsv benchmarks/standalone_real_tune.tsv [--config FILE.yaml]
        [--threshold T] [--errors] [--json OUT]

The TSV has the columns ``lang  label  kind  question`` (label 1: the question cannot stand alone; ``kind``:
the family of the item, e.g. bare_predicate, deictic, follow_up, complete, referent, keyword, chitchat).
Printed, for each judge: precision, recall and F1 per language and in all, and per kind the items flagged
(for a kind of negatives, every flag is a false positive). The judges:

* ``before``: main before issue 31 had no such judge: nothing is flagged (recall 0, precision undefined);
* ``rules``: the ``rules`` backend at its own threshold (or ``--threshold``);
* ``default``: what a build with the given config (default: the packaged defaults) applies: the judge its
  ``standalone`` section names, at its threshold; nothing when ``standalone.enabled`` is false.

The ``rules`` backend is the default and the only backend today (there is no head), so ``rules`` and ``default``
agree unless a config says otherwise. Its tune set is benchmarks/standalone_real_tune.tsv (every choice was
made on it); report held-out sets apart.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def read_tsv(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)]
    missing = {"lang", "label", "kind", "question"} - set(rows[0] if rows else {})
    if missing:
        raise SystemExit(f"error: {path}: missing columns {', '.join(sorted(missing))}")
    return [dict(r, label=int(r["label"])) for r in rows if r["question"].strip()]


def prf(gold: list[int], pred: list[bool]) -> dict:
    tp = sum(1 for g, p in zip(gold, pred) if g and p)
    fp = sum(1 for g, p in zip(gold, pred) if not g and p)
    fn = sum(1 for g, p in zip(gold, pred) if g and not p)
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    f1 = (2 * precision * recall / (precision + recall) if precision is not None and recall is not None
          and precision + recall else (0.0 if recall is not None else None))
    return {"n": len(gold), "positives": sum(gold), "flagged": sum(pred), "tp": tp, "fp": fp, "fn": fn,
            "precision": precision, "recall": recall, "f1": f1}


def judged(judge, rows: list[dict], threshold: float | None) -> list[tuple[bool, str]]:
    """(flagged, cue) per row, in the direction the standalone kind declares; ``judge`` None flags nothing."""
    from models.standalone.backends import JUDGE as STANDALONE
    from schemas.judgement import flagged

    if judge is None:
        return [(False, "")] * len(rows)
    js = judge.judgements([r["question"] for r in rows], [r["lang"] for r in rows])
    out = []
    for r, j in zip(rows, js):
        t = judge.own_threshold(r["lang"]) if threshold is None else threshold
        out.append((flagged(j, t, STANDALONE.flags_low), (j.details or {}).get("cue", "")))
    return out


def report(name: str, rows: list[dict], verdicts: list[tuple[bool, str]]) -> dict:
    gold = [r["label"] for r in rows]
    pred = [v for v, _ in verdicts]
    by_lang = {lang: prf([g for g, r in zip(gold, rows) if r["lang"] == lang],
                         [p for p, r in zip(pred, rows) if r["lang"] == lang])
               for lang in sorted({r["lang"] for r in rows})}
    by_kind = {}
    for kind in sorted({(r["lang"], r["kind"], r["label"]) for r in rows}):
        idx = [i for i, r in enumerate(rows) if (r["lang"], r["kind"], r["label"]) == kind]
        by_kind["/".join(map(str, kind))] = prf([gold[i] for i in idx], [pred[i] for i in idx])
    return {"judge": name, "all": prf(gold, pred), "by_lang": by_lang, "by_kind": by_kind}


def _num(x) -> str:
    return "—" if x is None else f"{x:.3f}"


def print_report(res: dict) -> None:
    print(f"\n## {res['judge']}\n")
    print("| language | n | cannot stand alone | flagged | precision | recall | F1 |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for lang, m in list(res["by_lang"].items()) + [("all", res["all"])]:
        print(f"| {lang} | {m['n']} | {m['positives']} | {m['flagged']} | {_num(m['precision'])} | "
              f"{_num(m['recall'])} | {_num(m['f1'])} |")
    print("\n| language / kind / label | n | flagged | precision | recall |")
    print("|---|---:|---:|---:|---:|")
    for kind, m in res["by_kind"].items():
        print(f"| {kind} | {m['n']} | {m['flagged']} | {_num(m['precision'])} | {_num(m['recall'])} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tsv", required=True, type=Path, help="lang, label, kind, question (tab-separated)")
    ap.add_argument("--config", type=Path, default=None, help="a build config (default: the defaults)")
    ap.add_argument("--threshold", type=float, default=None, help="for the rules judge (default: its own)")
    ap.add_argument("--errors", action="store_true", help="list the rules judge's false positives and misses")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args(argv)

    from models import registry
    from models.config_check import load_config
    from models.factory import question_sections
    from models.standalone.rules import RuleStandalone

    rows = read_tsv(args.tsv)
    cfg = load_config(args.config)
    wired = dict(question_sections(cfg))
    default = (registry.configured_judges((("standalone", wired["standalone"]),), cfg.models)[0]
               if "standalone" in wired else None)
    rules_verdicts = judged(RuleStandalone(), rows, args.threshold)
    results = [report("before (main: no standalone judge)", rows, judged(None, rows, None)),
               report("rules", rows, rules_verdicts),
               report(f"default ({'standalone.model: ' + cfg.standalone.model if default else 'disabled'})",
                      rows, judged(default, rows, None))]
    print(f"# {args.tsv} ({len(rows)} questions)")
    for res in results:
        print_report(res)
    if args.errors:
        print("\n## rules: errors\n")
        for r, (flag, cue) in zip(rows, rules_verdicts):
            if flag != bool(r["label"]):
                print(f"{'FP' if flag else 'FN'}  {r['lang']}  {r['kind']:<15} {r['question']}  {cue}")
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
