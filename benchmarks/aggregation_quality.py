"""Aggregation on public data: the tables in docs/measurements/answer-aggregation.md.

    python benchmarks/aggregation_quality.py [--data ../shared/data] [--arena-n 200] [--groups 200]

* StackExchange (beer): questions with 2+ answers, every one aggregated by majority vote
  (as a factual question, whatever its type, so that there is one chosen answer). How
  often the chosen answer is the accepted answer, and how often it is a top-scored
  answer; beside a random pick (expected value 1/n), the longest answer and the first
  posted answer. Answers are given in posting order; the aggregator breaks ties by
  centrality, not order.
* Arena-Hard: each prompt with its 3 model answers. Distribution of viewpoint counts
  and the support-check pass rate (groups with 2+ viewpoints; one viewpoint passes).
* Throughput: groups of 10 answers (the project's demo answers), groups/s.

Figures also go to benchmarks/results/aggregation_quality.json.
"""

from __future__ import annotations

import argparse
import html
import json
import random
import re
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
_TAG = re.compile(r"<[^>]+>")


def strip_html(text: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(_TAG.sub(" ", text))).strip()


def stackexchange_groups(path: Path) -> list[dict]:
    questions, answers = {}, {}
    for row in ET.parse(path).getroot().iter("row"):
        a = row.attrib
        if a.get("PostTypeId") == "1":
            questions[a["Id"]] = {"title": strip_html(a.get("Title", "")), "accepted": a.get("AcceptedAnswerId")}
        elif a.get("PostTypeId") == "2" and a.get("ParentId"):
            answers.setdefault(a["ParentId"], []).append((int(a["Id"]), a["Id"], int(a.get("Score", "0")),
                                                           strip_html(a.get("Body", ""))))
    groups = []
    for qid, q in questions.items():
        ans = sorted(answers.get(qid, []))  # posting order
        ans = [x for x in ans if x[3]]
        if len(ans) < 2:
            continue
        groups.append({"question": q["title"], "ids": [x[1] for x in ans], "scores": [x[2] for x in ans],
                       "texts": [x[3] for x in ans], "accepted": q["accepted"]})
    return groups


def chosen_position(result, texts: list[str]) -> int:
    """0-based position of the answer the aggregator stands behind."""
    if result.method.endswith("majority-vote") and result.answer in texts:
        return texts.index(result.answer)
    top = result.viewpoints[0]
    probe = top.summary.rstrip("…").strip()
    for answer_id in top.answer_ids:  # the member the summary sentence was drawn from
        if probe and probe in texts[answer_id - 1]:
            return answer_id - 1
    return top.answer_ids[0] - 1


def run_aggregator(groups: list[tuple[str, list[str]]], force_type: str | None = None):
    from models import registry
    from schemas.config import AggregationConfig, ModelsConfig
    from schemas.records import AnswerCount
    from schemas.text import detect_lang

    mcfg, acfg = ModelsConfig(), AggregationConfig()
    emb = registry.embedder(mcfg.embedder, mcfg)
    qs = [q for q, _ in groups]
    types = registry.qtype_classifier(mcfg).classify_vectors(qs, emb.embed(qs), acfg.subjective_threshold)
    batch = [(q, force_type or t, detect_lang(q), [AnswerCount(i, a, 1) for i, a in enumerate(ans, 1)])
             for (q, ans), (t, _) in zip(groups, types)]
    agg = registry.aggregator(mcfg, acfg)
    out = []
    for start in range(0, len(batch), 8):
        out.extend(agg.aggregate_many(batch[start:start + 8]))
    return out, [t for t, _ in types]


def stackexchange(data: Path) -> dict:
    groups = stackexchange_groups(data / "stackexchange" / "beer_posts.xml")
    t = time.perf_counter()
    results, types = run_aggregator([(g["question"], g["texts"]) for g in groups], force_type="objective")
    seconds = time.perf_counter() - t
    rows = {"aggregator": [], "random (expected)": [], "longest": [], "first posted": []}
    acc_rows = {k: [] for k in rows}
    either_rows = {k: [] for k in rows}
    for g, r in zip(groups, results):
        top = max(g["scores"])
        n = len(g["texts"])
        good = [g["scores"][i] == top or g["ids"][i] == g["accepted"] for i in range(n)]
        picks = {"aggregator": chosen_position(r, g["texts"]),
                 "longest": max(range(n), key=lambda i: (len(g["texts"][i]), -i)), "first posted": 0}
        for name, pos in picks.items():
            rows[name].append(1.0 if g["scores"][pos] == top else 0.0)
            either_rows[name].append(1.0 if good[pos] else 0.0)
            if g["accepted"]:
                acc_rows[name].append(1.0 if g["ids"][pos] == g["accepted"] else 0.0)
        rows["random (expected)"].append(sum(1 for s in g["scores"] if s == top) / n)
        either_rows["random (expected)"].append(sum(good) / n)
        if g["accepted"]:
            acc_rows["random (expected)"].append(1.0 / n)
    mean = lambda xs: round(sum(xs) / len(xs), 4) if xs else None  # noqa: E731
    return {"groups": len(groups), "with_accepted": len(acc_rows["aggregator"]),
            "answers_per_group": round(sum(len(g["texts"]) for g in groups) / len(groups), 2),
            "objective_share": round(types.count("objective") / len(types), 3), "seconds": round(seconds, 1),
            "accepted": {k: mean(v) for k, v in acc_rows.items()}, "top_scored": {k: mean(v) for k, v in rows.items()},
            "accepted_or_top_scored": {k: mean(v) for k, v in either_rows.items()}}


