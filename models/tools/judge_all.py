"""``qabase score all``: every judgement the build makes about a question (and its answer), with the reasons.

    python -m models.tools.score all --input FILE [--config CONFIG.yaml] [--output OUT.jsonl]

FILE: JSONL with ``text`` (the question) and optionally ``answer``, or plain text with one question per
line (``question<TAB>answer`` for a pair). For each row, with the models and thresholds of the config
(the defaults without one): the language and whether the build keeps it, the GEC and intent scores
(chit-chat scores low on intent), the time-sensitivity judgement, the non-answer judgement of the
answer, and the verdict the build would reach for a question asked with only that answer:
``kept`` (``kept, time_sensitive:<cue>`` when flagged) or the first reason it leaves:
``unsupported_language``, ``low_gec``, ``low_intent``, a further question judge's reason (``no_subject``: it
cannot stand alone; joined with ``+`` as in questions.parquet), ``time_sensitive (<cue>)`` under policy drop, or
``no_valid_answer (<reason>)``.
"""

from __future__ import annotations

import json
from pathlib import Path

from schemas.errors import QabaseError
from schemas.text import clip_to_width, pad_to_width


def read_pairs(path: Path) -> list[tuple[str, str | None]]:
    from schemas.jsonl import iter_jsonl, read_text_input

    if path.suffix in (".jsonl", ".json"):
        out = []
        for n, obj in iter_jsonl(path):
            if not isinstance(obj.get("text"), str):
                raise QabaseError(f"input: {path}:{n} has no string 'text' field")
            answer = obj.get("answer")
            out.append((obj["text"], answer if isinstance(answer, str) else None))
        return out
    rows = []
    for line in read_text_input(path).splitlines():
        if line.strip():
            q, _, a = line.partition("\t")
            rows.append((q, a or None))
    return rows


def judge_all(pairs: list[tuple[str, str | None]], cfg) -> list[dict]:
    from models import registry
    from models.factory import question_sections
    from models.language.detector import shared_detector

    gate = cfg.input
    keep_all = not gate.languages or "all" in gate.languages
    detector = shared_detector(gate.language_detector)
    langs = [detector.detect_one(q) for q, _ in pairs]
    scored_lang = [lg if lg in ("en", "zh", "mixed") else "other" for lg, _ in langs]
    texts = [q for q, _ in pairs]
    models = registry.scoring_models(cfg.models)
    gec: list = [None] * len(pairs)
    for scorer, wanted in ((models.gec_en, ("en", "other")), (models.gec_zh, ("zh", "mixed"))):
        idx = [i for i, lg in enumerate(scored_lang) if lg in wanted]
        for i, res in zip(idx, scorer.score([texts[i] for i in idx]) if idx else []):
            gec[i] = res
    intents, vectors = models.intent.score_with_vectors(texts, scored_lang)
    flags = question_flags(registry.configured_judges(question_sections(cfg), cfg.models), texts, scored_lang)
    time_rows = [(0.0, "")] * len(pairs)
    if cfg.time_sensitive.policy != "keep":
        det = registry.judge_model("time_sensitive", cfg.time_sensitive, cfg.models)
        spaces, own = det.embedders(), models.intent.embedders()
        # scoring's vectors when the detector reads the same space (as the build does)
        reuse = [vectors[i] if spaces.get(det.space(lg)) is not None and own.get(models.intent.space(lg)) is not None
                 and spaces[det.space(lg)].model_id == own[models.intent.space(lg)].model_id else None
                 for i, lg in enumerate(scored_lang)]
        time_rows = det.score(texts, scored_lang, reuse)
    with_answer = [i for i, (_, a) in enumerate(pairs) if a]
    na: dict[int, tuple[float, str]] = {}
    if with_answer:
        judged = registry.judge_model("non_answer", cfg.non_answer, cfg.models).score(
            [(pairs[i][0], pairs[i][1], scored_lang[i]) for i in with_answer])
        na = dict(zip(with_answer, judged))
    out = []
    for i, (q, a) in enumerate(pairs):
        lang, lang_p = langs[i]
        g, gd = gec[i]
        s, sd = intents[i]
        t_score, t_reason = time_rows[i]
        a_score, a_reason = na.get(i, (None, ""))
        supported = lang == "other" or keep_all or lang in gate.languages
        low = quality_flags(g, s, cfg.filter)
        if not supported:
            verdict = "unsupported_language"
        elif low or flags[i]:
            verdict = "+".join(low + flags[i])
        elif t_reason and cfg.time_sensitive.policy == "drop":  # dropped before its answers are judged
            verdict = f"time_sensitive ({t_reason})"
        elif a_reason:
            verdict = f"no_valid_answer ({a_reason})"
        else:
            verdict = "kept" + (f", time_sensitive:{t_reason}" if t_reason else "")
        out.append({"text": q, "answer": a, "lang": lang, "lang_score": round(float(lang_p), 4),
                    "gec": round(float(g), 4), "intent": round(float(s), 4),
                    "chitchat": sd.get("chitchat") if isinstance(sd, dict) else None,
                    "time_sensitive": bool(t_reason), "time_score": round(float(t_score), 4), "time_reason": t_reason,
                    "non_answer": bool(a_reason), "non_answer_score": None if a_score is None else round(a_score, 4),
                    "non_answer_reason": a_reason, "question_flags": flags[i], "verdict": verdict, "gec_details": gd, "intent_details": sd})
    return out


