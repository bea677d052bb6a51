"""Scorer quality on public evaluation data, beside a length-only baseline: the table in
docs/measurements/scorer-quality.md.

    python benchmarks/scorer_quality.py [--data ../shared/data] [--skip-clinc-head]

Builds the labelled sets of ``models.tools.eval_sets`` in memory (MuCGEC dev pairs; English
corruption pairs from CLINC150 train + BANKING77, 1,000 pairs, seed 0; the intent set
in each language; CLINC150 in scope vs out of scope), scores them with each backend,
trains a CLINC150 intent head on train (MiniLM vectors) for the last row, and prints
a Markdown table. Figures also go to benchmarks/results/scorer_quality.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


def _split(rows: list[dict]) -> tuple[list[str], list[int], list, list]:
    return ([r["text"] for r in rows], [int(r["label"]) for r in rows], [r.get("pair") for r in rows],
            [r.get("kind") for r in rows])


def evaluate(name: str, kind: str, rows: list[dict], backend: str, model_dir: str | None = None) -> dict:
    from models.tools.evaluate import report
    from models.tools.score import score_texts
    from schemas.config import FilterConfig

    texts, labels, pairs, kinds = _split(rows)
    t = time.perf_counter()
    scores = [r["score"] for r in score_texts(kind, texts, backend, model_dir)]
    seconds = time.perf_counter() - t
    threshold = FilterConfig().gec_threshold if kind == "gec" else FilterConfig().intent_threshold
    out = report(scores, labels, pairs, texts, threshold, kinds)
    out.update(set=name, backend=backend, seconds=round(seconds, 1))
    print(f"  {name:28} {backend:14} AUROC {out['auroc']:.3f} (length {out['baseline_length_auroc']:.3f})"
          + (f", pairwise {out['pairwise_accuracy']:.3f} (length {out['baseline_length_pairwise_accuracy']:.3f})"
             if "pairwise_accuracy" in out else "") + f"  [{seconds:.0f}s]", flush=True)
    return out


def markdown(results: list[dict]) -> str:
    lines = ["| set | backend | n | AUROC | length AUROC | length-matched AUROC (length) | pairwise acc. "
             "(length) | P / R at threshold |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        lm = r.get("length_matched")
        matched = f"{lm['auroc']:.3f} ({lm['baseline_length_auroc']:.3f})" if lm else "—"
        pw = (f"{r['pairwise_accuracy']:.3f} ({r['baseline_length_pairwise_accuracy']:.3f})"
              if r.get("pairwise_accuracy") is not None else "—")
        at = r["at_threshold"]
        lines.append(f"| {r['set']} | {r['backend']} | {r['n']:,} | **{r['auroc']:.3f}** | "
                     f"{r['baseline_length_auroc']:.3f} | {matched} | {pw} | "
                     f"{at['precision']:.2f} / {at['recall']:.2f} at {at['threshold']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    from models.tools.paths import find_data

    ap.add_argument("--data", type=Path, default=find_data() or HERE.parent.parent / "shared" / "data")
    ap.add_argument("--skip-clinc-head", action="store_true")
    args = ap.parse_args(argv)
    if not args.data.is_dir():
        print(f"error: no evaluation data at {args.data}", file=sys.stderr)
        return 2
    from models.tools.eval_sets import clinc_oos_sets, english_gec_pairs, intent_eval_rows, mucgec_pairs
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    results = []
    mucgec = list(mucgec_pairs(args.data))
    en_gec = list(english_gec_pairs(1000, 0, args.data))
    for backend in ("zh-ngram", "zh-heuristic"):
        results.append(evaluate("GEC zh: MuCGEC dev", "gec", mucgec, backend))
    for backend in ("quire-ngram", "quire"):
        results.append(evaluate("GEC en: corruption pairs", "gec", en_gec, backend))
    for lang in ("en", "zh"):
        results.append(evaluate(f"intent {lang}: clear vs unclear", "intent", intent_eval_rows(lang, 600, 0, args.data),
                                "prototype"))
    train, val = clinc_oos_sets(args.data)
    results.append(evaluate("CLINC150 in scope vs oos", "intent", val, "prototype"))
    if not args.skip_clinc_head:
        from models.intent.classifier import UNCLEAR_NAMES
        from models.registry import load_embedder
        from models.tools.train_intent import train as train_head

        with tempfile.TemporaryDirectory() as tmp:
            t = time.perf_counter()
            train_head([r["text"] for r in train], [r["label"] for r in train], Path(tmp), load_embedder("minilm"),
                       set(UNCLEAR_NAMES), embedder_spec="minilm")
            print(f"  trained the CLINC150 head in {time.perf_counter() - t:.0f}s", flush=True)
            results.append(evaluate("CLINC150 in scope vs oos", "intent", val, "classifier", tmp))
    print()
    print(markdown(results))
    out = HERE / "results"
    out.mkdir(exist_ok=True)
    (out / "scorer_quality.json").write_text(json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
