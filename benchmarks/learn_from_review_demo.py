"""The base learns from its reviewer: a review file of 50 decisions on one chatbot's answers refits the judges, and
the next build changes (docs/guides/learning-from-review.md).

    python benchmarks/learn_from_review_demo.py [--data DIR] [--work /tmp/qabase-learn-demo] [--json OUT.json]

1. builds a base from the hand-labelled lines of the DQ sample's ``tune`` split (``dq_base/dq_base_sample.jsonl``,
   a Chinese short-video app's chatbot; models.tools.dq_labels), the 1,315 labelled when the review file was
   written, with the packaged judges;
2. ``qabase train-from-review`` with docs/examples/review-learn-demo.jsonl (written on that base): the gain on the
   held-out decisions and anchors;
3. the packaged and the refit judges on the labels' ``report`` split, 1,986 other answers of the same chatbot that
   neither the base nor the review holds (are real answers now flagged?);
4. the next day: the report split's lines arrive as new logs; builds the base with them and the review file,
   once with the packaged heads and once with the refit ones, and lists what the heads changed between the two:
   entries that left or joined the base (with their hand labels: a non-answer or an answer), and
   time-sensitivity flags.

Skips (exit 0, one line) where the shared data folder is absent. Deterministic: the same figures on every run.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from models.tools.paths import add_data_option, find_data  # noqa: E402

REVIEW = ROOT / "docs" / "examples" / "review-learn-demo.jsonl"
REVIEWED_LABELS = 1706  # the label rows (models.tools.dq_labels, in file order) there were when REVIEW was written


def _build(logs: list[Path], base: Path, *sets: str) -> dict:
    from models.config_check import load_config
    from pipelines.build import run_build
    from schemas.config import set_overrides

    return run_build([str(p) for p in logs], base, load_config(None, set_overrides(list(sets)))).manifest


def _questions(base: Path, version: str) -> dict[str, dict]:
    from schemas.tables import rows_as_shown

    # any base format, the reasons joined as one label under "reason"
    rows = rows_as_shown(base / "versions" / version / "questions.parquet",
                         ["question_key", "question", "kept", "reason", "time_sensitive"])
    return {r["question_key"]: r for r in rows}


def changed_entries(before: dict[str, dict], after: dict[str, dict], hand: dict[str, dict]) -> dict:
    """What the refit heads changed: questions that left the base (with their new reason), joined it (with their
    old one), each with its hand label where it has one (``hand``: question key -> label row), and
    time-sensitivity flags set or cleared on questions kept in both."""
    left = [k for k, r in after.items() if k in before and before[k]["kept"] and not r["kept"]]
    joined = [k for k, r in after.items() if k in before and not before[k]["kept"] and r["kept"]]
    flagged = [k for k, r in after.items() if k in before and before[k]["kept"] and r["kept"]
               and r["time_sensitive"] != before[k]["time_sensitive"]]

    def labelled(keys):
        return dict(Counter("unlabelled" if k not in hand else "non-answer" if hand[k]["non_answer"] else "answer"
                            for k in keys))

    return {"left": len(left), "left_reasons": dict(Counter(after[k]["reason"] for k in left)),
            "left_labelled": labelled(left), "joined": len(joined),
            "joined_from": dict(Counter(before[k]["reason"] for k in joined)), "joined_labelled": labelled(joined),
            "time_sensitive_set": sum(after[k]["time_sensitive"] for k in flagged),
            "time_sensitive_cleared": sum(not after[k]["time_sensitive"] for k in flagged),
            "examples_left": [after[k]["question"] for k in left[:8]],
            "examples_joined": [after[k]["question"] for k in joined[:8]]}


def report_split(data: Path, heads: dict) -> dict:
    """P/R/F1 of the packaged and the refit judges on the labels' report split (no decision names its lines)."""
    from models.nonanswer import embedding as na
    from models.registry import load_embedder
    from models.timesensitive import embedding as ts
    from models.tools.dq_labels import load
    from models.tools.fitted import precision_recall_f1
    from schemas.config import ModelsConfig

    rows = load(data, "report")
    items = [(r["question"], r["answer"], "zh") for r in rows]
    emb = load_embedder(ModelsConfig.embedder)
    spaces = {"en": load_embedder(ModelsConfig.intent_embedder_en),
              "zh": load_embedder(ModelsConfig.intent_embedder_zh)}
    out = {}
    for name, na_params, ts_params in (("packaged", na.load_params(), ts.load_params()),
                                       ("refit", na.load_params(heads["non_answer"]),
                                        ts.load_params(heads["time_sensitive"]))):
        flags = [bool(reason) for _, reason in na.EmbeddingNonAnswer(emb, na_params).score(items)]
        tflags = [bool(reason) for _, reason in ts.EmbeddingTimeSensitivity(spaces, ts_params).score(
            [q for q, _, _ in items], ["zh"] * len(items), None)]
        out[name] = {"non_answer": precision_recall_f1(flags, [r["non_answer"] for r in rows]),
                     "time_sensitive": precision_recall_f1(tflags, [r["time_sensitive"] for r in rows])}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_option(ap, "dq_base/dq_base_sample.jsonl")
    ap.add_argument("--work", type=Path, default=Path("/tmp/qabase-learn-demo"),
                    help="logs and the base go here (a base left there is removed first)")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    data = find_data(args.data)
    if data is None or not (data / "dq_base" / "dq_base_sample.jsonl").is_file():
        print("skipped: the shared data folder (dq_base/dq_base_sample.jsonl) is not here")
        return 0
    from models.tools.dq_labels import load, read_labels
    from models.tools.train_from_review import learn, render
    from schemas.text import normalize_key
    from schemas.logs import setup_logging

    setup_logging(False, True)
    args.work.mkdir(parents=True, exist_ok=True)
    logs, base = args.work / "dq_tune.jsonl", args.work / "base"
    # a base left by an earlier run (or one stopped halfway) would make the first build an increment of it
    shutil.rmtree(base, ignore_errors=True)
    lines = (data / "dq_base" / "dq_base_sample.jsonl").read_text(encoding="utf-8").split("\n")
    # the base the review file was written on: the tune lines labelled before the file was (later labels leave it
    # as it was, so its decisions still name its entries)
    labels = read_labels()
    tune = sorted(r["line"] for r in labels[:REVIEWED_LABELS] if r["split"] == "tune")
    logs.write_text("".join(lines[n] + "\n" for n in tune), encoding="utf-8")
    next_day = args.work / "dq_report.jsonl"
    report_lines = sorted(r["line"] for r in labels if r["split"] == "report")
    next_day.write_text("".join(lines[n] + "\n" for n in report_lines), encoding="utf-8")
    plain = _build([logs], base)
    learned = learn(str(base), REVIEW)
    print(render(learned), "\n")
    heads = {kind: h["file"] for kind, h in learned["heads"].items()}
    split = report_split(data, heads)
    print("the labels' report split (neither the base nor the review holds its lines):")
    for name, figures in split.items():
        print("  " + name + ": " + "; ".join(f"{kind} P/R/F1 {f['precision']:.3f}/{f['recall']:.3f}/{f['f1']:.3f}"
                                          f" (flagged of {f['n']})" for kind, f in figures.items()))
    reviewed = _build([logs, next_day], base, f"review.file={REVIEW}")
    # the settings the command printed: each refit head, and the answer-match gate matched to the refit scores
    settings = [line.replace(": ", "=", 1) for h in learned["heads"].values() for line in h["settings"]]
    refit = _build([logs, next_day], base, f"review.file={REVIEW}", *settings)
    hand = {normalize_key(r["question"]): r for r in load(data)}
    change = changed_entries(_questions(base, reviewed["version"]), _questions(base, refit["version"]), hand)
    print(f"\nthe next day's build ({refit['version']}: the report split's lines added, the review file, the refit "
          f"heads {refit['models']['non_answer']}, {refit['models']['time_sensitive']}) against the same build with "
          f"the packaged heads ({reviewed['version']}): published {reviewed['counts']['published']} -> "
          f"{refit['counts']['published']}")
    print(json.dumps(change, ensure_ascii=False, indent=1))
    if args.json:
        args.json.write_text(json.dumps({"plain": plain["version"], "learned": learned, "report_split": split,
                                         "changed": change, "models": refit["models"]}, indent=1,
                                        ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
