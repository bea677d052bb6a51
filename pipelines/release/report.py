"""The data quality report of a version: one self-contained HTML file and a JSON file with the same figures.

Written into the version folder at build time (``report.html``, ``report.json``, and the base browser
``browse.html``: pipelines.release.browse) and rebuilt on demand by ``qabase report``
(pipelines.commands.report, which holds the build lock while it writes). The HTML has no
external references: the
charts are PNGs embedded as data URIs, the styles are inline, and every piece of
log text (questions, rejected rows, reasons) is HTML-escaped. Report files are not
in the manifest's checksums: they can be regenerated.

Figures: the funnel (rows read, valid, distinct questions, passed GEC, passed intent,
top K, published), score histograms with the thresholds drawn, rejection reasons with
examples, paraphrase merges (the biggest entries with all their forms, and the merges the judge was least
sure of, so a person can check them), the judges' sections in wiring order (models.registry.JUDGES: non-answers by
reason with examples, the least sure, the questions withheld because every answer was one; time-sensitive questions
by cue, with the logs' period; instruction-like answers; and for each further judge a build applied, what it dropped
or shut out, by its reasons), the topics of the
entries (size, asks, flagged and least reliable entries, words), the frequency distribution of the base (log scale), question types,
answers and viewpoints per question, languages, and time per stage.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections import Counter
from pathlib import Path

import numpy as np

from models import registry
from schemas.documents import REPORT_FORMAT
from schemas.judgement import ANSWER, QUESTION
from schemas.layout import BROWSE_FILE, QA_FILE, QUESTIONS_FILE, REJECTED_FILE, TOPICS_FILE
from schemas.review_outcome import EXCLUDED_REASON
from schemas.tables import SHOWN_FILES, rows_as_shown

EXAMPLES_PER_REASON = 3
MERGES_SHOWN = 15


def merges(questions: list[dict], qa: list[dict]) -> dict:
    """The biggest merged entries (by number of forms) and the least sure merges (lowest judge probability)."""
    biggest = sorted((r for r in qa if len(r["aliases"] or []) > 1),
                     key=lambda r: (-len(r["aliases"]), r["rank"]))[:MERGES_SHOWN]
    merged = [q for q in questions if q["merged_into_reason"]]
    # the judge's merges (a reviewer's have no probability: docs/review.md)
    judged = [q for q in merged if q["merge_probability"] is not None]
    closest = sorted(judged, key=lambda q: (q["merge_probability"], q["question"]))[:MERGES_SHOWN]
    return {
        "merged_questions": len(merged),
        "entries_with_aliases": sum(1 for r in qa if len(r["aliases"] or []) > 1),
        "biggest": [{"rank": r["rank"], "question": r["question"], "frequency": r["frequency"],
                     "forms": [[a["question"], a["count"]] for a in r["aliases"]]} for r in biggest],
        "least_sure": [{"question": q["question"], "frequency": q["frequency"], "probability": q["merge_probability"],
                        "reason": q["merged_into_reason"], "kept_entry": q["qid"] is not None} for q in closest],
    }


def non_answers(questions: list[dict], qa: list[dict]) -> dict:
    """Answers judged non-answers in the published entries, by reason with examples, the least sure of them,
    and the questions withheld because every answer was one."""
    flagged = [(r, a) for r in qa for a in (r.get("answers") or []) if a.get("non_answer")]
    by_reason: dict[str, list] = {}
    for r, a in flagged:
        by_reason.setdefault(a["non_answer_reason"] or "non_answer", []).append((r, a))
    withheld = sorted((q for q in questions if q["reason"] == "no_valid_answer"), key=lambda q: -q["frequency"])
    return {
        "answers_in_base": sum(len(r.get("answers") or []) for r in qa),
        "non_answers_in_base": len(flagged),
        "rows_in_base": sum(r["total_answers"] for r in qa),
        "non_answer_rows_in_base": sum(r.get("non_answers") or 0 for r in qa),
        "entries_with_non_answers": sum(1 for r in qa if r.get("non_answers")),
        "by_reason": {k: {"answers": len(v), "examples": [[r["question"], a["text"][:200], a["non_answer_score"]]
                                                           for r, a in v[:EXAMPLES_PER_REASON]]}
                      for k, v in sorted(by_reason.items(), key=lambda kv: -len(kv[1]))},
        "least_sure": [[r["question"], a["text"][:200], a["non_answer_score"], a["non_answer_reason"]]
                       for r, a in sorted(flagged, key=lambda ra: (ra[1]["non_answer_score"], ra[0]["rank"]))
                       [:MERGES_SHOWN]],
        "withheld": [[q["question"], q["frequency"], q.get("non_answer_share")] for q in withheld[:MERGES_SHOWN]],
        "withheld_count": len(withheld),
    }


def time_sensitivity(questions: list[dict], qa: list[dict], policy: str) -> dict:
    """Questions judged time-sensitive (all, and those in the base) by cue family, with examples and periods."""
    judged = [q for q in questions if q.get("time_sensitive")]
    by_reason: dict[str, list] = {}
    for r in qa:
        if r.get("time_sensitive"):
            by_reason.setdefault(r.get("time_sensitive_reason") or "time_sensitive", []).append(r)
    def period(r):  # noqa: E306
        p = r.get("logs_period")
        return f"{p['first']} .. {p['last']}" if p else "no timestamps"
    return {
        "policy": policy,
        "questions": len(judged),
        "in_base": sum(len(v) for v in by_reason.values()),
        "dropped": sum(1 for q in questions if q["reason"] == "time_sensitive"),
        "by_reason": {k: {"entries": len(v), "examples": [[r["question"], period(r), r["answer"][:120]]
                                                          for r in v[:EXAMPLES_PER_REASON]]}
                      for k, v in sorted(by_reason.items(), key=lambda kv: -len(kv[1]))},
        "not_in_base": [[q["question"], q["time_sensitive_reason"], q["reason"]]
                        for q in sorted(judged, key=lambda q: -q["frequency"]) if q["qid"] is None][:MERGES_SHOWN],
    }


def further_judge(kind, questions: list[dict], qa: list[dict]) -> dict:
    """What a judge without columns of its own (schemas.judgement.JudgeKind) did in a version, read from its
    reasons: the questions it dropped (questions.parquet's ``reasons``, read joined by + as ``reason``) or the
    answers shown in the base that it shut out (``non_answer_reason``), most asked first. A pair judge's kept-apart
    pairs are not stored: its section says that it ran."""
    reasons = set(kind.reasons)
    figures = {"level": kind.level, "meaning": kind.meaning, "reasons": list(kind.reasons), "count": None,
               "examples": []}
    if kind.level == QUESTION:
        hit = sorted((q for q in questions if not q["kept"] and reasons & set((q["reason"] or "").split("+"))),
                     key=lambda q: -q["frequency"])
        figures.update(count=len(hit), examples=[[q["question"], q["frequency"], q["reason"]]
                                                 for q in hit[:MERGES_SHOWN]])
    elif kind.level == ANSWER:
        hit = sorted(((r, a) for r in qa for a in (r.get("answers") or []) if a.get("non_answer_reason") in reasons),
                     key=lambda ra: (ra[0]["rank"], -ra[1]["count"]))
        figures.update(count=len(hit), examples=[[r["question"], a["text"][:200], a["non_answer_reason"]]
                                                 for r, a in hit[:MERGES_SHOWN]])
    return figures


def judge_figures(manifest: dict, questions: list[dict], qa: list[dict]) -> dict:
    """The built-in judges' figures under their keys, and ``judges``: {section: :func:`further_judge`} of the
    further judges the manifest records as applied."""
    cfg = manifest.get("config", {})
    out = {_BUILT_IN[j.section][0]: _BUILT_IN[j.section][1](questions, qa, cfg) for j in registry.JUDGES
           if j.section in _BUILT_IN}
    applied = manifest.get("models", {})
    out["judges"] = {j.section: further_judge(j, questions, qa) for j in registry.JUDGES
                     if not j.built_in and j.section in applied}
    return out


def _read(path: Path, columns: list[str]) -> list[dict]:
    """The columns a file has (a version built before a column existed lacks it: left out of the rows)."""
    if path.name in SHOWN_FILES:  # any base format, with reasons joined and periods as text
        return rows_as_shown(path, columns)
    import pyarrow.parquet as pq

    names = set(pq.read_schema(path).names)
    return pq.read_table(path, columns=[c for c in columns if c in names]).to_pylist()


def instruction_like(questions: list[dict], qa: list[dict], policy: str) -> dict:
    """Answers judged instruction-like (they address the model reading them) in the published entries, by reason
    with examples; the entries served with the flag (injection.policy flag); the questions withheld because their
    answers were shut out (exclude)."""
    flagged = [(r, a) for r in qa for a in (r.get("answers") or []) if a.get("instruction_like")]
    by_reason: dict[str, list] = {}
    for r, a in flagged:
        by_reason.setdefault(a.get("instruction_reason") or "instruction_like", []).append((r, a))
    withheld = sorted((q for q in questions if q["reason"] == "instruction_like"), key=lambda q: -q["frequency"])
    return {
        "policy": policy,
        "answers_in_base": len(flagged),
        "rows_in_base": sum(r.get("instruction_like_answers") or 0 for r in qa),
        "entries_served_flagged": sum(1 for r in qa if r.get("instruction_like")),
        "by_reason": {k: {"answers": len(v), "examples": [[r["question"], a["text"][:200], a["instruction_score"]]
                                                           for r, a in v[:EXAMPLES_PER_REASON]]}
                      for k, v in sorted(by_reason.items(), key=lambda kv: -len(kv[1]))},
        "withheld": [[q["question"], q["frequency"]] for q in withheld[:MERGES_SHOWN]],
        "withheld_count": len(withheld),
    }


def reliability_view(qa: list[dict]) -> dict:
    """Reliability scores of the published entries, their weakest part, and the entries to look at first: the
    least reliable and those whose answer contradicts a minority with numbers."""
    scored = [r for r in qa if r.get("reliability") is not None]
    weakest = Counter(min(r["reliability_parts"].items(), key=lambda kv: kv[1])[0] for r in scored
                      if r.get("reliability_parts") and min(r["reliability_parts"].values()) < 1.0)

    def row(r):
        parts = ", ".join(f"{k} {v:.2f}" for k, v in (r.get("reliability_parts") or {}).items())
        return [f"{r['reliability']:.3f}", r["rank"], r["question"], (r["answer"] or "")[:160], parts]

    return {
        "scores": [r["reliability"] for r in scored],
        "weakest_part": dict(weakest.most_common()),
        "least": [row(r) for r in sorted(scored, key=lambda r: (r["reliability"], r["rank"]))[:MERGES_SHOWN]],
        "contradicted": [row(r) + [r.get("contradicting_answers", 0)]
                         for r in sorted((r for r in scored if r.get("contradicted")), key=lambda r: r["rank"])
                         [:MERGES_SHOWN]],
        "contradicted_count": sum(1 for r in scored if r.get("contradicted")),
    }


def review_view(manifest: dict, questions: list[dict], qa: list[dict]) -> dict:
    """The review file's decisions in this version (the manifest's ``review``): counts per status, the decisions
    not applied (stale or conflicting, with why), and the entries a reviewer touched."""
    rv = manifest.get("review") or {}
    touched = Counter(a for r in qa for a in (r.get("reviewed") or []))
    return {"file": rv.get("file"), "sha256": rv.get("sha256"), "decisions": rv.get("decisions", 0),
            "applied": rv.get("applied", 0), "stale": rv.get("stale", 0), "conflicting": rv.get("conflicting", 0),
            "not_applied": rv.get("not_applied", []), "entries_touched": sum(1 for r in qa if r.get("reviewed")),
            "actions_in_base": dict(sorted(touched.items())),
            "excluded": sum(1 for q in questions if q["reason"] == EXCLUDED_REASON)}


TOPICS_SHOWN = 100  # topic rows in the report (the most asked; report.json and the browse page have them all)


def topics_view(version_dir: Path) -> dict | None:
    """The topics table (topics.parquet), most asked first, the unassigned topic last; None when the version has
    none (topics.enabled false, or built before topics)."""
    path = version_dir / TOPICS_FILE
    if not path.is_file():
        return None
    rows = _read(path, ["topic", "name", "words", "size", "asks", "flagged", "least_reliable", "top_questions"])
    rows.sort(key=lambda t: (t["topic"] == -1, -t["asks"], t["topic"]))
    return {"count": sum(1 for t in rows if t["topic"] != -1),
            "entries_in_topics": sum(t["size"] for t in rows if t["topic"] != -1),
            "entries": sum(t["size"] for t in rows), "topics": rows}


def collect(version_dir: Path, manifest: dict) -> dict:
    c = manifest["counts"]
    questions = _read(version_dir / QUESTIONS_FILE,
                      ["question", "lang", "frequency", "gec_score", "intent_score", "kept", "reason", "qid",
                       "merged_into_reason", "merge_probability", "time_sensitive", "time_sensitive_reason",
                       "non_answer_share"])
    rejected = _read(version_dir / REJECTED_FILE, ["stage", "reason", "source", "position", "raw"])
    qa = _read(version_dir / QA_FILE, ["rank", "question", "frequency", "qtype", "total_answers", "distinct_answers",
                                       "viewpoints", "lang", "flags", "aliases", "answer", "answers", "non_answers",
                                       "time_sensitive", "time_sensitive_reason", "logs_period", "reliability",
                                       "reliability_parts", "contradicted", "contradicting_answers",
                                       "instruction_like_answers", "instruction_like", "instruction_like_reason",
                                       "reviewed"])
    cfg = manifest.get("config", {})
    examples: dict[str, list[dict]] = {}
    for r in rejected:
        key = f"{r['stage']}: {r['reason']}"
        if len(examples.setdefault(key, [])) < EXAMPLES_PER_REASON:
            examples[key].append({"source": Path(r["source"]).name, "position": r["position"], "raw": r["raw"]})
    dropped_questions: dict[str, list[str]] = {}
    for q in questions:
        if not q["kept"] and q["reason"]:
            lst = dropped_questions.setdefault(q["reason"], [])
            if len(lst) < EXAMPLES_PER_REASON:
                lst.append(q["question"])
    return {
        "report_format": REPORT_FORMAT,  # the fields are described in schemas.documents
        "version": manifest.get("version"), "created": manifest.get("created"),
        "funnel": [["rows read", c["rows_read"]], ["valid rows", c["rows_accepted"]],
                   ["distinct questions", c["distinct_questions"]],
                   ["entries (paraphrases merged)", c.get("entries_formed", c.get("entries", c["passed_both"]))],
                   ["questions scored (entries the top K could take)",
                    c.get("questions_scored", c["distinct_questions"])],
                   ["passed GEC", c["passed_gec"]],
                   ["passed intent", c["passed_intent"]], ["passed both", c["passed_both"]],
                   ["eligible entries", c.get("entries", c["passed_both"])],
                   ["top K", c.get("top_k", c["published"])], ["published", c["published"]]],
        "thresholds": {"gec": cfg.get("filter", {}).get("gec_threshold"),
                       "intent": cfg.get("filter", {}).get("intent_threshold")},
        "scores": {"gec": [q["gec_score"] for q in questions if q["gec_score"] is not None],
                   "intent": [q["intent_score"] for q in questions if q["intent_score"] is not None]},
        "row_rejections": dict(Counter(f"{r['stage']}: {r['reason']}" for r in rejected).most_common()),
        "row_rejection_examples": examples,
        "question_rejections": dict(Counter(q["reason"] for q in questions if not q["kept"] and q["reason"])
                                    .most_common()),
        "question_rejection_examples": dropped_questions,
        "merges": merges(questions, qa),
        **judge_figures(manifest, questions, qa),
        "reliability": reliability_view(qa),
        "review": review_view(manifest, questions, qa),
        "topics": topics_view(version_dir),
        "frequencies": [r["frequency"] for r in qa],
        "qtypes": dict(Counter(r["qtype"] for r in qa)),
        "answers_per_question": dict(sorted(Counter(r["distinct_answers"] for r in qa).items())),
        "viewpoints_per_question": dict(sorted(Counter(len(r["viewpoints"] or []) for r in qa).items())),
        "privacy": {"redactions": c.get("redactions", {}), **{k: cfg.get("privacy", {}).get(k) for k in
                                                               ("redact", "kinds")},
                    "own": [p.get("name") for p in cfg.get("privacy", {}).get("patterns", [])]},
        "languages": {"rows": c.get("row_langs", {}), "published": dict(Counter(r["lang"] for r in qa))},
        "flags": dict(Counter(f.split(":")[0] for r in qa for f in (r["flags"] or [])).most_common()),
        "stages": manifest.get("stages", []),
        "index": {k: manifest.get("index", {}).get(k) for k in ("factory", "ntotal", "recall_at_10", "built_on")},
        "models": manifest.get("models", {}),
        "expectations": manifest.get("quality", {}).get("results", []),
        "drift": manifest.get("quality", {}).get("drift", {}),
        "gate": {"critical_failures": len(manifest.get("quality", {}).get("critical_failures", [])),
                 "warnings": len(manifest.get("quality", {}).get("warnings", [])),
                 "expectations": len(manifest.get("quality", {}).get("results", [])),
                 "great_expectations": manifest.get("quality", {}).get("great_expectations"),
                 "data_docs": manifest.get("quality", {}).get("data_docs")},
    }


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def charts(f: dict) -> dict[str, str]:
    import matplotlib

    matplotlib.use("Agg")
    import logging

    import matplotlib.pyplot as plt

    logging.getLogger("matplotlib.category").setLevel(logging.WARNING)  # bar labels like "1", "2" are categories

    out = {}
    fig, ax = plt.subplots(figsize=(7, 3.2))
    names = [n for n, _ in f["funnel"]][::-1]
    values = [v for _, v in f["funnel"]][::-1]
    ax.barh(names, [max(v, 1) for v in values], color="#4c72b0")  # the axis starts at 1: a zero is no bar
    for y, v in enumerate(values):
        ax.text(v, y, f" {v:,}", va="center", fontsize=8)
    ax.set_xscale("log")
    ax.set_xlim(left=1, right=max(values + [1]) * 3)
    from matplotlib.ticker import NullFormatter

    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_title("Funnel (log scale)")
    out["funnel"] = _png(fig)
    for kind in ("gec", "intent"):
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.hist(f["scores"][kind], bins=20, range=(0, 1), color="#55a868")
        t = f["thresholds"][kind]
        if t is not None:
            ax.axvline(t, color="crimson", linestyle="--", label=f"threshold {t}")
            ax.legend(fontsize=8)
        ax.set_title(f"{kind.upper() if kind == 'gec' else 'Intent'} score of every distinct question")
        ax.set_xlabel("score (kept iff score > threshold)")
        out[f"{kind}_hist"] = _png(fig)
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.hist(f["reliability"]["scores"] or [0.0], bins=20, range=(0, 1), color="#4c72b0")
    ax.set_title("Reliability of the base's answers")
    ax.set_xlabel("reliability (product of agreement, support, answered, consistent, fresh)")
    out["reliability_hist"] = _png(fig)
    fig, ax = plt.subplots(figsize=(5, 3))
    freqs = f["frequencies"] or [1]
    bins = np.logspace(0, np.log10(max(freqs) + 1), 20)
    ax.hist(freqs, bins=bins, color="#8172b2")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_title("How often base questions were asked (log-log)")
    ax.set_xlabel("frequency")
    out["frequency"] = _png(fig)
    fig, axes = plt.subplots(1, 2, figsize=(8, 3))
    for ax, key, title in ((axes[0], "answers_per_question", "Distinct answers per question"),
                           (axes[1], "viewpoints_per_question", "Viewpoints per question")):
        d = f[key]
        ax.bar([str(k) for k in d], list(d.values()), color="#c44e52")
        ax.set_title(title)
    out["per_question"] = _png(fig)
    fig, ax = plt.subplots(figsize=(7, 3))
    stages = [s for s in f["stages"] if s.get("seconds") is not None]
    ax.bar([s["stage"] for s in stages], [s["seconds"] for s in stages], color="#dd8452")
    ax.set_title("Busy seconds per stage")
    ax.tick_params(axis="x", labelrotation=30)
    out["stages"] = _png(fig)
    return out


def _table(rows: list[list], header: list[str]) -> str:
    e = html.escape
    head = "".join(f"<th>{e(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _instruction_section(il: dict) -> list[str]:
    treated = ("never win a vote nor hold a viewpoint, so no retriever serves them (<code>injection.policy: "
               "exclude</code>)" if il["policy"] == "exclude" else
               f"vote as other answers do (<code>injection.policy: flag</code>); {il['entries_served_flagged']:,} "
               "entries are served with <code>instruction_like</code> and its reason")
    return [
        "<h2 id='instruction-like'>Instruction-like answers</h2>",
        f"<p>{il['answers_in_base']:,} answers shown in the base ({il['rows_in_base']:,} answer rows) address the "
        f"model that reads them (\"ignore previous instructions\", a new role, chat-template tokens, tool or data "
        f"requests, hidden or encoded text). They are shown here with their reason and {treated}. "
        f"{il['withheld_count']:,} questions left the base because their answers were shut out as instruction-like "
        "(reason <code>instruction_like</code>).</p>",
        _table([[k, v["answers"], " | ".join(f"{q} → {a} ({s:.2f})" for q, a, s in v["examples"])]
                for k, v in il["by_reason"].items()] or [["none", 0, ""]], ["reason", "answers", "examples"]),
        "<p>Withheld: answers instruction-like.</p>",
        _table([[q, n] for q, n in il["withheld"]] or [["none", ""]], ["question", "asks"]),
    ]


def _non_answer_section(na: dict) -> list[str]:
    share = na["non_answer_rows_in_base"] / na["rows_in_base"] if na["rows_in_base"] else 0.0
    return [
        "<h2 id='non-answers'>Non-answers</h2>",
        f"<p>{na['non_answers_in_base']:,} of the {na['answers_in_base']:,} answers shown in the base were judged "
        f"non-answers (refusals, no real-time data, not knowing, sending the user elsewhere, dodging, restating "
        f"the question): {na['non_answer_rows_in_base']:,} of {na['rows_in_base']:,} answer rows ({share:.1%}), in "
        f"{na['entries_with_non_answers']:,} entries. They are shown with the entry but never win a vote nor "
        f"hold a viewpoint. {na['withheld_count']:,} questions left the base because every answer was a "
        "non-answer (reason <code>no_valid_answer</code>; AnswerRetriever answers them with its "
        "no-information message).</p>",
        _table([[k, v["answers"], " | ".join(f"{q} → {a} ({s:.2f})" for q, a, s in v["examples"])]
                for k, v in na["by_reason"].items()] or [["none", 0, ""]], ["reason", "answers", "examples"]),
        "<p>Least sure non-answers (lowest score first): check these.</p>",
        _table([[f"{s:.3f}", q, a, r] for q, a, s, r in na["least_sure"]] or [["none", "", "", ""]],
               ["score", "question", "answer", "reason"]),
        "<p>Withheld: every answer a non-answer.</p>",
        _table([[q, n, "" if s is None else f"{s:.2f}"] for q, n, s in na["withheld"]] or [["none", "", ""]],
               ["question", "asks", "non-answer share"]),
    ]


def _time_section(ts: dict) -> list[str]:
    policy = {"flag": "flagged in the base (every AnswerRetriever reply carries the flag and the period of the logs)",
              "drop": "left out of the base (reason <code>time_sensitive</code>)",
              "keep": "not judged"}[ts["policy"]]
    return [
        "<h2 id='time-sensitive'>Time-sensitive questions</h2>",
        f"<p>Policy <code>{html.escape(ts['policy'])}</code>: questions whose answers go stale (prices, release "
        f"dates, this year's dates, the latest X, lottery numbers, who holds an office now) are {policy}. "
        f"{ts['questions']:,} distinct questions judged time-sensitive; {ts['in_base']:,} entries in the base "
        f"flagged; {ts['dropped']:,} dropped.</p>",
        _table([[k, v["entries"], " | ".join(f"{q} [{p}] → {a}" for q, p, a in v["examples"])]
                for k, v in ts["by_reason"].items()] or [["none", 0, ""]],
               ["cue", "entries", "examples (logs period → answer)"]),
        "<p>Time-sensitive questions not in the base (most asked first):</p>",
        _table([[q, r, why] for q, r, why in ts["not_in_base"]] or [["none", "", ""]],
               ["question", "cue", "why not in the base"]),
    ]


def _further_judge_section(section: str, fj: dict) -> list[str]:
    e = html.escape
    did = {QUESTION: f"{fj['count']:,} questions dropped (reason {', '.join(fj['reasons'])})",
           ANSWER: f"{fj['count']:,} answers shown in the base shut out as non-answers are (reason "
                   f"{', '.join(fj['reasons'])})"}.get(fj["level"], "applied to the paraphrase stage's candidate "
                                                                   "pairs (a pair it flags is never merged)")
    header = (["question", "asks", "reason"] if fj["level"] == QUESTION else ["question", "answer", "reason"])
    return [
        f"<h2 id='judge-{e(section)}'>Judge <code>{e(section)}</code></h2>",
        f"<p>{e(fj['meaning'])} Applied at the {e(fj['level'])} level: {did}.</p>",
        *([] if fj["count"] is None else
          [_table([[str(c) for c in row] for row in fj["examples"]] or [["none", "", ""]], header)]),
    ]


# The built-in judges' figures (report.json's key, how they are read) and parts of the page; every other judge a
# build applied (recorded in the manifest's models) gets :func:`further_judge`'s. Both in wiring order.
_BUILT_IN = {
    "non_answer": ("non_answers", lambda questions, qa, cfg: non_answers(questions, qa), _non_answer_section),
    "time_sensitive": ("time_sensitive", lambda questions, qa, cfg: time_sensitivity(
        questions, qa, cfg.get("time_sensitive", {}).get("policy", "keep")), _time_section),
    "injection": ("instruction_like", lambda questions, qa, cfg: instruction_like(
        questions, qa, cfg.get("injection", {}).get("policy", "exclude")), _instruction_section),
}


def _judge_sections(f: dict) -> list[str]:
    """The judges' parts of the page, in wiring order (models.registry.JUDGES): a built-in judge's own, the others'
    from :func:`further_judge`'s figures (a report.json from before a judge existed has none of its figures)."""
    out = []
    for j in registry.JUDGES:
        if j.section in _BUILT_IN and _BUILT_IN[j.section][0] in f:
            out += _BUILT_IN[j.section][2](f[_BUILT_IN[j.section][0]])
        elif j.section in f.get("judges", {}):
            out += _further_judge_section(j.section, f["judges"][j.section])
    return out


