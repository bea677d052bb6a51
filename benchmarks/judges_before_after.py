"""Two bases built from the same logs, before and after a change to the judges: which entries left the base, which
got flagged time-sensitive or lost the flag, and a sample of each for a person to read.

    python benchmarks/judges_before_after.py logs OUTDIR [--data ../shared/data]
        writes OUTDIR/arena.jsonl (Arena-Hard prompts, three models' answers each) and
        OUTDIR/stackexchange.jsonl (beer.stackexchange questions with each answer), one row per (question, answer)
    python benchmarks/judges_before_after.py compare BEFORE_BASE AFTER_BASE [--n 10]
        reads each base's latest version (questions.parquet, qa.parquet) and prints the differences

Build each base with the default configuration from the same logs and the same arguments, the "before" one from
the older commit (a git worktree), e.g. `python -m pipelines.build_base --input OUTDIR/arena.jsonl --output B`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def write_logs(out: Path, data: Path) -> None:
    from reason_samples import arena_pairs, stackexchange_pairs

    out.mkdir(parents=True, exist_ok=True)
    for name, pairs in (("arena", arena_pairs(data)), ("stackexchange", stackexchange_pairs(data))):
        with (out / f"{name}.jsonl").open("w", encoding="utf-8") as f:
            for i, (_, q, a) in enumerate(pairs):
                f.write(json.dumps({"id": f"{name}-{i}", "question": q, "answer": a}, ensure_ascii=False) + "\n")
        print(f"{out / f'{name}.jsonl'}: {len(pairs):,} rows")


def version_dir(base: Path) -> Path:
    latest = base / "latest"
    if latest.exists():
        return latest.resolve()
    return base / "versions" / (base / "LATEST").read_text().strip()


def load(base: Path) -> tuple[dict, dict]:
    """(qa rows by question key, questions.parquet rows by question key) of a base's latest version."""
    v = version_dir(base)
    from schemas.tables import rows_as_shown

    # any base format, the reasons joined as one label under "reason"
    qa = {r["question_key"]: r for r in pq.read_table(v / "qa.parquet").to_pylist()}
    qs = {r["question_key"]: r for r in rows_as_shown(v / "questions.parquet", ["question_key", "reason"])}
    return qa, qs


def clip(text: str, n: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[:n - 1] + "…"


def compare(before: Path, after: Path, n: int) -> None:
    qa_b, _ = load(before)
    qa_a, qs_a = load(after)
    left = [k for k in qa_b if k not in qa_a]
    came = [k for k in qa_a if k not in qa_b]
    print(f"entries: before {len(qa_b):,}, after {len(qa_a):,}; left {len(left):,}, came in {len(came):,}")
    why = Counter((qs_a.get(k) or {}).get("reason", "merged or not counted") or "kept" for k in left)
    print("why they left (after's questions.parquet reason): "
          + ", ".join(f"{r} {c}" for r, c in why.most_common()))
    print(f"\n## left the base ({min(n, len(left))} of {len(left)})")
    for k in left[:n]:
        r = qa_b[k]
        print(f"  [{(qs_a.get(k) or {}).get('reason', '?')}] Q: {clip(r['question'], 90)!r}\n      A: {clip(r['answer'])!r}")
    if came:
        print(f"\n## came in (the next entries in rank; {min(n, len(came))} of {len(came)})")
        for k in came[:n]:
            print(f"  Q: {clip(qa_a[k]['question'], 90)!r}")
    both = [k for k in qa_a if k in qa_b]
    flagged = [k for k in both if qa_a[k]["time_sensitive"] and not qa_b[k]["time_sensitive"]]
    unflagged = [k for k in both if qa_b[k]["time_sensitive"] and not qa_a[k]["time_sensitive"]]
    print(f"\n## newly flagged time-sensitive: {len(flagged)} (lost the flag: {len(unflagged)}); by reason: "
          + ", ".join(f"{r} {c}" for r, c in Counter(qa_a[k]["time_sensitive_reason"] for k in flagged).most_common()))
    for k in flagged[:n]:
        print(f"  [{qa_a[k]['time_sensitive_reason']}] {clip(qa_a[k]['question'], 120)!r}")
    for k in unflagged[:n]:
        print(f"  lost: {clip(qa_a[k]['question'], 120)!r}")
    answer_changed = [k for k in both if qa_a[k]["answer"] != qa_b[k]["answer"]]
    newly_na = Counter()
    for k in both:
        before_flags = {a["answer_id"] for a in qa_b[k]["answers"] if a["non_answer"]}
        for a in qa_a[k]["answers"]:
            if a["non_answer"] and a["answer_id"] not in before_flags:
                newly_na[a["non_answer_reason"]] += 1
    print(f"\n## kept entries: {len(answer_changed)} serve another answer; answers newly judged non-answers by "
          f"reason: {dict(newly_na.most_common()) or 'none'}")
    for k in answer_changed[:n]:
        print(f"  Q: {clip(qa_a[k]['question'], 90)!r}\n      before: {clip(qa_b[k]['answer'], 120)!r}"
              f"\n      after:  {clip(qa_a[k]['answer'], 120)!r}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    lg = sub.add_parser("logs")
    lg.add_argument("out", type=Path)
    lg.add_argument("--data", type=Path, default=HERE.parents[1] / "shared" / "data")
    cp = sub.add_parser("compare")
    cp.add_argument("before", type=Path)
    cp.add_argument("after", type=Path)
    cp.add_argument("--n", type=int, default=10)
    args = ap.parse_args(argv)
    if args.cmd == "logs":
        write_logs(args.out, args.data)
    else:
        compare(args.before, args.after, args.n)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
