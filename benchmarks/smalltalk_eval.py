"""Chit-chat against real requests: how well the intent scorer keeps one and drops the other (issue 14).

    python benchmarks/smalltalk_eval.py [--data ../shared/data] [--requests 200] [--intent prototype]

Small talk: benchmarks/smalltalk.jsonl (written for this project: 60 English and 60 Chinese turns aimed
at the bot or the user's own life, "Do you have any pets?", "你今天吃饭了吗？"), with 50 Chinese requests of
the kind a Chinese chatbot gets (连续吐了一个晚上怎么办, 唐宋八大家是哪八位). English requests: a seeded
sample of CLINC150 val utterances (../shared/data; left out when absent). Per language: intent AUROC
(requests over small talk), the share of each kept at the default threshold (filter.intent_threshold),
and the same AUROC for a length-only baseline.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def labelled(data: Path, n_requests: int) -> list[dict]:
    rows = [json.loads(line) for line in open(HERE / "smalltalk.jsonl", encoding="utf-8")]
    clinc = data / "clinc150" / "clinc150_train_val.json"
    if clinc.is_file():
        val = sorted({u for u, _ in json.loads(clinc.read_text(encoding="utf-8"))["val"]})
        rows += [{"text": t, "label": 1, "lang": "en", "kind": "request"}
                 for t in random.Random(0).sample(val, min(n_requests, len(val)))]
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=HERE.parent.parent / "shared" / "data")
    ap.add_argument("--requests", type=int, default=200, help="CLINC150 val utterances as English requests")
    ap.add_argument("--intent", default="prototype", help="models.intent: prototype or classifier:/dir")
    args = ap.parse_args(argv)
    from models.registry import intent_scorer
    from models.tools.evaluate import auroc
    from schemas.config import FilterConfig, ModelsConfig

    rows = labelled(args.data, args.requests)
    scorer = intent_scorer(ModelsConfig(intent=args.intent))
    scores = [s for s, _ in scorer.score([r["text"] for r in rows], [r["lang"] for r in rows])]
    threshold = FilterConfig().intent_threshold
    out = {}
    print(f"| language | requests / small talk | intent AUROC | length AUROC | requests kept | small talk kept "
          f"(threshold {threshold}) |\n|---|---|---|---|---|---|")
    for lang in ("en", "zh"):
        idx = [i for i, r in enumerate(rows) if r["lang"] == lang]
        y = [rows[i]["label"] for i in idx]
        if len(set(y)) < 2:
            continue
        s = [scores[i] for i in idx]
        kept = lambda label: sum(1 for i in idx if rows[i]["label"] == label and scores[i] > threshold) / \
            max(sum(1 for i in idx if rows[i]["label"] == label), 1)  # noqa: E731
        out[lang] = {"requests": sum(y), "smalltalk": len(y) - sum(y), "auroc": round(auroc(s, y), 3),
                     "length_auroc": round(auroc([len(rows[i]["text"]) for i in idx], y), 3),
                     "requests_kept": round(kept(1), 3), "smalltalk_kept": round(kept(0), 3)}
        o = out[lang]
        print(f"| {lang} | {o['requests']} / {o['smalltalk']} | {o['auroc']:.3f} | {o['length_auroc']:.3f} | "
              f"{o['requests_kept']:.3f} | {o['smalltalk_kept']:.3f} |")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
