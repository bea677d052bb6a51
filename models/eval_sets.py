"""Labelled evaluation sets built from ../shared/data (read where it lies, never copied).

    python -m models.eval_sets mucgec --out mucgec.jsonl
    python -m models.eval_sets en-gec --out en_gec.jsonl [--seed 0] [--n 2000]

Lines are ``{"text", "label": 1 good | 0 bad, "pair": id, "kind": ...}`` for
``python -m models.evaluate``.

* ``mucgec``: MuCGEC dev, each erroneous source (0) against its first reference (1).
* ``en-gec``: fluent English requests from CLINC150 (train) and BANKING77 (1), each
  paired with one realistic corruption of itself (0): a typo (swap, drop, double or
  replace a letter with a keyboard neighbour), a dropped word, a doubled word, two
  neighbouring words swapped, or a subject-verb agreement error.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"

_KEYBOARD = {c: n for row in ("qwertyuiop", "asdfghjkl", "zxcvbnm") for i, c in enumerate(row)
             for n in [row[max(i - 1, 0)] + row[min(i + 1, len(row) - 1)]]}
_AGREEMENT = [(r"\bis\b", "are"), (r"\bare\b", "is"), (r"\bdoes\b", "do"), (r"\bdo\b", "does"),
              (r"\bhas\b", "have"), (r"\bhave\b", "has"), (r"\bwas\b", "were"), (r"\bwere\b", "was")]
KINDS = ("typo", "drop_word", "double_word", "swap_words", "agreement")


def mucgec_pairs(data: Path = SHARED) -> Iterator[dict]:
    path = data / "mucgec" / "MuCGEC_dev.txt"
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3:
                continue
            sid, source, reference = parts[0], parts[1], parts[2]
            yield {"text": source, "label": 0, "pair": f"mucgec-{sid}", "kind": "learner_error"}
            yield {"text": reference, "label": 1, "pair": f"mucgec-{sid}", "kind": "reference"}


def english_requests(data: Path = SHARED) -> list[str]:
    clinc = json.loads((data / "clinc150" / "clinc150_train_val.json").read_text(encoding="utf-8"))
    texts = [u for u, _ in clinc["train"]]
    with open(data / "banking77" / "train.csv", encoding="utf-8") as f:
        texts += [row["text"] for row in csv.DictReader(f)]
    return sorted(set(t.strip() for t in texts if len(t.split()) >= 4))


def _typo(word: str, rng: random.Random) -> str:
    i = rng.randrange(len(word))
    op = rng.randrange(4)
    if op == 0 and len(word) > 1:
        j = min(i + 1, len(word) - 1)
        chars = list(word)
        chars[i], chars[j] = chars[j], chars[i]
        return "".join(chars)
    if op == 1 and len(word) > 3:
        return word[:i] + word[i + 1:]
    if op == 2:
        return word[:i] + word[i] + word[i:]
    near = _KEYBOARD.get(word[i].lower())
    return word[:i] + rng.choice(near) + word[i + 1:] if near else word + word[-1]


def corrupt(text: str, kind: str, rng: random.Random) -> str | None:
    """One corruption of ``kind``, or None where it cannot change this text."""
    words = text.split()
    if kind == "typo":
        idx = [i for i, w in enumerate(words) if w.isalpha() and len(w) >= 4]
        if not idx:
            return None
        i = rng.choice(idx)
        words[i] = _typo(words[i], rng)
    elif kind == "drop_word":
        i = rng.randrange(1, len(words))
        del words[i]
    elif kind == "double_word":
        i = rng.randrange(len(words))
        words.insert(i, words[i])
    elif kind == "swap_words":
        i = rng.randrange(len(words) - 1)
        words[i], words[i + 1] = words[i + 1], words[i]
    elif kind == "agreement":
        options = [(p, r) for p, r in _AGREEMENT if re.search(p, text)]
        if not options:
            return None
        pattern, repl = rng.choice(options)
        out = re.sub(pattern, repl, text, count=1)
        return out if out != text else None
    out = " ".join(words)
    return out if out != text else None


def english_gec_pairs(n: int = 2000, seed: int = 0, data: Path = SHARED) -> Iterator[dict]:
    rng = random.Random(seed)
    texts = english_requests(data)
    rng.shuffle(texts)
    made = 0
    for i, text in enumerate(texts):
        if made >= n:
            break
        kind = KINDS[made % len(KINDS)]
        bad = corrupt(text, kind, rng)
        if bad is None:
            continue
        yield {"text": text, "label": 1, "pair": f"en-{i}", "kind": "original"}
        yield {"text": bad, "label": 0, "pair": f"en-{i}", "kind": kind}
        made += 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.eval_sets", description=__doc__.split("\n\n")[0])
    ap.add_argument("set", choices=("mucgec", "en-gec"))
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--data", type=Path, default=SHARED)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if not args.data.is_dir():
        print(f"error: no evaluation data at {args.data}", file=sys.stderr)
        return 2
    rows = mucgec_pairs(args.data) if args.set == "mucgec" else english_gec_pairs(args.n, args.seed, args.data)
    count = 0
    with open(args.out, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    print(f"{count} labelled lines -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
