"""The cost of redaction against the read step, per row, on synthetic logs (issue 32).

    python benchmarks/generate_logs.py --rows 100000 --out /tmp/logs_100k.jsonl
    python benchmarks/pii_speed.py /tmp/logs_100k.jsonl

Times, on one core, (1) the read step's parse of every row of the file (pipelines.stages.read.parse_file: bytes to
RawRow, as the build reads), (2) the redaction of every row's question and answer (validate's first step, the
default kinds), (3) the redaction of the labelled set's sentences (benchmarks/pii_labelled.jsonl, a personal-data
value in about half of them: the cost where there is something to replace).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipelines.stages.read import parse_file  # noqa: E402
from schemas.config import InputConfig, LimitsConfig  # noqa: E402
from schemas.privacy.redactor import Redactor  # noqa: E402
from schemas.records import RawRow  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", help="a JSONL log file (benchmarks/generate_logs.py)")
    args = ap.parse_args(argv)
    path = Path(args.logs)
    if not path.is_file():
        print(f"error: {path} not found", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    rows = [r for r in parse_file(str(path), "jsonl", InputConfig(), LimitsConfig()) if isinstance(r, RawRow)]
    read_s = time.perf_counter() - t0
    redactor = Redactor.of()
    t0 = time.perf_counter()
    found = 0
    for r in rows:
        q, a = redactor.redact(r.question), redactor.redact(r.answer)
        found += sum(q.counts.values()) + sum(a.counts.values())
    redact_s = time.perf_counter() - t0
    chars = sum(len(r.question) + len(r.answer) for r in rows)
    print(f"{path.name}: {len(rows):,} rows, {chars / len(rows):.0f} characters a row (question + answer)")
    print(f"read (parse_file):           {read_s:7.2f} s  {read_s / len(rows) * 1e6:6.1f} us/row")
    print(f"redact (question + answer):  {redact_s:7.2f} s  {redact_s / len(rows) * 1e6:6.1f} us/row  "
          f"= {redact_s / read_s:.2f} x read; {found} values found")
    labelled = ROOT / "benchmarks" / "pii_labelled.jsonl"
    if labelled.is_file():
        texts = [json.loads(ln)["text"] for ln in labelled.read_text(encoding="utf-8").splitlines()]
        t0 = time.perf_counter()
        for _ in range(10):
            for t in texts:
                redactor.redact(t)
        s = (time.perf_counter() - t0) / (10 * len(texts))
        print(f"redact a labelled sentence:  {s * 1e6:6.1f} us/sentence ({len(texts)} sentences x 10)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
