"""The build's default non-answer and time-sensitivity judges on real chatbot answers labelled by hand
(benchmarks/dq_base_labels.py: 800 lines of the DQ sample; the ``report`` split is never used for any choice).

    python benchmarks/dq_base_judges_eval.py [--split report|tune|all] [--json OUT.json]

The judges are the registry's, under the default config (``non_answer.model``, ``time_sensitive.model`` and their
thresholds), through their public ``judgements`` and their ``decide`` (schemas.judgement.Configured), as the build
applies them (time-sensitivity twice: the question judge alone, and as the build decides with the answers read
too).
Prints precision, recall and F1 of each judge, and the share of each kind of non-answer flagged. The
code measured is whatever ``models`` imports (``PYTHONPATH=/other/checkout`` measures another checkout).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from models.tools.dq_labels import load  # noqa: E402
from models.tools.fitted import precision_recall_f1 as prf  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=("report", "tune", "all"), default="report")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    from models.config_check import load_config
    from models.registry import judge_model
    from models.timesensitive.answers import entry_reasons, reads_answers
    from models.timesensitive.cues import sure_cue

    rows = load(split=None if args.split == "all" else args.split)
    cfg = load_config(None)
    items = [(r["question"], r["answer"], "zh") for r in rows]
    langs = ["zh"] * len(rows)
    nonanswer = judge_model("non_answer", cfg.non_answer, cfg.models)
    na = [bool(reason) for _, reason in nonanswer.decide(nonanswer.judgements(items), langs)]
    timely = judge_model("time_sensitive", cfg.time_sensitive, cfg.models)
    judged = timely.score([r["question"] for r in rows], langs)
    ts = [bool(reason) for _, reason in judged]
    # the build reads an entry's answers too (time_sensitive.answers: the question and its answers together, then
    # their tells; pipelines.stages.aggregate); one answer per row here
    reads = reads_answers(cfg.time_sensitive)
    told = ts if not reads else [bool(reason) for reason in entry_reasons(
        timely, [(r["question"], "zh", score, reason, [(r["answer"], 1)]) for r, (score, reason) in zip(rows, judged)],
        [bool(sure_cue(r["question"], "zh")) for r in rows])]
    gold = [int(r["time_sensitive"]) for r in rows]
    out = {"split": args.split, "non_answer": {"model": nonanswer.model_id,
                                               **prf(na, [int(r["non_answer"]) for r in rows])},
           "time_sensitive": {"model": timely.model_id, **prf(ts, gold)},
           "time_sensitive_with_answers": {"answers": reads, **prf(told, gold)}}
    kinds = defaultdict(list)
    for r, flag in zip(rows, na):
        kinds[r["kind"]].append(flag)
    out["flagged_by_kind"] = {k: f"{sum(v)}/{len(v)}" for k, v in sorted(kinds.items())}
    print(json.dumps(out, indent=1, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
