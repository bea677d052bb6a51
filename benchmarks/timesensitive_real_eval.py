"""Time-sensitivity on labelled questions: precision, recall and F1 per language, per kind and per reason.

    python benchmarks/timesensitive_real_eval.py --tsv PATH [--tsv PATH ...] [--before DIR] [--json OUT]

Each TSV: a header and the columns lang, label (1 = time-sensitive), kind, question (the form of
benchmarks/timesensitive_*.tsv). Systems, each at its own thresholds (the defaults):

* ``before``: the default detector of the code in ``--before DIR`` (a checkout of main, e.g.
  ``git worktree add --detach /tmp/ts-main main``), run in a child process with that code first on the path;
  ``before_rules`` its ``time_sensitive.model: rules``;
* ``rules``: ``time_sensitive.model: rules`` (the sure cues, then the broad cue families);
* ``head``: the embedding head alone (no sure cues: ``EmbeddingTimeSensitivity(sure_cues=False)``);
* ``default``: ``time_sensitive.model: embedding``, the default (sure cues, then the head).

Tables: per language P / R / F1; per kind (the TSV's ``kind``) the share flagged, which is recall for a
time-sensitive kind and the false-flag rate for a stable one; per reason (what a flag is called) the flags
and their precision.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def read_rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    for r in rows:
        if r.get("question") is None or r.get("lang") is None or r.get("label") not in ("0", "1"):
            raise SystemExit(f"error: {path} needs the columns lang, label (0/1), kind, question")
    return rows


def predict(paths: list[Path], systems: list[str]) -> dict:
    """{tsv path: {system: [reason or "" per row]}} with the code on sys.path (this tree's or --before's)."""
    from schemas.config import ModelsConfig

    try:
        from models.registry import judge_model
        from models.timesensitive.config import TimeSensitiveConfig

        def time_sensitivity_detector(models_cfg, cfg):
            return judge_model("time_sensitive", cfg, models_cfg)
    except ImportError:  # a --before tree from before each judge declared its own config section
        from models.registry import time_sensitivity_detector
        from schemas.config import TimeSensitiveConfig

    detectors = {}
    if "default" in systems or "head" in systems:
        detectors["default"] = time_sensitivity_detector(ModelsConfig(), TimeSensitiveConfig())
    if "rules" in systems:
        detectors["rules"] = time_sensitivity_detector(ModelsConfig(), TimeSensitiveConfig(model="rules"))
    if "head" in systems:
        from models.timesensitive.embedding import EmbeddingTimeSensitivity

        inner = detectors["default"].inner
        detectors["head"] = EmbeddingTimeSensitivity(inner.embedders(), inner.params, sure_cues=False)
    out = {}
    for path in paths:
        rows = read_rows(path)
        qs, langs = [r["question"] for r in rows], [r["lang"] for r in rows]
        out[str(Path(path).resolve())] = {
            name: [reason for _, reason in detectors[name].score(qs, langs, [None] * len(qs))] for name in systems}
    return out


def predict_before(code: Path, paths: list[Path]) -> dict:
    """main's default and rules, computed by main's own code in a child process."""
    env = dict(os.environ, PYTHONPATH=str(code))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--predict-with", str(code)]
    for p in paths:
        cmd += ["--tsv", str(Path(p).resolve())]
    done = subprocess.run(cmd, cwd=code, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"error: the --before run failed:\n{done.stderr[-2000:]}")
    got = json.loads(done.stdout.strip().splitlines()[-1])
    return {p: {"before": s["default"], "before_rules": s["rules"]} for p, s in got.items()}


def prf(flags: list[bool], labels: list[int]) -> dict:
    tp = sum(f and y for f, y in zip(flags, labels))
    fp = sum(f and not y for f, y in zip(flags, labels))
    fn = sum((not f) and y for f, y in zip(flags, labels))
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"n": len(labels), "pos": sum(labels), "flagged": tp + fp, "tp": tp,
            "p": round(p, 3), "r": round(r, 3), "f1": round(2 * p * r / (p + r), 3) if p + r else 0.0}


def tables(rows: list[dict], preds: dict) -> dict:
    labels = [int(r["label"]) for r in rows]
    out = {"by_lang": {}, "by_kind": {}, "by_reason": {}}
    for name, reasons in preds.items():
        flags = [bool(x) for x in reasons]
        out["by_lang"][name] = {lang: prf([f for f, r in zip(flags, rows) if r["lang"] == lang],
                                          [y for y, r in zip(labels, rows) if r["lang"] == lang])
                                for lang in sorted({r["lang"] for r in rows})}
        out["by_lang"][name]["all"] = prf(flags, labels)
        kinds = {}
        for f, r in zip(flags, rows):
            k = kinds.setdefault((r["lang"], r["label"], r.get("kind") or ""), [0, 0])
            k[0] += 1
            k[1] += f
        out["by_kind"][name] = {f"{lang}\t{label}\t{kind}": v for (lang, label, kind), v in sorted(kinds.items())}
        by_reason = {}
        for why, y in zip(reasons, labels):
            if why:
                b = by_reason.setdefault(why, [0, 0])
                b[0] += 1
                b[1] += y
        out["by_reason"][name] = {k: {"flags": v[0], "p": round(v[1] / v[0], 3)} for k, v in sorted(by_reason.items())}
    return out


def markdown(path: str, t: dict, systems: list[str]) -> str:
    lines = [f"### {path}", "", "| system | " + " | ".join(
        f"{lang} P / R / F1" for lang in t["by_lang"][systems[0]]) + " |",
             "|---|" + "---|" * len(t["by_lang"][systems[0]])]
    for name in systems:
        cells = [f"{v['p']:.3f} / {v['r']:.3f} / {v['f1']:.3f} ({v['tp']}/{v['pos']}, {v['flagged']} flagged)"
                 for v in t["by_lang"][name].values()]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "Share flagged per kind (recall for label 1, false flags for label 0):", "",
              "| lang | label | kind | n | " + " | ".join(systems) + " |", "|---|---|---|---|" + "---|" * len(systems)]
    for key in t["by_kind"][systems[0]]:
        lang, label, kind = key.split("\t")
        n = t["by_kind"][systems[0]][key][0]
        lines.append(f"| {lang} | {label} | {kind} | {n} | "
                     + " | ".join(f"{t['by_kind'][s][key][1]}" for s in systems) + " |")
    lines += ["", "Flags per reason (precision):", "", "| system | " + "reason: flags (P) |", "|---|---|"]
    for name in systems:
        lines.append(f"| {name} | " + ", ".join(f"{k}: {v['flags']} ({v['p']:.2f})"
                                                for k, v in t["by_reason"][name].items()) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tsv", type=Path, action="append", required=True, help="labelled questions (repeatable)")
    ap.add_argument("--before", type=Path, metavar="DIR", help="a checkout of main: adds its default and rules")
    ap.add_argument("--json", type=Path, metavar="OUT", help="also write every table as JSON")
    ap.add_argument("--predict-with", type=Path, help=argparse.SUPPRESS)  # the child process of --before
    args = ap.parse_args(argv)
    if args.predict_with is not None:
        sys.path.insert(0, str(args.predict_with.resolve()))
        print(json.dumps(predict(args.tsv, ["default", "rules"])))
        return 0
    sys.path.insert(0, str(HERE.parent))
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    systems = ["rules", "head", "default"]
    preds = predict(args.tsv, systems)
    if args.before is not None:
        for path, extra in predict_before(args.before, args.tsv).items():
            preds[path] = {**extra, **preds[path]}
        systems = ["before", "before_rules", *systems]
    report = {}
    for path in args.tsv:
        t = tables(read_rows(path), preds[str(path.resolve())])
        report[str(path)] = t
        print(markdown(str(path), t, systems))
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