def quality_flags(gec: float, intent: float, filt) -> list[str]:
    """``low_gec`` and ``low_intent`` where the GEC and intent judges flag a question: the score stage's decision
    (models.factory.filter_verdicts)."""
    from models.factory import filter_verdicts
    from models.gec.base import REASON as LOW_GEC
    from models.intent.base import REASON as LOW_INTENT
    from schemas.judgement import Judgement

    return [reason for reason in filter_verdicts(Judgement(gec, LOW_GEC), Judgement(intent, LOW_INTENT), filt)
            if reason]


def question_flags(judges, texts: list[str], langs: list[str]) -> list[list[str]]:
    """Per question, the reasons of the further question judges (models.registry.JUDGES) that flag it
    at their config thresholds, in wiring order (the build's order: after low_gec / low_intent)."""
    out: list[list[str]] = [[] for _ in texts]
    for judge in judges:
        for i, (_, reason) in enumerate(judge.decide(judge.judgements(texts, langs), langs)):
            if reason:
                out[i].append(reason)
    return out


def table(rows: list[dict]) -> str:
    head = (f"{'lang':<5} {'gec':>5} {'intent':>6} {'time':>5} {'non-ans':>7}  {pad_to_width('question', 34)} "
            f"{pad_to_width('answer', 30)} verdict")
    lines = [head, "-" * 120]
    for r in rows:
        na = "-" if r["non_answer_score"] is None else f"{r['non_answer_score']:.2f}"
        lines.append(f"{r['lang']:<5} {r['gec']:>5.2f} {r['intent']:>6.2f} {r['time_score']:>5.2f} {na:>7}  "
                     f"{pad_to_width(clip_to_width(r['text'], 32), 34)} {pad_to_width(clip_to_width(r['answer'] or '', 28), 30)} {r['verdict']}")
    return "\n".join(lines)


def build_parser():
    from schemas.commandline import command_parser, summary

    ap = command_parser("score all", summary(__doc__))
    ap.add_argument("--input", required=True, type=Path, metavar="FILE",
                    help="questions, or question TAB answer, one per line; or JSONL with text (and answer)")
    ap.add_argument("--config", type=Path, metavar="FILE.yaml",
                    help="a build config (models, thresholds, policies); default: the defaults")
    ap.add_argument("--output", type=Path, metavar="OUT.jsonl", help="one JSON object per row instead of the table")
    return ap


def main(argv: list[str]) -> int:
    import sys

    args = build_parser().parse_args(argv)
    from models.config_check import load_config
    from schemas.logs import setup_logging

    setup_logging(quiet=True)
    try:
        cfg = load_config(args.config)
        rows = judge_all(read_pairs(args.input), cfg)
    except QabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.output:
        args.output.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        print(f"{len(rows)} rows -> {args.output}")
    else:
        print(table(rows))
    return 0
