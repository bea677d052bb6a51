"""Score questions from the command line with the same scorers the pipeline uses.

    python -m models.tools.score gec|intent --input FILE [--output OUT.jsonl] [--backend NAME] [--model-dir DIR]
    python -m models.tools.score all --input FILE [--config CONFIG.yaml] [--output OUT.jsonl]

``all`` shows every judgement the build makes (language, GEC, intent, time-sensitivity, non-answer) and
its verdict, with reasons: see models/tools/judge_all.py. The rest of this page is about gec and intent.

FILE is plain text (one question per line) or JSONL with a ``text`` field. With
``--output``, one JSON object per input line, in the same order:
``{"text": ..., "lang": ..., "score": float, "details": {...}}``; without it, a
table on stdout.

Backends: gec ``auto`` (quire-ngram for English, zh-ngram for Chinese; default),
``quire-ngram``, ``quire``, ``zh-ngram``, ``zh-heuristic``, ``lm`` and ``seq2seq`` (with ``--model-dir``: any local
causal LM, or any local T5/BART-style corrector);
intent ``prototype`` (default), where ``--model-dir`` gives a local Hugging Face
encoder directory for both languages, and ``classifier`` (with ``--model-dir``: a head
from ``python -m models.tools.train_intent`` or a local sequence-classification model).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from models import registry
from schemas.errors import QabaseError
from schemas.text import detect_lang, pad_to_width, truncate

# "auto": the defaults per language; lm / seq2seq / classifier take --model-dir
GEC_BACKENDS = ("auto", *registry.GEC_BACKENDS, "lm", "seq2seq")
INTENT_BACKENDS = (*registry.INTENT_BACKENDS, "classifier")


def resolve_backend(kind: str, backend: str | None) -> str:
    allowed = GEC_BACKENDS if kind == "gec" else INTENT_BACKENDS
    chosen = backend or allowed[0]
    if chosen not in allowed:
        raise QabaseError(f"usage: {kind} backend must be one of {', '.join(allowed)}, got {chosen!r}")
    return chosen


def read_texts(path: Path) -> list[str]:
    from schemas.jsonl import iter_jsonl, read_text_input

    if path.suffix not in (".jsonl", ".json"):
        return read_text_input(path).splitlines()
    texts = []
    for n, obj in iter_jsonl(path):
        if not isinstance(obj.get("text"), str):
            raise QabaseError(f"input: {path}:{n} has no string 'text' field")
        texts.append(obj["text"])
    return texts


def score_texts(kind: str, texts: list[str], backend: str, model_dir: str | None) -> list[dict]:
    from schemas.config import ModelsConfig

    langs = [detect_lang(t) for t in texts]
    if kind == "gec":
        needs_dir = backend in ("lm", "seq2seq")
        if needs_dir != bool(model_dir):
            raise QabaseError("usage: the gec backends lm and seq2seq need --model-dir DIR; the others take none")
        if needs_dir:
            backend = f"{backend}:{model_dir}"
        results: list = [None] * len(texts)
        # the defaults' scorer of each side, or the one asked for on every text (either key reads GEC's one table)
        routes = [("gec_en", ModelsConfig(), ("en", "other")), ("gec_zh", ModelsConfig(), ("zh", "mixed"))] \
            if backend == "auto" else [("gec_en", ModelsConfig(gec_en=backend), None)]
        for key, models_cfg, wanted in routes:
            idx = [i for i, lg in enumerate(langs) if wanted is None or lg in wanted]
            if idx:
                for i, res in zip(idx, registry.model_key_model(key, models_cfg).score([texts[i] for i in idx])):
                    results[i] = res
    elif backend == "classifier":
        if not model_dir:
            raise QabaseError("usage: the intent backend classifier needs --model-dir DIR")
        results = registry.model_key_model("intent", ModelsConfig(intent=f"classifier:{model_dir}")).score(texts,
                                                                                                          langs)
    else:
        cfg = ModelsConfig()
        if model_dir:
            if not Path(model_dir).is_dir():
                raise QabaseError(f"usage: --model-dir {model_dir} is not a directory")
            cfg = ModelsConfig(intent_embedder_en=f"hf:{model_dir}", intent_embedder_zh=f"hf:{model_dir}")
        results = registry.model_key_model("intent", cfg).score(texts, langs)
    return [{"text": t, "lang": lg, "score": round(float(s), 4), "details": d}
            for t, lg, (s, d) in zip(texts, langs, results)]


def _why(kind: str, details: dict) -> str:
    if kind == "gec":
        parts = []
        if details.get("unknown_words"):
            parts.append("unknown: " + ",".join(details["unknown_words"]))
        if details.get("tagger_edits"):
            parts.append("tagger: " + ",".join(f"{e['word']}→{e['tag']}" for e in details["tagger_edits"]))
        if details.get("rules"):
            parts.append("rules: " + ",".join(r["rule"] for r in details["rules"]))
        for key in ("doubled", "punct_runs", "latin_inside_words"):
            if details.get(key):
                parts.append(f"{key}: " + ",".join(details[key]))
        if details.get("stray_symbols"):
            parts.append("stray: " + details["stray_symbols"])
        if "fluency" in details:
            why = [f"z {details['z']:+.1f}"] if details.get("z") is not None else ["no word pairs"]
            if details.get("least_likely"):
                why.append(f"least likely '{details['least_likely']}'")
            parts.append(f"fluency {details['fluency']:.2f} ({', '.join(why)})")
        return "; ".join(parts) or "-"
    signals = details.get("signals", {})
    sig = ",".join(f"{k}{v:+.1f}" for k, v in signals.items())
    return f"margin {details.get('margin', 0):+.3f}/{details.get('scale', 0):.3f}" + (f"; {sig}" if sig else "")


def table(kind: str, rows: list[dict]) -> str:
    lines = [f"{'score':>6}  {'lang':<5} {pad_to_width('text', 42)} why", "-" * 100]
    for r in rows:
        lines.append(f"{r['score']:>6.3f}  {r['lang']:<5} {pad_to_width(truncate(r['text'], 40), 42)} "
                     f"{_why(kind, r['details'])}")
    return "\n".join(lines)


def scorer_parser(command: str, doc: str, add_arguments, epilog: str | None = None) -> argparse.ArgumentParser:
    """The shared arguments of the scorer tools (kind, --input, --backend, --model-dir); ``add_arguments(parser)``
    adds the tool's own."""
    from schemas.commandline import command_parser, summary

    ap = command_parser(command, summary(doc), epilog=epilog)
    ap.add_argument("kind", choices=("gec", "intent"), help="gec: is it well written; intent: is it a clear request")
    ap.add_argument("--input", required=True, type=Path, metavar="FILE",
                    help="text (one question per line) or JSONL with a text field")
    ap.add_argument("--backend", help=f"the scorer; gec: {', '.join(GEC_BACKENDS)} (default {GEC_BACKENDS[0]}); "
                                      f"intent: {', '.join(INTENT_BACKENDS)} (default {INTENT_BACKENDS[0]})")
    ap.add_argument("--model-dir", metavar="DIR",
                    help="a local model directory, for the backends that load one (gec lm and seq2seq; intent "
                         "prototype and classifier)")
    add_arguments(ap)
    return ap


def run_scorer_cli(ap: argparse.ArgumentParser, argv: list[str] | None, run) -> int:
    """The shared shell of the scorer tools: one-line errors, exit 2. ``run(args, backend)`` does the work."""
    args = ap.parse_args(argv)
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    try:
        return run(args, resolve_backend(args.kind, args.backend))
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _score(args, backend: str) -> int:
    rows = score_texts(args.kind, read_texts(args.input), backend, args.model_dir)
    if args.output:
        from schemas.jsonl import write_jsonl

        print(f"{write_jsonl(args.output, rows)} scores -> {args.output}")
    else:
        print(table(args.kind, rows))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["all"]:  # every judgement of the build at once (models.tools.judge_all)
        from models.tools.judge_all import main as judge_main

        return judge_main(argv[1:])
    return run_scorer_cli(build_parser(), argv, _score)


def build_parser() -> argparse.ArgumentParser:
    return scorer_parser("score", __doc__, lambda ap: ap.add_argument(
        "--output", type=Path, metavar="OUT.jsonl", help="one JSON object per input line instead of the table"),
        epilog="qabase score all --input FILE: every judgement the build makes, with its verdict "
               "(qabase score all --help)")


if __name__ == "__main__":
    sys.exit(main())
