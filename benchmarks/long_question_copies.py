"""Long questions: how often real long prompts pass the near-copy rule, for their near-copies and for each other.

    python benchmarks/long_question_copies.py [--data ../shared/data] [--seed 0]

Paraphrase merging decides a pair with a question longer than ``paraphrase.long_question_chars`` (256) lexically:
a near-copy when the Jaccard similarity of the two normalised texts' character 5-gram sets reaches
``paraphrase.long_copy_jaccard`` (0.8, set before this was measured). This measures that rule on real long
prompts, the arena_hard prompts over 256 characters:

* recall: each prompt against a near-copy of itself, one per kind of edit a log shows (a word changed, a
  sentence appended, a sentence dropped, three typos, line breaks and markdown bullets flattened), seeded;
* false merges: every pair of two different prompts (some arena prompts share a template: those found are
  listed, to be read);

at the default threshold and its neighbours. It also prints how long the questions of the merge sets are (the
cut must leave every question the judge was measured on uncut) and what share of a real log's distinct
questions the cut makes long. Without the data it says so and exits 0.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from itertools import combinations
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
SHARED = HERE.parent.parent / "shared" / "data"
LONG = 256
THRESHOLDS = (0.6, 0.7, 0.8, 0.9)
SUFFIXES = ("Please explain step by step.", "Answer briefly.", "Thanks in advance!", "Use Python if you can.")


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if s]


def edits(text: str, rng: random.Random) -> dict[str, str]:
    """One near-copy of ``text`` per kind of edit."""
    words = text.split(" ")
    i = rng.randrange(len(words))
    word = " ".join(words[:i] + [rng.choice(words)] + words[i + 1:])
    sents = _sentences(text)
    chars = list(text)
    for _ in range(3):
        j = rng.randrange(len(chars))
        chars[j] = rng.choice("abcdefghijklmnopqrstuvwxyz")
    out = {"word": word, "suffix": f"{text} {rng.choice(SUFFIXES)}",
           "typos": "".join(chars),
           "flattened": re.sub(r"\s+", " ", re.sub(r"(?m)^\s*[-*#>]+\s*", "", text))}
    if len(sents) >= 4:
        out["sentence dropped"] = " ".join(sents[:-1])
    return out


def merge_set_lengths() -> dict[str, int]:
    """The longest question (characters) of each merge set the paraphrase judge is measured on."""
    out = {}
    for path in sorted(HERE.glob("paraphrase_*.tsv")):
        longest = 0
        with open(path, encoding="utf-8") as f:
            for line in f:
                cols = line.rstrip("\n").split("\t")
                longest = max([longest] + [len(c) for c in cols[:2]])
        out[path.name] = longest
    for name, sep, cols in (("lcqmc_dev.tsv", "\t", (0, 1)), ("bq_dev.csv", ",", (0, 1))):
        path = SHARED / "paraphrase_zh" / name
        if path.is_file():
            with open(path, encoding="utf-8") as f:
                out[name] = max(len(line.split(sep)[c]) for line in f for c in cols if len(line.split(sep)) > 1)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=SHARED)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    path = args.data / "arena_hard" / "arena-hard-v0.1" / "question.jsonl"
    if not path.is_file():
        print(f"skipped: no arena_hard data under {args.data}")
        return 0
    from models.paraphrase.near_copy import jaccard, shingles

    prompts = [json.loads(line)["prompt"] for line in open(path, encoding="utf-8")]
    long = sorted({p for p in prompts if len(p) > LONG})
    print(f"arena_hard: {len(prompts)} prompts, {len(long)} distinct over {LONG} characters "
          f"({100 * len(long) / len(prompts):.0f}%)")
    print("longest question of each merge set (characters):", json.dumps(merge_set_lengths()))
    rng = random.Random(args.seed)
    kinds: dict[str, list[float]] = {}
    for p in long:
        for kind, copy in edits(p, rng).items():
            kinds.setdefault(kind, []).append(jaccard(p, copy))
    sets = [shingles(p) for p in long]
    others = []
    for i, j in combinations(range(len(long)), 2):
        union = len(sets[i] | sets[j])
        others.append((len(sets[i] & sets[j]) / union if union else 1.0, i, j))
    print(f"\n{'pairs':<28} {'n':>7} " + " ".join(f"{'>= ' + str(t):>8}" for t in THRESHOLDS))
    for kind, sims in sorted(kinds.items()):
        print(f"{'near-copy: ' + kind:<28} {len(sims):>7} "
              + " ".join(f"{sum(s >= t for s in sims) / len(sims):>8.3f}" for t in THRESHOLDS))
    print(f"{'two different prompts':<28} {len(others):>7} "
          + " ".join(f"{sum(s >= t for s, _, _ in others):>8}" for t in THRESHOLDS))
    print("\nthe most similar different prompts (Jaccard, first 90 characters of each):")
    for s, i, j in sorted(others, reverse=True)[:6]:
        print(f"  {s:.3f}  {long[i][:90]!r}\n         {long[j][:90]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
