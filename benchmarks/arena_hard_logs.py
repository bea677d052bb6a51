"""Turn ../shared/data/arena_hard into chat logs: each prompt with each model's answer.

    python benchmarks/arena_hard_logs.py [--data ../shared/data/arena_hard] --out /tmp/arena_logs.jsonl

One JSONL row per (prompt, model answer): {"id", "question", "answer", "model", "cluster"}.
The data set is read where it lies; nothing is copied into the repository.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "arena_hard"


def answer_text(record: dict) -> str | None:
    msgs = record.get("messages") or []
    if len(msgs) < 2:
        return None
    content = msgs[1].get("content")
    return content.get("answer") if isinstance(content, dict) else content


def convert(data: Path, out: Path) -> int:
    root = data / "arena-hard-v0.1"
    questions = {}
    with open(root / "question.jsonl", encoding="utf-8") as f:
        for line in f:
            q = json.loads(line)
            questions[q["uid"]] = q
    n = 0
    with open(out, "w", encoding="utf-8") as dst:
        for model_file in sorted((root / "model_answer").glob("*.jsonl")):
            with open(model_file, encoding="utf-8") as f:
                for line in f:
                    rec = json.loads(line)
                    q = questions.get(rec["uid"])
                    if q is None:
                        continue
                    row = {"id": f"{rec['uid']}:{rec.get('model', model_file.stem)}", "question": q["prompt"],
                           "answer": answer_text(rec), "model": rec.get("model", model_file.stem),
                           "cluster": q.get("cluster")}
                    dst.write(json.dumps(row, ensure_ascii=False) + "\n")
                    n += 1
    return n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    if not (args.data / "arena-hard-v0.1" / "question.jsonl").is_file():
        print(f"error: no arena_hard data under {args.data}", file=sys.stderr)
        return 2
    print(f"{convert(args.data, args.out)} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
