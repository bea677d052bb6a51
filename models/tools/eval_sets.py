"""Labelled evaluation sets built from the public data folder (read where it lies, never copied; ``--data``,
else ``$QABASE_DATA``, else ./shared/data or ../shared/data, else the checkout's ../shared/data: models.tools.paths).

    python -m models.tools.eval_sets mucgec --out mucgec.jsonl
    python -m models.tools.eval_sets en-gec --out en_gec.jsonl [--seed 0] [--n 2000]
    python -m models.tools.eval_sets intent --out intent.jsonl [--lang en|zh|all] [--seed 0] [--n 600]
    python -m models.tools.eval_sets clinc-oos --out DIR   (DIR/train.jsonl for models.tools.train_intent, DIR/val.jsonl)

Lines are ``{"text", "label": 1 good | 0 bad, "pair": id, "kind": ...}`` for
``python -m models.tools.evaluate``.

* ``mucgec``: MuCGEC dev, each erroneous source (0) against its first reference (1).
* ``en-gec``: fluent English requests from CLINC150 (train) and BANKING77 (1), each
  paired with one realistic corruption of itself (0): a typo (swap, drop, double or
  replace a letter with a keyboard neighbour), a dropped word, a doubled word, two
  neighbouring words swapped, or a subject-verb agreement error.
* ``intent``: clear requests (1): English from CLINC150 val (in scope) and BANKING77,
  Chinese written for this project (``models/data/intent_eval.yaml``); unclear turns
  (0, ``kind`` greeting, thanks, chitchat, followup, gibberish): written for this
  project in both languages, plus generated keyboard mashing and random Chinese
  characters. None of them is an intent prototype.
* ``clinc-oos``: CLINC150 as a labelled intent set: ``train.jsonl`` (train + oos_train,
  ``{"text", "label": intent | "oos"}``) and ``val.jsonl`` (val in scope = 1,
  oos_val = 0) for ``models.tools.evaluate intent``.
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

from models.tools.paths import add_data_option, data_dir
from schemas.errors import QabaseError

INTENT_EVAL = Path(__file__).resolve().parents[1] / "data" / "intent_eval.yaml"  # models/data/

_KEYBOARD = {c: n for row in ("qwertyuiop", "asdfghjkl", "zxcvbnm") for i, c in enumerate(row)
             for n in [row[max(i - 1, 0)] + row[min(i + 1, len(row) - 1)]]}
_AGREEMENT = [(r"\bis\b", "are"), (r"\bare\b", "is"), (r"\bdoes\b", "do"), (r"\bdo\b", "does"),
              (r"\bhas\b", "have"), (r"\bhave\b", "has"), (r"\bwas\b", "were"), (r"\bwere\b", "was")]
KINDS = ("typo", "drop_word", "double_word", "swap_words", "agreement")


def mucgec_pairs(data: Path | None = None) -> Iterator[dict]:
    path = data_dir(data) / "mucgec" / "MuCGEC_dev.txt"
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3:
                continue
            sid, source, reference = parts[0], parts[1], parts[2]
            yield {"text": source, "label": 0, "pair": f"mucgec-{sid}", "kind": "learner_error"}
            yield {"text": reference, "label": 1, "pair": f"mucgec-{sid}", "kind": "reference"}


def english_requests(data: Path | None = None) -> list[str]:
    data = data_dir(data)
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


def english_gec_pairs(n: int = 2000, seed: int = 0, data: Path | None = None) -> Iterator[dict]:
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


_KEYS = "qwertyuiopasdfghjklzxcvbnm"
_COMMON_HAN = ("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里"
               "后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长")


def intent_eval_rows(lang: str = "all", n: int = 600, seed: int = 0, data: Path | None = None) -> list[dict]:
    import yaml

    spec = yaml.safe_load(INTENT_EVAL.read_text(encoding="utf-8"))
    rng = random.Random(seed)
    rows: list[dict] = []
    langs = ("en", "zh") if lang == "all" else (lang,)
    if "en" in langs:
        data = data_dir(data)
        clinc = json.loads((data / "clinc150" / "clinc150_train_val.json").read_text(encoding="utf-8"))
        with open(data / "banking77" / "train.csv", encoding="utf-8") as f:
            banking = [row["text"] for row in csv.DictReader(f)]
        pool = sorted({u for u, _ in clinc["val"]}) + sorted(set(banking))
        rows += [{"text": t, "label": 1, "lang": "en", "kind": "clear"} for t in rng.sample(pool, min(n, len(pool)))]
        mashes = {"".join(rng.choice(_KEYS) for _ in range(rng.randint(4, 12))) for _ in range(40)}
        rows += [{"text": t, "label": 0, "lang": "en", "kind": "gibberish"} for t in sorted(mashes)]
    if "zh" in langs:
        rows += [{"text": t, "label": 1, "lang": "zh", "kind": "clear"} for t in spec["clear"]["zh"]]
        mashes = {"".join(rng.choice(_COMMON_HAN) for _ in range(rng.randint(3, 8))) for _ in range(40)}
        rows += [{"text": t, "label": 0, "lang": "zh", "kind": "gibberish"} for t in sorted(mashes)]
    for lg in langs:
        for kind, texts in spec["unclear"][lg].items():
            rows += [{"text": str(t), "label": 0, "lang": lg, "kind": kind} for t in texts]
    return rows


def clinc_oos_sets(data: Path | None = None) -> tuple[list[dict], list[dict]]:
    data = data_dir(data)
    clinc = json.loads((data / "clinc150" / "clinc150_train_val.json").read_text(encoding="utf-8"))
    train = [{"text": u, "label": y} for u, y in clinc["train"]] + [{"text": u, "label": "oos"}
                                                                   for u, _ in clinc["oos_train"]]
    val = [{"text": u, "label": 1, "kind": "in_scope"} for u, _ in clinc["val"]] + [
        {"text": u, "label": 0, "kind": "oos"} for u, _ in clinc["oos_val"]]
    return train, val


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser, summary

    ap = command_parser("eval-sets", summary(__doc__))
    ap.add_argument("set", choices=("mucgec", "en-gec", "intent", "clinc-oos"), help="which set to build")
    ap.add_argument("--lang", choices=("en", "zh", "all"), default="all", help="intent set only: its languages")
    ap.add_argument("--out", required=True, type=Path, metavar="OUT",
                    help="the JSONL file to write (clinc-oos: a folder for train.jsonl and val.jsonl)")
    add_data_option(ap, "read from")
    ap.add_argument("--n", type=int, help="en-gec: pairs (default 2000); intent: English clear requests (600)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sampling and the corruptions")
    return ap


def main(argv: list[str] | None = None) -> int:
    from schemas.jsonl import write_jsonl

    args = build_parser().parse_args(argv)
    try:
        args.data = data_dir(args.data)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    if not args.data.is_dir():
        print(f"error: no evaluation data at {args.data}", file=sys.stderr)
        return 2
    if args.set == "clinc-oos":
        train, val = clinc_oos_sets(args.data)
        args.out.mkdir(parents=True, exist_ok=True)
        print(f"{write_jsonl(args.out / 'train.jsonl', train)} training lines -> {args.out / 'train.jsonl'}; "
              f"{write_jsonl(args.out / 'val.jsonl', val)} labelled lines -> {args.out / 'val.jsonl'}")
        return 0
    if args.set == "intent":
        rows = intent_eval_rows(args.lang, args.n or 600, args.seed, args.data)
    elif args.set == "mucgec":
        rows = mucgec_pairs(args.data)
    else:
        rows = english_gec_pairs(args.n or 2000, args.seed, args.data)
    print(f"{write_jsonl(args.out, rows)} labelled lines -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
