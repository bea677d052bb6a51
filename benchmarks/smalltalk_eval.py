"""Chit-chat against real requests, held out: how well the intent scorer keeps one and drops the other (issue 14).

    python benchmarks/smalltalk_eval.py [--data ../shared/data] [--intent prototype] [--cache DIR] [--json OUT]

Held-out rows only (the chit-chat head is fitted on benchmarks/smalltalk_dev.jsonl, CLINC150 train and
LCQMC's even lines by ``python -m models.tools.train_chitchat``, which prints the development table):

* small talk (label 0) and written requests (label 1): benchmarks/smalltalk.jsonl (the baseline set:
  60 + 60 turns, 50 Chinese requests) and benchmarks/smalltalk_heldout.jsonl (written after the head
  was fitted: PersonaChat-style turns, the issue's examples, persona templates of their own, and
  requests in both languages);
* English requests: CLINC150 **val**, in scope, without the small_talk domain (2,700);
* side columns, kept at the threshold only: CLINC150 val's small_talk domain ("what are your
  hobbies": chit-chat, so lower is right), LCQMC's odd lines (600 Baidu Zhidao questions, a few
  of them chit-chat) and BQ (500 bank customer-service questions).

Per language: AUROC (written + CLINC requests in English, written in Chinese, over small talk) and the
share kept at the default threshold (filter.intent_threshold), for the previous default (the prototype
score alone), the scorer named by ``--intent`` (default: today's default, capped by the chit-chat
head), and two trivial baselines: text length (its cut set on the development rows to keep 95% of
their requests) and a keyword list (dropped when it has a second-person word: you/your/u…, 你).
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def bq_questions(data: Path, n: int, seed: int = 0) -> list[dict]:
    with open(data / "paraphrase_zh" / "bq_dev.csv", encoding="utf-8-sig", newline="") as f:
        pool = sorted({row["sentence1"].strip() for row in csv.DictReader(f) if row["sentence1"].strip()})
    picked = random.Random(seed).sample(pool, min(n, len(pool)))
    return [{"text": t, "label": 1, "lang": "zh", "kind": "bq", "source": "bq"} for t in picked]


def heldout_rows(data: Path) -> list[dict]:
    from models.tools.train_chitchat import clinc_requests, lcqmc_questions, read_rows

    rows = [dict(r, set="smalltalk.jsonl") for r in read_rows(HERE / "smalltalk.jsonl")]
    rows += [dict(r, set="smalltalk_heldout.jsonl" if r["kind"] != "persona_template" else "persona templates")
             for r in read_rows(HERE / "smalltalk_heldout.jsonl")]
    if (data / "clinc150").is_dir():
        requests, chat = clinc_requests(data, "val", None)
        rows += requests + [dict(r, source="clinc_small_talk") for r in chat]
    if (data / "paraphrase_zh").is_dir():
        fitted = {r["text"] for r in lcqmc_questions(data, 0, 10**9)}
        rows += lcqmc_questions(data, 1, 600, exclude=fitted) + bq_questions(data, 500)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=HERE.parent.parent / "shared" / "data")
    ap.add_argument("--intent", default="prototype", help="models.intent: prototype or classifier:/dir")
    ap.add_argument("--cache", type=Path, help="a folder for a vector cache")
    ap.add_argument("--json", type=Path, help="also write the table as JSON")
    args = ap.parse_args(argv)
    import numpy as np

    from models.registry import model_key_model
    from models.tools.train_chitchat import DEV_FILE, dev_rows, length_cut, markdown, prototype_scorer, table
    from schemas.config import FilterConfig, ModelsConfig
    from schemas.logs import setup_logging

    setup_logging(False, False)
    rows = heldout_rows(args.data)
    texts, langs = [r["text"] for r in rows], [r["lang"] for r in rows]
    cache = str(args.cache) if args.cache else None
    if args.cache:
        args.cache.mkdir(parents=True, exist_ok=True)
    previous = np.array([s for s, _ in prototype_scorer(args.cache).score(texts, langs)])
    scorer = model_key_model("intent", ModelsConfig(intent=args.intent), cache_dir=cache)
    new = np.array([s for s, _ in scorer.score(texts, langs)])
    dev = dev_rows(HERE / DEV_FILE, args.data) if args.data.is_dir() else []
    cuts = {lang: length_cut(dev, lang) for lang in ("en", "zh")}
    threshold = FilterConfig().intent_threshold
    name = f"{args.intent} ({scorer.model_id.split('[')[0]})"
    tab = table(rows, {"previous default (prototype)": previous, name: new}, cuts, threshold)
    print(markdown(tab, f"Held-out rows, kept at filter.intent_threshold = {threshold}:"))
    print("\nSmall talk kept, by set (previous default -> new):")
    for lang in ("en", "zh"):
        for name in ("smalltalk.jsonl", "smalltalk_heldout.jsonl", "persona templates"):
            m = np.array([r["lang"] == lang and r["label"] == 0 and r.get("set") == name for r in rows])
            if m.any():
                print(f"  {lang} {name} ({int(m.sum())}): {np.mean(previous[m] > threshold):.3f} -> "
                      f"{np.mean(new[m] > threshold):.3f}")
    if args.json:
        args.json.write_text(json.dumps(tab, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