def arena(data: Path, n: int, seed: int = 0) -> dict:
    root = data / "arena_hard" / "arena-hard-v0.1"
    prompts = {}
    for line in (root / "question.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        prompts[q["uid"]] = q["prompt"]
    answers: dict[str, list[str]] = {}
    for f in sorted((root / "model_answer").glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            try:
                text = row["choices"][0]["turns"][0]["content"] if "choices" in row else \
                    row["messages"][1]["content"]["answer"]
            except (KeyError, IndexError, TypeError):
                continue
            if isinstance(text, str) and text.strip():
                answers.setdefault(row["uid"], []).append(text)
    uids = sorted(u for u in prompts if len(answers.get(u, [])) >= 2)
    uids = random.Random(seed).sample(uids, min(n, len(uids)))
    t = time.perf_counter()
    results, types = run_aggregator([(prompts[u], answers[u]) for u in uids])
    seconds = time.perf_counter() - t
    counts = Counter(len(r.viewpoints) for r in results)
    multi = [r for r in results if len(r.viewpoints) > 1]
    passed = [r for r in multi if "unsupported_viewpoint" not in r.flags]
    return {"groups": len(uids), "answers_per_group": round(sum(len(answers[u]) for u in uids) / len(uids), 2),
            "objective_share": round(types.count("objective") / len(types), 3),
            "viewpoint_counts": {str(k): counts[k] for k in sorted(counts)},
            "support_check_pass_rate_multi": round(len(passed) / len(multi), 4) if multi else None,
            "support_check_pass_rate_all": round((len(results) - len(multi) + len(passed)) / len(results), 4),
            "seconds": round(seconds, 1)}


def throughput(n_groups: int, size: int = 10, seed: int = 0) -> dict:
    from pipelines.demo import demo_rows

    rng = random.Random(seed)
    by_q: dict[str, list[str]] = {}
    for r in demo_rows():
        by_q.setdefault(r["question"], []).append(r["answer"])
    pool = sorted({a for v in by_q.values() for a in v})
    questions = sorted(by_q)
    groups = [(questions[i % len(questions)], rng.sample(pool, size)) for i in range(n_groups)]
    run_aggregator(groups[:8])  # warm-up: models loaded
    t = time.perf_counter()
    run_aggregator(groups)
    seconds = time.perf_counter() - t
    return {"groups": n_groups, "answers_per_group": size, "seconds": round(seconds, 2),
            "groups_per_s": round(n_groups / seconds, 1),
            "mean_answer_chars": round(sum(len(a) for _, g in groups for a in g) / (n_groups * size), 1)}


def main(argv: list[str] | None = None) -> int:
    from models.tools.paths import find_data

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=find_data() or HERE.parent.parent / "shared" / "data")
    ap.add_argument("--arena-n", type=int, default=200)
    ap.add_argument("--groups", type=int, default=200, help="throughput: groups of 10 answers")
    ap.add_argument("--throughput-only", action="store_true")
    args = ap.parse_args(argv)
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    out = {}
    if args.data.is_dir() and not args.throughput_only:
        out["stackexchange"] = stackexchange(args.data)
        print(json.dumps({"stackexchange": out["stackexchange"]}, indent=1), flush=True)
        out["arena_hard"] = arena(args.data, args.arena_n)
        print(json.dumps({"arena_hard": out["arena_hard"]}, indent=1), flush=True)
    else:
        print(f"no evaluation data at {args.data}: throughput only", file=sys.stderr)
    out["throughput"] = throughput(args.groups)
    print(json.dumps({"throughput": out["throughput"]}, indent=1), flush=True)
    (HERE / "results").mkdir(exist_ok=True)
    name = "aggregation_throughput.json" if args.throughput_only else "aggregation_quality.json"
    (HERE / "results" / name).write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
