"""A sample of what the sure rules flag on real logs, for a person to read: for each new reason (non-answers:
inability, deferral, meta, restatement, tautology; time-sensitive cue families; questions that cannot stand
alone), up to N flagged items, and how many items each reason flagged in all.

    python benchmarks/reason_samples.py [--n 10] [--data ../shared/data]

Logs: the demo's own logs (pipelines.demo), Arena-Hard prompts with three models' answers, and Stack Exchange
(beer) questions with their answers, when ../shared/data holds them. Only the sure rules run (no model: the
packaged heads would add the head's own flags, which are not new), so this shows what those rules alone take
out of real traffic, false flags included. Language: Chinese when a third of the letters are Han characters
(a heuristic, enough for a sample).
"""

from __future__ import annotations

import argparse
import html
import json
import re
import tempfile
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

from models.nonanswer.rules import sure_family
from models.standalone.rules import judge_en, judge_zh
from models.timesensitive.rules import RuleTimeSensitivity

ROOT = Path(__file__).resolve().parents[1]
_HAN = re.compile(r"[\u4e00-\u9fff]")
_TAG = re.compile(r"<[^>]+>")


def lang_of(text: str) -> str:
    letters = [c for c in text if c.isalpha()]
    return "zh" if letters and len(_HAN.findall(text)) * 3 >= len(letters) else "en"


def demo_pairs() -> list[tuple[str, str, str]]:
    from pipelines.demo import write_demo_logs

    pairs = []
    for path in write_demo_logs(Path(tempfile.mkdtemp(prefix="reason-samples-"))):
        if path.suffix == ".jsonl":
            for line in path.read_text(encoding="utf-8").splitlines():
                row = json.loads(line)
                msgs = row.get("messages") or []
                if "question" in row:
                    pairs.append(("demo", str(row["question"]), str(row.get("answer") or "")))
                for q, a in zip(msgs[::2], msgs[1::2]):
                    pairs.append(("demo", str(q.get("content", "")), str(a.get("content", ""))))
        elif path.suffix == ".csv":
            import csv

            with path.open(encoding="utf-8") as f:
                pairs += [("demo", r.get("question", ""), r.get("answer", "")) for r in csv.DictReader(f)]
    return pairs


def arena_pairs(data: Path) -> list[tuple[str, str, str]]:
    base = data / "arena_hard" / "arena-hard-v0.1"
    if not base.is_dir():
        return []
    prompts = {r["uid"]: r["prompt"] for r in map(json.loads, (base / "question.jsonl").open(encoding="utf-8"))}
    pairs = []
    for f in sorted((base / "model_answer").glob("*.jsonl")):
        for r in map(json.loads, f.open(encoding="utf-8")):
            answer = r["messages"][1]["content"]["answer"]
            if r["uid"] in prompts:
                pairs.append(("arena", prompts[r["uid"]], answer))
    return pairs


def stackexchange_pairs(data: Path) -> list[tuple[str, str, str]]:
    path = data / "stackexchange" / "beer_posts.xml"
    if not path.is_file():
        return []
    rows = [r.attrib for r in ET.parse(path).getroot()]
    titles = {r["Id"]: r.get("Title", "") for r in rows if r.get("PostTypeId") == "1"}
    plain = lambda body: re.sub(r"\s+", " ", _TAG.sub(" ", html.unescape(body))).strip()  # noqa: E731
    return [("stackexchange", titles[r["ParentId"]], plain(r.get("Body", ""))) for r in rows
            if r.get("PostTypeId") == "2" and r.get("ParentId") in titles]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10, help="items shown per reason")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data", help="the shared data folder")
    args = ap.parse_args(argv)
    pairs = demo_pairs() + arena_pairs(args.data) + stackexchange_pairs(args.data)
    print(f"{len(pairs):,} (question, answer) pairs: "
          + ", ".join(f"{src} {sum(p[0] == src for p in pairs):,}" for src in ("demo", "arena", "stackexchange")))
    found: dict[str, list[str]] = defaultdict(list)
    for src, q, a in pairs:
        reason = sure_family(q, a, lang_of(a))
        if reason:
            found[f"non-answer: {reason}"].append(f"[{src}] Q: {q[:80]!r}  A: {a[:160]!r}")
    questions = sorted({(src, q) for src, q, _ in pairs})
    langs = [lang_of(q) for _, q in questions]
    for (src, q), j in zip(questions, RuleTimeSensitivity().judgements([q for _, q in questions], langs)):
        if j.sure:
            found[f"time-sensitive: {j.reason}"].append(f"[{src}] {q[:120]!r}")
    for (src, q), lang in zip(questions, langs):
        j = judge_zh(q) if lang == "zh" else judge_en(q)
        if j.score >= 0.5:
            found[f"cannot stand alone: {j.reason} ({j.details.get('cue', '')})"].append(f"[{src}] {q[:120]!r}")
    for reason in sorted(found):
        distinct = list(dict.fromkeys(found[reason]))  # a log repeats its popular rows: show each once
        print(f"\n## {reason}: {len(found[reason])} flagged, {len(distinct)} distinct")
        for item in distinct[:args.n]:
            print("  " + item)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
