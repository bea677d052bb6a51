"""Instruction-like answers on labelled answers: precision and recall per language, the share flagged per kind.

    python benchmarks/injection_eval.py [--split tune|heldout|all] [--tsv PATH] [--threshold T] [--errors]
                                        [--json OUT]
    python benchmarks/injection_eval.py --real ../shared/data   # false flags on real chatbot and forum answers

The TSV (default benchmarks/injection_labelled.tsv): a header and the columns split (tune / heldout), lang, label
(1 = instruction-like), kind, question, answer; in the text ``{NL}`` is a line break and ``{U+200B}`` a code point
(zero-width characters must survive editors). The held-out rows were written before the judge, no choice was made
on them, and they were evaluated once (the one bug that run found was fixed after it:
docs/measurements/instruction-like-answers.md). ``--real DIR``: the answers of the shared evaluation
data (Arena-Hard's three models' answers, 1,500 long English answers with code and prompts; beer.stackexchange
answers), none of them written to the reader's model: every flag there is a false one. The judge is
``injection.model: patterns`` at ``--threshold`` (-1: its own), as the registry hands it out.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_TSV = HERE / "injection_labelled.tsv"
_CODE_POINT = re.compile(r"\{U\+([0-9A-Fa-f]{4,6})\}")


def decode(text: str) -> str:
    return _CODE_POINT.sub(lambda m: chr(int(m.group(1), 16)), text.replace("{NL}", "\n"))


def read_rows(path: Path, split: str) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    for r in rows:
        if r.get("answer") is None or r.get("label") not in ("0", "1") or r.get("split") not in ("tune", "heldout"):
            raise SystemExit(f"error: {path} needs the columns split (tune/heldout), lang, label (0/1), kind, "
                             "question, answer")
    return [dict(r, answer=decode(r["answer"])) for r in rows if split == "all" or r["split"] == split]


def evaluate(rows: list[dict], threshold: float = -1.0) -> dict:
    from models import registry
    from models.injection.config import InjectionConfig
    from schemas.config import ModelsConfig

    judge = registry.judge_model("injection", InjectionConfig(threshold=threshold), ModelsConfig())
    verdicts = judge.score([(r["question"], r["answer"], r["lang"]) for r in rows])
    out: dict = {"judge": judge.model_id, "langs": {}, "kinds": {}, "reasons": {}, "errors": []}
    for lang in sorted({r["lang"] for r in rows}) + ["all"]:
        tp = fp = fn = n = pos = 0
        for r, (_, reason) in zip(rows, verdicts):
            if lang != "all" and r["lang"] != lang:
                continue
            n += 1
            pos += r["label"] == "1"
            flagged, label = bool(reason), r["label"] == "1"
            tp += flagged and label
            fp += flagged and not label
            fn += label and not flagged
        p = tp / (tp + fp) if tp + fp else 1.0
        rec = tp / (tp + fn) if tp + fn else 1.0
        out["langs"][lang] = {"n": n, "positives": pos, "tp": tp, "fp": fp, "fn": fn, "precision": round(p, 3),
                              "recall": round(rec, 3)}
    for r, (score, reason) in zip(rows, verdicts):
        k = out["kinds"].setdefault(f"{r['label']}:{r['kind']}", [0, 0])
        k[0] += bool(reason)
        k[1] += 1
        if reason:
            out["reasons"].setdefault(reason, [0, 0])[0 if r["label"] == "1" else 1] += 1
        if bool(reason) != (r["label"] == "1"):
            out["errors"].append({"lang": r["lang"], "label": int(r["label"]), "kind": r["kind"], "score": score,
                                  "reason": reason, "answer": r["answer"]})
    return out


def real_answers(data: Path) -> list[tuple[str, str, str]]:
    """(source, question, answer) of the shared data's real answers."""
    import xml.etree.ElementTree as ET

    out = []
    arena = data / "arena_hard" / "arena-hard-v0.1"
    for path in sorted((arena / "model_answer").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            answer = rec["messages"][1]["content"]["answer"]
            out.append((f"arena_hard:{path.stem}", rec["messages"][0]["content"], answer))
    beer = data / "stackexchange" / "beer_posts.xml"
    if beer.is_file():
        for row in ET.parse(beer).getroot():
            if row.get("PostTypeId") == "2":
                out.append(("stackexchange", "", row.get("Body") or ""))
    return out


def real_false_flags(data: Path, threshold: float = -1.0) -> dict:
    from models import registry
    from models.injection.config import InjectionConfig
    from schemas.config import ModelsConfig

    judge = registry.judge_model("injection", InjectionConfig(threshold=threshold), ModelsConfig())
    items = real_answers(data)
    verdicts = judge.score([(q, a, "en") for _, q, a in items])
    res: dict = {"judge": judge.model_id, "sources": {}, "flagged": []}
    for (source, q, a), (score, reason) in zip(items, verdicts):
        src = res["sources"].setdefault(source.split(":")[0], [0, 0])
        src[0] += bool(reason)
        src[1] += 1
        if reason:
            res["flagged"].append({"source": source, "reason": reason, "score": score, "question": q[:120],
                                   "answer": a[:300]})
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tsv", type=Path, default=DEFAULT_TSV)
    ap.add_argument("--split", choices=("tune", "heldout", "all"), default="tune")
    ap.add_argument("--threshold", type=float, default=-1.0)
    ap.add_argument("--errors", action="store_true", help="list the misjudged answers")
    ap.add_argument("--json", type=Path, help="write the results here")
    ap.add_argument("--real", type=Path, help="the shared data folder: count false flags on its real answers")
    args = ap.parse_args(argv)
    if args.real:
        if not (args.real / "arena_hard").is_dir():
            print(f"error: {args.real} has no arena_hard folder", file=sys.stderr)
            return 2
        res = real_false_flags(args.real, args.threshold)
        print(f"{res['judge']}: flagged / answers (all flags here are false ones): "
              + ", ".join(f"{k} {a}/{b}" for k, (a, b) in res["sources"].items()))
        for f in res["flagged"]:
            print(f"  [{f['source']} {f['score']:.2f} {f['reason']}] {f['answer'][:200]!r}")
        if args.json:
            args.json.write_text(json.dumps(res, ensure_ascii=False, indent=1), encoding="utf-8")
        return 0
    if not args.tsv.is_file():
        print(f"error: {args.tsv} does not exist", file=sys.stderr)
        return 2
    res = evaluate(read_rows(args.tsv, args.split), args.threshold)
    print(f"{res['judge']} on {args.tsv.name} ({args.split})")
    print(f"{'lang':<5} {'n':>4} {'pos':>4} {'tp':>4} {'fp':>4} {'fn':>4} {'precision':>9} {'recall':>7}")
    for lang, m in res["langs"].items():
        print(f"{lang:<5} {m['n']:>4} {m['positives']:>4} {m['tp']:>4} {m['fp']:>4} {m['fn']:>4} "
              f"{m['precision']:>9.3f} {m['recall']:>7.3f}")
    kinds = sorted(res["kinds"].items())
    print("\nflagged per kind (label:kind): " + ", ".join(f"{k} {a}/{b}" for k, (a, b) in kinds))
    reasons = sorted(res["reasons"].items())
    print("flags per reason (right, wrong): " + ", ".join(f"{k} {a}/{b}" for k, (a, b) in reasons))
    if args.errors:
        for e in res["errors"]:
            print(f"  [{e['lang']} label={e['label']} {e['kind']} {e['score']:.2f} {e['reason'] or '-'}] "
                  f"{e['answer'][:150]!r}")
    if args.json:
        args.json.write_text(json.dumps(res, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
