"""Time of a +1% daily increment against a full rebuild over the same logs.

Synthetic English logs: N rows over a Zipf-distributed set of distinct questions (templates x
topics), a few answer variants each. Three builds, each in a fresh process-free sense (a new
base directory, so no caches): a full build of the first N rows, then an increment of N/100
new rows on top of it (the new day touches popular questions and brings some new ones), and
a full rebuild over all N + N/100 rows in another fresh base directory for comparison. The
increment's qa.parquet is checked equal to the full rebuild's.

    .venv/bin/python benchmarks/incremental_speed.py                 # 1,000,000 rows (about 15 min on 2 cores)
    .venv/bin/python benchmarks/incremental_speed.py --rows 100000   # a quicker look
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ACTIONS = ["reset", "change", "update", "delete", "recover", "verify", "export", "share", "lock", "unlock",
           "rename", "backup", "restore", "sync", "cancel", "renew", "upgrade", "downgrade", "find", "print"]
THINGS = ["my password", "my account", "my email address", "my phone number", "my profile picture",
          "my subscription", "my billing address", "my order", "my invoice", "my card", "my username",
          "my security question", "my two-factor code", "my saved files", "my contacts", "my calendar",
          "my playlist", "my shipping address", "my payment method", "my gift card", "my wishlist",
          "my notifications", "my language setting", "my time zone", "my recovery email"]
PLACES = ["on the app", "on the website", "on my phone", "on my laptop", "from the settings page",
          "without logging in", "for my family account", "for my business account", "in the new version",
          "on a shared computer", "while travelling"]


def question(i: int) -> str:
    a, t, p = i % len(ACTIONS), (i // len(ACTIONS)) % len(THINGS), (i // (len(ACTIONS) * len(THINGS))) % len(PLACES)
    return f"How do I {ACTIONS[a]} {THINGS[t]} {PLACES[p]}?"


def answer(i: int, variant: int) -> str:
    q = question(i)[len("How do I "):-1]
    return [f"To {q}, open Settings, choose Account and follow the steps shown.",
            f"You can {q} from Settings > Account; it takes about a minute.",
            f"Contact support to {q}; they will guide you through it.",
            f"Go to the help centre and search for how to {q}."][variant]


def write_rows(path: Path, n: int, n_questions: int, rng: random.Random, offset: int = 0) -> None:
    weights = [1.0 / (k + 1) ** 1.1 for k in range(n_questions)]
    picks = rng.choices(range(n_questions), weights=weights, k=n)
    with path.open("w", encoding="utf-8") as f:
        for j, i in enumerate(picks):
            variant = min(int(rng.expovariate(1.5)), 3)
            f.write(json.dumps({"question": question(i), "answer": answer(i, variant),
                                "id": f"r{offset + j}"}) + "\n")


def timed_build(inputs: list[str], base: Path, cfg, full: bool = False):
    from pipelines.build import run_build

    t0 = time.perf_counter()
    res = run_build(inputs, base, cfg, full_rebuild=full)
    return time.perf_counter() - t0, res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--questions", type=int, default=5000, help="distinct questions of day 0 (the increment adds 1%%)")
    ap.add_argument("--top-k", type=int, default=5000)
    ap.add_argument("--out", type=Path, help="write the figures as JSON here")
    args = ap.parse_args(argv)
    from models.config_check import load_config
    from schemas.logs import setup_logging

    setup_logging(False, True)
    logging.getLogger("qabase").setLevel(logging.WARNING)
    import pyarrow.parquet as pq

    cfg = load_config(None, {"filter.top_k": args.top_k})
    work = Path(tempfile.mkdtemp(prefix="qabase-incr-"))
    try:
        rng = random.Random(7)
        day0, day1 = work / "day0.jsonl", work / "day1.jsonl"
        write_rows(day0, args.rows, args.questions, rng)
        # the new day: popular old questions plus 1% new distinct questions
        write_rows(day1, args.rows // 100, args.questions + args.questions // 100, rng, offset=args.rows)
        t_first, first = timed_build([str(day0)], work / "incremental", cfg)
        print(f"full build of {args.rows:,} rows: {t_first:.1f}s ({first.manifest['counts']['published']:,} published)",
              flush=True)
        t_inc, inc = timed_build([str(day0), str(day1)], work / "incremental", cfg)
        print(f"+1% increment ({args.rows // 100:,} rows): {t_inc:.1f}s; caches {inc.manifest.get('caches')}",
              flush=True)
        t_full, full = timed_build([str(day0), str(day1)], work / "full", cfg, full=True)
        print(f"full rebuild of {args.rows + args.rows // 100:,} rows: {t_full:.1f}s", flush=True)
        same = pq.read_table(inc.path / "qa.parquet").equals(pq.read_table(full.path / "qa.parquet"))
        figures = {"rows": args.rows, "increment_rows": args.rows // 100, "distinct_questions":
                   full.manifest["counts"]["distinct_questions"], "published": full.manifest["counts"]["published"],
                   "first_full_s": round(t_first, 1), "increment_s": round(t_inc, 1), "full_rebuild_s": round(t_full, 1),
                   "full_over_increment": round(t_full / t_inc, 2), "qa_parquet_identical": same,
                   "increment_caches": inc.manifest.get("caches"),
                   "increment_stages": inc.manifest["stages"], "full_stages": full.manifest["stages"]}
        print(f"full rebuild / increment = {figures['full_over_increment']}x; qa.parquet identical: {same}")
        if args.out:
            args.out.write_text(json.dumps(figures, indent=1), encoding="utf-8")
        return 0 if same else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