def _reliability_section(rel: dict, img) -> list[str]:
    parts = ", ".join(f"{k} ({n})" for k, n in rel["weakest_part"].items()) or "none"
    return [
        "<h2 id='reliability'>Reliability</h2>",
        "<p>Every entry's <code>reliability</code> is the product of its parts: <b>agreement</b> (share of the "
        "answer rows that agree with the chosen answer), <b>support</b> (how many rows back it: one 0.5, two "
        "0.75, three 0.875), <b>answered</b> (share of judged rows that were not non-answers), <b>consistent</b> "
        "(1 − half the share of rows that contradict the chosen answer with numbers) and <b>fresh</b> (0.7 when "
        f"time-sensitive). Weakest part, where one is below 1: {html.escape(parts)}. "
        f"{rel['contradicted_count']:,} entries contradict a minority with numbers.</p>",
        img("reliability_hist", "reliability histogram"),
        "<p>Least reliable entries (look at these first):</p>",
        _table(rel["least"] or [["none", "", "", "", ""]], ["reliability", "rank", "question", "answer", "parts"]),
        "<p>Entries whose answer contradicts a minority with numbers:</p>",
        _table(rel["contradicted"] or [["none", "", "", "", "", ""]],
               ["reliability", "rank", "question", "answer", "parts", "rows against"]),
    ]


