"""What the answer-match judge costs per answer, as a build loads and asks it: every answer the non-answer judge
lets through, in float32 (as it first shipped, no second opinion), against the default (``answer_match.ask_above``,
``answer_match.lets_through_below`` and ``models.precision: auto``), on the same real answers, the two runs
interleaved so that a machine's load falls on both alike. Both calls a build's non-answer stage makes are timed:
the answers let through (``other_verdicts``) and the non-answer head's own flags judged again
(``second_opinions``).

    python benchmarks/answer_match_cost.py [--answers 600] [--rounds 2] [--json OUT.json]

The answers are the first ``--answers`` lines of the DQ sample's labelled tune split (models.tools.dq_labels; the
labels are not read). Prints, per configuration, the answers asked, seconds, answers let through per second
(the stage's cost per answer judged), answers asked per second (the model's own speed), and the load average while
it ran.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CONFIGS = {"float32, every answer asked": {"answer_match.ask_above": 0.0, "answer_match.lets_through_below": 0.0,
                                           "models.precision": "float32"},
           "default": {}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--answers", type=int, default=600)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    from models.answer_judging import other_verdicts, second_opinions
    from models.config_check import load_config
    from models.factory import judge_sections
    from models.registry import configured_judges, judge_model
    from models.tools.dq_labels import load
    from schemas.judgement import ANSWER, asked_items

    rows = load(split="tune")[:args.answers]
    items = [(r["question"], r["answer"], "zh") for r in rows]
    base = load_config(None)
    detector = judge_model("non_answer", base.non_answer, base.models)
    verdicts = detector.judgements(items)
    judged = detector.decide(verdicts, ["zh"] * len(items))
    open_ = [i for i, (_, reason) in enumerate(judged) if not reason]
    unsure = [i for i, ((_, reason), v) in enumerate(zip(judged, verdicts)) if reason and not v.sure]
    judges = {}
    for name, overrides in CONFIGS.items():
        cfg = load_config(None, overrides)
        [judges[name]] = configured_judges(judge_sections(cfg, ANSWER), cfg.models)
        other_verdicts((judges[name],), items[:8])  # warm: the first call pays for lazy set-up
    table = {name: {"seconds": 0.0} for name in CONFIGS}
    for _ in range(args.rounds):
        for name, judge in judges.items():
            t = time.perf_counter()
            out = other_verdicts((judge,), [items[i] for i in open_], [judged[i][0] for i in open_])
            columns = [{"non_answer": bool(reason)} for _, reason in judged]
            second_opinions((judge,), items, unsure, columns)
            table[name]["seconds"] += time.perf_counter() - t
            asked = asked_items([judged[i][0] for i in open_], getattr(judge, "asks_above", 0.0))
            again = len(unsure) if judge.lets_through_below > 0 else 0
            table[name].update(identity=judge.model_id, let_through=len(open_), asked=len(asked) + again,
                               flagged=sum(bool(r) for _, r in out), flags_judged_again=again,
                               let_through_again=sum(not columns[i]["non_answer"] for i in unsure))
    for name, row in table.items():
        row["seconds"] = round(row["seconds"] / args.rounds, 2)
        row["answers_per_second"] = round(row["let_through"] / row["seconds"], 1)
        row["asked_per_second"] = round(row["asked"] / row["seconds"], 1)
    table["load_average_after"] = round(os.getloadavg()[0], 2)
    table["speedup"] = round(table["float32, every answer asked"]["seconds"] / table["default"]["seconds"], 2)
    print(json.dumps(table, indent=1, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
