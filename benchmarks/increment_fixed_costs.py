"""Where a small increment's time goes when it runs as a day's build does: a fresh process.

    python benchmarks/increment_fixed_costs.py [--rows 100000] [--questions 1000] [--top-k 1000] [--runner R]

Builds a base from N synthetic rows (benchmarks/incremental_speed.py's logs), then builds the next day's N/100
rows on top of it twice, each in a fresh ``python -m pipelines.build_base`` process on its own copy of the
base: once plain (its wall time) and once under cProfile, whose cumulative seconds itemise the run:

* imports (every module import, wherever it happens; great_expectations's own line too),
* building the Beam graph and translating it for the runner (``Pipeline.apply`` and ``to_runner_api``; a day
  runs in-process by default, pipelines/local_runner.py, which translates nothing: ``--runner DirectRunner``
  measures the day on Beam's portable runner instead),
* loading models (the model stages' ``load_model``/``setup``, metering's ``loading``),
* the stages' work (the runner's execution less the model loading),
* the quality gate (with its great_expectations import) and the report (its charts).

These costs do not grow with the log (the increment's rows are few), so a +1% day at 1M rows pays them too.
Items overlap where one happens inside another (an import inside a model load); the profile slows Python
code more than native code, so its seconds are shares to compare, and the plain run is the wall time.
"""

from __future__ import annotations

import argparse
import json
import pstats
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

# (label, file suffix, function name): the cumulative seconds of the first match, in the profile
ITEMS = (
    ("whole process", "pipelines/build_base.py", None),
    ("run_build", "pipelines/build.py", "run_build"),
    ("imports (all)", "<frozen importlib._bootstrap>", "_find_and_load"),
    ("  of which great_expectations", "great_expectations/__init__.py", "<module>"),
    ("Beam graph: build", "apache_beam/pipeline.py", "apply"),
    ("Beam graph: translate", "apache_beam/pipeline.py", "to_runner_api"),
    ("Beam run (stages + model loading)", "apache_beam/pipeline.py", "run"),
    ("  of which model loading", "pipelines/beam/metering.py", "loading"),
    ("quality gate", "pipelines/build.py", "gate_version"),
    ("report (charts, browse page)", "pipelines/release/report.py", "write_report"),
)


def itemise(prof: Path) -> dict[str, float]:
    stats = pstats.Stats(str(prof)).stats
    out = {}
    for label, suffix, name in ITEMS:
        best = 0.0
        for (path, _, fn), (_, _, _, cum, _) in stats.items():
            if path.endswith(suffix) and (name is None or fn == name):
                best = max(best, cum)
        out[label] = round(best, 2)
    return out


def build(args: list[str], profile: Path | None = None) -> float:
    cmd = [sys.executable] + (["-m", "cProfile", "-o", str(profile)] if profile else []) + \
        ["-m", "pipelines.build_base", "-q"] + args
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--questions", type=int, default=1000)
    ap.add_argument("--top-k", type=int, default=1000)
    ap.add_argument("--out", type=Path, help="write the figures as JSON here")
    ap.add_argument("--runner", help="the increments' --runner (default: the build's own choice by input size)")
    ap.add_argument("--keep", type=Path, help="work in this folder and keep it (the base, the logs, the profile) "
                    "to look into the increment again")
    args = ap.parse_args(argv)
    from incremental_speed import write_rows

    work = Path(tempfile.mkdtemp(prefix="qabase-fixed-")) if args.keep is None else args.keep
    work.mkdir(parents=True, exist_ok=True)
    try:
        rng = random.Random(7)
        day0, day1 = work / "day0.jsonl", work / "day1.jsonl"
        write_rows(day0, args.rows, args.questions, rng)
        write_rows(day1, args.rows // 100, args.questions + args.questions // 100, rng, offset=args.rows)
        k = ["--top-k", str(args.top_k)]
        t_first = build(["--input", str(day0), "--base", str(work / "base")] + k)
        for name in ("plain", "profiled"):
            shutil.copytree(work / "base", work / name, symlinks=True)
        day = ["--input", str(day0), "--input", str(day1)] + k + (["--runner", args.runner] if args.runner else [])
        t_plain = build(day + ["--base", str(work / "plain")])
        t_prof = build(day + ["--base", str(work / "profiled")], work / "increment.prof")
        items = itemise(work / "increment.prof")
        figures = {"rows": args.rows, "runner": args.runner or "default", "increment_rows": args.rows // 100,
                   "first_full_s": round(t_first, 1),
                   "increment_s": round(t_plain, 1), "increment_profiled_s": round(t_prof, 1), "items": items}
        print(f"full build of {args.rows:,} rows: {t_first:.1f} s; +1% increment in a fresh process: {t_plain:.1f} s "
              f"(under the profiler {t_prof:.1f} s)\n")
        print(f"{'profiled run, cumulative s':<40} {'s':>8} {'share':>7}")
        whole = items["whole process"] or 1.0
        for label, s in items.items():
            print(f"{label:<40} {s:>8.1f} {100 * s / whole:>6.0f}%")
        if args.out:
            args.out.write_text(json.dumps(figures, indent=1), encoding="utf-8")
        return 0
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