def _review_section(rv: dict) -> list[str]:
    head = "<h2 id='review'>Review decisions</h2>"
    if not rv.get("file"):
        return [head, "<p>No review file (<code>--review FILE</code>, docs/review.md).</p>"]
    e = html.escape
    actions = ", ".join(f"{a} {n}" for a, n in rv["actions_in_base"].items()) or "none"
    return [
        head,
        f"<p>{e(str(rv['file']))} (sha256 {e(str(rv['sha256'])[:12])}…): {rv['decisions']:,} decisions, "
        f"{rv['applied']:,} applied, {rv['stale']:,} stale (a question no longer in the logs), {rv['conflicting']:,} "
        f"conflicting (another decision wins). {rv['entries_touched']:,} published entries carry a reviewer's "
        f"decision ({e(actions)}); {rv['excluded']:,} entries excluded.</p>",
        _table([[o["line"], o["action"], o["question"] + (f" / {o['other']}" if o.get("other") else ""), o["status"],
                 o["detail"]] for o in rv["not_applied"]] or [["none", "", "", "", ""]],
               ["line", "action", "question", "status", "why"]),
    ]


def _topics_section(tv: dict | None) -> list[str]:
    if not tv:
        return ["<h2 id='topics'>Topics</h2>", "<p>No topics in this version (<code>topics.enabled: false</code>, "
                "or built before topics).</p>"]
    rows = [[t["topic"], t["name"], t["size"], t["asks"], t["flagged"], t["least_reliable"],
             " | ".join(t["top_questions"])] for t in tv["topics"][:TOPICS_SHOWN]]
    more = len(tv["topics"]) - TOPICS_SHOWN
    return [
        "<h2 id='topics'>Topics</h2>",
        f"<p>The published entries grouped by meaning for review (HDBSCAN over their index vectors, named by their "
        f"most telling words): {tv['count']:,} topics hold {tv['entries_in_topics']:,} of the {tv['entries']:,} "
        "entries; the rest are <i>unassigned</i> (in no dense group). <b>flagged</b>: entries with any aggregation "
        "flag; <b>least reliable</b>: entries among the base's lowest reliability scores "
        "(<code>topics.least_reliable_share</code>). Most asked first"
        + (f"; {more:,} more in report.json and the browse page" if more > 0 else "") + ".</p>",
        _table(rows or [["none", "", "", "", "", "", ""]],
               ["topic", "words", "entries", "asks", "flagged", "least reliable", "most asked questions"]),
    ]


def _privacy_section(pv: dict) -> list[str]:
    if not pv.get("redact"):
        return ["<h2 id='personal-data'>Personal data</h2>",
                "<p class='warn'>Not redacted (<code>privacy.redact: false</code>): questions and answers are "
                "published as logged.</p>"]
    kinds = [*(pv.get("kinds") or []), *pv["own"]]
    return [
        "<h2 id='personal-data'>Personal data</h2>",
        f"<p>Replaced by placeholders at validation, before anything was counted or written: "
        f"{html.escape(', '.join(kinds) or 'no kind')}. Names and street addresses are not found (that needs a "
        "model). Placeholders in the accepted rows, per kind (counts only):</p>",
        _table([[f"<{k}>", n] for k, n in sorted(pv["redactions"].items())] or [["none", 0]],
               ["placeholder", "replaced"]),
    ]


def render_html(f: dict, images: dict[str, str]) -> str:
    e = html.escape
    img = lambda k, alt: f'<img src="{images[k]}" alt="{e(alt)}">'  # noqa: E731
    funnel_rows = [[n, f"{v:,}"] for n, v in f["funnel"]]
    row_rej = [[reason, n, " | ".join(f"{x['source']}:{x['position']} {x['raw']}"
                                       for x in f["row_rejection_examples"].get(reason, []))]
               for reason, n in f["row_rejections"].items()] or [["none", 0, ""]]
    q_rej = [[reason, n, " | ".join(f["question_rejection_examples"].get(reason, []))]
             for reason, n in f["question_rejections"].items()] or [["none", 0, ""]]
    lang_rows = [[k, f["languages"]["rows"].get(k, 0), f["languages"]["published"].get(k, 0)]
                 for k in sorted(set(f["languages"]["rows"]) | set(f["languages"]["published"]))]
    gate = f["gate"]
    if not gate["expectations"]:
        verdict = "<p class='warn'>Quality gate: not run for this version.</p>"
    elif gate["critical_failures"]:
        failing = "; ".join(f"{r['suite']}: {r['expectation']} on {r.get('column') or '-'} "
                            f"({r.get('unexpected_count')} unexpected)"
                            for r in f["expectations"] if not r["success"] and r["severity"] == "critical")
        verdict = (f"<p class='fail'>Quality gate FAILED: {gate['critical_failures']} critical expectation(s) "
                   f"failed, so this version was not published and <code>latest</code> was left where it was. "
                   f"{e(failing)}</p>")
    else:
        verdict = (f"<p class='pass'>Quality gate passed: {gate['expectations']} expectations, 0 critical "
                   f"failures, {gate['warnings']} warning(s).</p>")
    docs = (f" great-expectations {e(str(gate['great_expectations']))}; its own Data Docs: "
            f"<a href='{e(gate['data_docs'])}'>{e(gate['data_docs'])}</a> (works offline: the CDN styles and scripts "
            "are replaced by local ones)."
            if gate["data_docs"] else "")
    style = ("body{font-family:sans-serif;margin:2em auto;max-width:1000px;color:#222}"
             "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:4px 8px;"
             "font-size:13px;text-align:left;vertical-align:top}th{background:#f3f3f3}img{max-width:100%}"
             ".grid{display:flex;flex-wrap:wrap;gap:12px}h2{border-bottom:1px solid #ddd;padding-bottom:4px}"
             ".pass,.fail,.warn{padding:8px 12px;border-radius:4px}.pass{background:#e6f4ea}"
             ".fail{background:#fce8e6}.warn{background:#fef7e0}"
             ".browse{background:#eef5ff;padding:8px 12px;border-radius:4px}")
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>qabase report {e(str(f['version']))}</title><style>{style}</style></head><body>",
        f"<h1>qabase data quality report</h1><p>Version <b>{e(str(f['version']))}</b>, built "
        f"{e(str(f['created']))}. Index {e(str(f['index']['factory']))} with {e(str(f['index']['ntotal']))} "
        f"questions, recall@10 {e(str(f['index']['recall_at_10']))}, built on {e(str(f['index']['built_on']))}.</p>",
        verdict,
        f"<p class='browse'>Read the base itself: <a href='{BROWSE_FILE}'>{BROWSE_FILE}</a> (search and filter every "
        "published entry, open one to see its answers, viewpoints and scores, and browse the dropped questions by "
        "reason, those nearest passing first; offline).</p>",
        "<h2 id='funnel'>Funnel</h2>", img("funnel", "funnel"), _table(funnel_rows, ["step", "count"]),
        "<h2 id='scores'>Scores</h2><div class='grid'>", img("gec_hist", "GEC score histogram"),
        img("intent_hist", "intent score histogram"), "</div>",
        "<h2>Rejected rows</h2>", _table(row_rej, ["stage: reason", "rows", "examples"]),
        *_privacy_section(f.get("privacy", {})),
        "<h2>Dropped questions</h2>", _table(q_rej, ["reason", "questions", "examples"]),
        f"<p>Every dropped question by reason, nearest passing first: <a href='{BROWSE_FILE}#view=dropped'>"
        f"{BROWSE_FILE}</a>.</p>",
        "<h2 id='merges'>Paraphrase merges</h2>",
        f"<p>{f['merges']['merged_questions']:,} distinct questions counted toward another question's entry; "
        f"{f['merges']['entries_with_aliases']:,} published entries have more than one form. "
        "Biggest entries (every form with its asks; the first is the entry's text):</p>",
        _table([[m["rank"], m["frequency"], " | ".join(f"{q} ({n})" for q, n in m["forms"])]
                for m in f["merges"]["biggest"]] or [["none", "", ""]], ["rank", "asks", "forms"]),
        "<p>Least sure merges (lowest judge probability first): check these.</p>",
        _table([[m["probability"], m["question"], m["frequency"], m["reason"], "yes" if m["kept_entry"] else "no"]
                for m in f["merges"]["least_sure"]] or [["none", "", "", "", ""]],
               ["probability", "question", "asks", "merged", "entry in base"]),
        *_judge_sections(f),
        *_reliability_section(f["reliability"], img),
        *_review_section(f.get("review") or {}),
        *_topics_section(f.get("topics")),
        "<h2>The base</h2><div class='grid'>", img("frequency", "frequency distribution"),
        img("per_question", "answers and viewpoints per question"), "</div>",
        _table([[k, v] for k, v in f["qtypes"].items()], ["question type", "questions"]),
        _table(lang_rows, ["language", "rows read", "questions published"]),
        _table([[k, v] for k, v in f["flags"].items()] or [["none", 0]], ["aggregation flag", "questions"]),
        "<h2>Time per stage</h2>", img("stages", "seconds per stage"),
        _table([[s["stage"], s.get("in"), s.get("out"), s.get("seconds")] for s in f["stages"]],
               ["stage", "in", "out", "busy s"]),
        f"<h2 id='expectations'>Expectations (great-expectations)</h2><p>{docs}</p>",
        _table([[r["suite"], r["expectation"], r.get("column") or "", r["severity"],
                 "pass" if r["success"] else "FAIL", r.get("unexpected_count") if r.get("unexpected_count") is not None
                 else "", ", ".join(r.get("examples") or [])] for r in f["expectations"]]
               or [["not run", "", "", "", "", "", ""]],
               ["suite", "expectation", "column", "severity", "result", "unexpected", "examples"]),
        _table([[k, round(v, 4)] for k, v in f["drift"].items()] or [["no previous version", ""]],
               ["drift against the previous version", "value"]),
        "<h2>Models</h2>", _table([[k, v] for k, v in f["models"].items()], ["role", "model"]),
        "</body></html>",
    ]
    return "\n".join(parts)


def write_report(version_dir: Path, manifest: dict) -> dict:
    from pipelines.release.browse import write_browse

    figures = collect(version_dir, manifest)
    (version_dir / "report.html").write_text(render_html(figures, charts(figures)), encoding="utf-8")
    (version_dir / "report.json").write_text(json.dumps(figures, indent=1, ensure_ascii=False), encoding="utf-8")
    write_browse(version_dir, manifest)
    return figures
