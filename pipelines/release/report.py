"""The data quality report of a version: one self-contained HTML file and a JSON file with the same figures.

Written into the version folder at build time (``report.html``, ``report.json``, and the base browser
``browse.html``: pipelines.release.browse) and rebuilt on demand by ``qabase report``
(pipelines.commands.report, which holds the build lock while it writes). The HTML has no external references
and no script: the charts are PNGs embedded as data URIs (or HTML bars), the styles are inline, and every piece
of log text (questions, rejected rows, reasons) is HTML-escaped (Jinja2 templates with autoescape, in
templates/ beside this module). Report files are not in the manifest's checksums: they can be regenerated.

The page reads as a dashboard: a contents list linking every section, a row of headline figures (entries
published, questions read, merges, non-answers shut out, time-sensitive entries, the index's recall, build time),
then the sections. Every number is written one way (pipelines.release.number_format), and every table says
its order in its caption and marks the column it is ordered by.

Figures: the funnel (rows read, valid, distinct questions, scored, passed GEC, passed both, eligible entries,
answers judged, with a valid answer, top K, published: each a part of the one before), score histograms with the
thresholds drawn, rejection reasons with examples, paraphrase merges (the biggest entries with all their forms, the
merges the judge was least sure of, and those made through answer overlap, so a person can check them), the judges'
sections in wiring order (models.registry.JUDGES: non-answers by reason with examples, the least sure, the questions
withheld because every answer was one; time-sensitive questions by cue, with the logs' period; instruction-like
answers; and for each further judge a build applied, what it dropped or shut out, by its reasons), the topics of the
entries (size, asks, flagged and least reliable entries, words), how often the base's questions were asked, question
types, answers and viewpoints per question, languages, and time per stage.
"""

from __future__ import annotations

import base64
import io
import json
import re
from collections import Counter
from pathlib import Path

from models import registry
from pipelines.release.number_format import duration, number, percent
from schemas.config import ParaphraseConfig
from schemas.documents import REPORT_FORMAT
from schemas.judgement import ANSWER, QUESTION
from schemas.layout import BROWSE_FILE, QA_FILE, QUESTIONS_FILE, REJECTED_FILE, TOPICS_FILE
from schemas.review_outcome import EXCLUDED_REASON
from schemas.tables import rows_as_shown as _read  # any file of a version, any base format

EXAMPLES_PER_REASON = 3
MERGES_SHOWN = 15


_OVERLAP = re.compile(r"answers overlap ([0-9.]+)")  # in merged_into_reason (pipelines.stages.paraphrase)
JUDGE, OVERLAP, REVIEWER = "judge", "answer overlap", "reviewer"


def merged_by(q: dict, thresholds: dict) -> str:
    """What merged a question into its entry: the paraphrase judge (its probability reached the language's
    threshold), the answers (the judge said less, but the chatbot's answers to the two coincide:
    paraphrase.answers_min_overlap) or a reviewer (no probability)."""
    p = q["merge_probability"]
    if p is None:
        return REVIEWER
    return JUDGE if p >= thresholds.get(q.get("lang"), thresholds["en"]) else OVERLAP


def merges(questions: list[dict], qa: list[dict], paraphrase_cfg: dict | None = None) -> dict:
    """The biggest merged entries (by number of forms), the merges the judge was least sure of (lowest
    probability that still reached the threshold) and those made through answer overlap (lowest overlap
    first), each with what merged it."""
    cfg = paraphrase_cfg or {}
    thresholds = {"en": cfg.get("threshold_en") or ParaphraseConfig.threshold_en,
                  "zh": cfg.get("threshold_zh") or ParaphraseConfig.threshold_zh}
    biggest = sorted((r for r in qa if len(r["aliases"] or []) > 1),
                     key=lambda r: (-len(r["aliases"]), r["rank"]))[:MERGES_SHOWN]
    merged = [q for q in questions if q["merged_into_reason"]]
    by = {id(q): merged_by(q, thresholds) for q in merged}

    def overlap(q):
        found = _OVERLAP.search(q["merged_into_reason"] or "")
        return float(found.group(1)) if found else None

    def row(q):
        return {"question": q["question"], "frequency": q["frequency"], "probability": q["merge_probability"],
                "reason": q["merged_into_reason"], "kept_entry": q["qid"] is not None, "by": by[id(q)],
                "answer_overlap": overlap(q), "threshold": thresholds.get(q.get("lang"), thresholds["en"])}

    judged = [q for q in merged if by[id(q)] == JUDGE]
    through_answers = [q for q in merged if by[id(q)] == OVERLAP]
    return {
        "merged_questions": len(merged),
        "entries_with_aliases": sum(1 for r in qa if len(r["aliases"] or []) > 1),
        "merged_by": {k: sum(1 for q in merged if by[id(q)] == k) for k in (JUDGE, OVERLAP, REVIEWER)},
        "biggest": [{"rank": r["rank"], "question": r["question"], "frequency": r["frequency"],
                     "forms": [[a["question"], a["count"]] for a in r["aliases"]]} for r in biggest],
        "least_sure": [row(q) for q in sorted(judged, key=lambda q: (q["merge_probability"], q["question"]))
                       [:MERGES_SHOWN]],
        "through_overlap": [row(q) for q in sorted(through_answers, key=lambda q: (overlap(q) or 0.0,
                                                                                    q["question"]))[:MERGES_SHOWN]],
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
        parts = ", ".join(f"{k} {number(v)}" for k, v in (r.get("reliability_parts") or {}).items())
        return [number(r["reliability"]), r["rank"], r["question"], (r["answer"] or "")[:160], parts]

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


def funnel(c: dict) -> list[list]:
    """[step, count] from rows read to published, each step a part of the one before (so the counts only
    narrow): rows, then the distinct questions they ask, the questions scored and passing each filter, then the
    entries (each has a representative that passed both filters), those whose answers were judged (the top K and
    the headroom), those left with a valid answer, the top K of them and what was published: an entry none of
    whose answers passed is dropped at its own step, not counted against K. ``c``: the manifest's counts (a
    version built before a count existed falls back on its neighbour)."""
    eligible = c.get("entries", c["passed_both"])
    judged = c.get("candidates_judged", eligible)
    return [["rows read", c["rows_read"]], ["valid rows", c["rows_accepted"]],
            ["distinct questions", c["distinct_questions"]],
            ["questions scored", c.get("questions_scored", c["distinct_questions"])],
            ["passed GEC", c["passed_gec"]], ["passed GEC and intent", c["passed_both"]],
            ["eligible entries", eligible], ["answers judged", judged],
            ["with a valid answer", judged - c.get("no_valid_answer", 0)],
            ["top K", c.get("top_k", c["published"])], ["published", c["published"]]]


def funnel_aside(c: dict) -> list[list]:
    """[step, count] of the counts beside the funnel, not steps of it: the entries the paraphrase stage formed
    (every distinct question is in one; only those the top K could take are scored) and the questions that
    passed intent (passed GEC and intent is part of them too)."""
    return [["entries formed (paraphrases merged)", c.get("entries_formed", c.get("entries", c["passed_both"]))],
            ["passed intent", c["passed_intent"]]]


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
        "build_seconds": manifest.get("build_seconds"),
        "funnel": funnel(c),
        "funnel_aside": funnel_aside(c),
        "thresholds": {"gec": cfg.get("filter", {}).get("gec_threshold"),
                       "intent": cfg.get("filter", {}).get("intent_threshold")},
        "scores": {"gec": [q["gec_score"] for q in questions if q["gec_score"] is not None],
                   "intent": [q["intent_score"] for q in questions if q["intent_score"] is not None]},
        "row_rejections": dict(Counter(f"{r['stage']}: {r['reason']}" for r in rejected).most_common()),
        "row_rejection_examples": examples,
        "question_rejections": dict(Counter(q["reason"] for q in questions if not q["kept"] and q["reason"])
                                    .most_common()),
        "question_rejection_examples": dropped_questions,
        "merges": merges(questions, qa, cfg.get("paraphrase", {})),
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


SMALL_COUNTS = 30  # frequencies up to this are drawn one bar per count on linear axes, not on a log scale


def _frequency_edges(top: int) -> list[tuple[int, int]]:
    """(lowest, highest) times asked of each bar up to ``top``: 1, 2, 3-5, 6-10, 11-20, 21-50, 51-100, ..."""
    bounds, scale = [], 1
    while not bounds or bounds[-1] < top:
        bounds += [b * scale for b in (1, 2, 5) if b * scale > (bounds[-1] if bounds else 0)]
        scale *= 10
    edges, low = [], 1
    for b in bounds:
        edges.append((low, b))
        low = b + 1
        if b >= top:
            break
    return edges


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def charts(f: dict) -> dict[str, str]:
    """The report's pictures (PNG data URIs): the score and reliability histograms, how often the base's
    questions were asked, answers and viewpoints per question. Linear axes with whole-number ticks written as
    the page writes numbers (pipelines.release.number_format); the funnel and the stage times are drawn in HTML."""
    import logging

    # figures of their own, drawn by Agg when saved: pyplot (0.5 s to import) and its global backend are not needed
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    logging.getLogger("matplotlib.category").setLevel(logging.WARNING)  # bar labels like "1", "2" are categories
    whole = FuncFormatter(lambda v, _: number(int(round(v))))

    def axes(title: str, xlabel: str, ylabel: str, size=(5, 2.6)):
        fig = Figure(figsize=size)
        ax = fig.subplots()
        ax.set_title(title, fontsize=10, loc="left")
        ax.set_xlabel(xlabel, fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
        ax.tick_params(labelsize=8)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_formatter(whole)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        return fig, ax

    out = {}
    for kind in ("gec", "intent"):
        fig, ax = axes(f"{'GEC' if kind == 'gec' else 'Intent'} score of the scored questions",
                       "score (kept when above the threshold)", "questions")
        ax.hist(f["scores"][kind], bins=20, range=(0, 1), color="#55a868")
        t = f["thresholds"][kind]
        if t is not None:
            ax.axvline(t, color="crimson", linestyle="--", label=f"threshold {number(float(t))}")
            ax.legend(fontsize=8, frameon=False)
        out[f"{kind}_hist"] = _png(fig)
    fig, ax = axes("Reliability of the published entries", "reliability (product of its parts)", "entries")
    ax.hist(f["reliability"]["scores"] or [0.0], bins=20, range=(0, 1), color="#4c72b0")
    out["reliability_hist"] = _png(fig)
    freqs = f["frequencies"] or [1]
    top = max(freqs)
    fig, ax = axes("How often each published question was asked", "times asked", "entries")
    if top <= SMALL_COUNTS:
        counted = Counter(freqs)
        ax.bar(range(1, top + 1), [counted.get(x, 0) for x in range(1, top + 1)], color="#8172b2")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.xaxis.set_major_formatter(whole)
    else:  # a long tail: ranges that grow by about 2 to 2.5 times (1, 2, 3-5, 6-10, 11-20, 21-50, ...)
        edges = _frequency_edges(top)
        labels = [number(lo) if lo == hi else f"{number(lo)}–{number(hi)}" for lo, hi in edges]
        ax.bar(labels, [sum(1 for x in freqs if lo <= x <= hi) for lo, hi in edges], color="#8172b2")
        ax.tick_params(axis="x", labelrotation=30 if len(edges) > 8 else 0)
    out["frequency"] = _png(fig)
    fig = Figure(figsize=(5, 2.6))
    left, right = fig.subplots(1, 2, sharey=True)
    for ax, key, title in ((left, "answers_per_question", "Distinct answers"), (right, "viewpoints_per_question",
                                                                               "Viewpoints")):
        d = f[key]
        ax.bar([str(k) for k in d], list(d.values()), color="#c44e52")
        ax.set_title(f"{title} per entry", fontsize=10, loc="left")
        ax.tick_params(labelsize=8)
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_formatter(whole)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    left.set_ylabel("entries", fontsize=8)
    out["per_question"] = _png(fig)
    return out


# ---- the page ---------------------------------------------------------------------------------------------
# Jinja2 templates (pipelines.release.templating: templates/ beside this module, package data): report.html.j2 lays the page out (contents,
# headline figures, then every section from one list, so each has its anchor and its line in the contents),
# report_sections.html.j2 holds one macro per section kind. Autoescape is on: log text is only ever text.

# the built-in judges' figures (report.json's key, how they are read) and their sections (anchor, title);
# every other judge a build applied (recorded in the manifest's models) gets :func:`further_judge`'s. Both in
# wiring order.
_BUILT_IN = {
    "non_answer": ("non_answers", lambda questions, qa, cfg: non_answers(questions, qa),
                   ("non-answers", "Non-answers")),
    "time_sensitive": ("time_sensitive", lambda questions, qa, cfg: time_sensitivity(
        questions, qa, cfg.get("time_sensitive", {}).get("policy", "keep")),
        ("time-sensitive", "Time-sensitive questions")),
    "injection": ("instruction_like", lambda questions, qa, cfg: instruction_like(
        questions, qa, cfg.get("injection", {}).get("policy", "exclude")),
        ("instruction-like", "Instruction-like answers")),
}


def _section(anchor: str, title: str, kind: str | None = None, **data) -> dict:
    """A section of the page: its anchor (``id``), its title in the contents, and the macro that draws it
    (report_sections.html.j2; by default the anchor with underscores)."""
    return {"id": anchor, "title": title, "kind": kind or anchor.replace("-", "_"), **data}


def _judge_sections(f: dict) -> list[dict]:
    """The judges' sections, in wiring order (models.registry.JUDGES): a built-in judge's own, the others' from
    :func:`further_judge`'s figures (a report.json from before a judge existed has none of its figures)."""
    out = []
    for j in registry.JUDGES:
        if j.section in _BUILT_IN and _BUILT_IN[j.section][0] in f:
            key, _, (anchor, title) = _BUILT_IN[j.section]
            out.append(_section(anchor, title, data=f[key]))
        elif j.section in f.get("judges", {}):
            out.append(_section(f"judge-{j.section}", f"Judge {j.section}", "further_judge", name=j.section,
                                data=f["judges"][j.section]))
    return out


def sections(f: dict) -> list[dict]:
    """Every section of the page, in page order."""
    return [
        _section("funnel", "Funnel"), _section("scores", "Scores"), _section("rejected-rows", "Rejected rows"),
        _section("personal-data", "Personal data"), _section("dropped", "Dropped questions"),
        _section("merges", "Paraphrase merges"), *_judge_sections(f), _section("reliability", "Reliability"),
        _section("review", "Review decisions"), _section("topics", "Topics"), _section("base", "The base"),
        _section("stages", "Time per stage"), _section("expectations", "Expectations"),
        _section("models", "Models"),
    ]


def headline(f: dict) -> list[dict]:
    """The figures a reader looks for first: {label, value, note, anchor} (values written by
    pipelines.release.number_format)."""
    steps = dict(f["funnel"])
    out = [
        {"label": "entries published", "value": number(steps["published"]),
         "note": f"from {number(steps['distinct questions'])} distinct questions", "anchor": "funnel"},
        {"label": "questions read", "value": number(steps["rows read"]),
         "note": f"{number(steps['valid rows'])} valid ({percent(steps['valid rows'], steps['rows read'])})",
         "anchor": "rejected-rows"},
        {"label": "questions merged", "value": number(f["merges"]["merged_questions"]),
         "note": f"into {number(f['merges']['entries_with_aliases'])} entries with several forms",
         "anchor": "merges"},
    ]
    if "non_answers" in f:
        na = f["non_answers"]
        out.append({"label": "non-answers shut out", "value": number(na["non_answers_in_base"]),
                    "note": f"of {number(na['answers_in_base'])} answers shown; {number(na['withheld_count'])} "
                            "questions withheld", "anchor": "non-answers"})
    if "time_sensitive" in f:
        ts = f["time_sensitive"]
        out.append({"label": "time-sensitive", "value": number(ts["in_base"]),
                    "note": f"entries in the base (policy {ts['policy']}; {number(ts['dropped'])} dropped)",
                    "anchor": "time-sensitive"})
    index = f["index"]
    out.append({"label": "recall@10 of the index", "value": number(index.get("recall_at_10")),
                "note": f"{index.get('factory')}, {number(index.get('ntotal'))} vectors, {index.get('built_on')}",
                "anchor": "expectations"})
    busy = sum(s.get("seconds") or 0.0 for s in f["stages"])
    built = f.get("build_seconds")
    out.append({"label": "build time", "value": duration(built if built is not None else busy),
                "note": f"{duration(busy)} busy in the stages" if built is not None else "busy in the stages",
                "anchor": "stages"})
    return out


def funnel_bars(f: dict) -> list[dict]:
    """The funnel's steps as bars: {step, count, width (% of the first step), kept (% of the step before)}."""
    first = max(f["funnel"][0][1], 1)
    out, before = [], None
    for step, count in f["funnel"]:
        out.append({"step": step, "count": count, "width": round(100 * count / first, 2),
                    "kept": percent(count, before) if before is not None else ""})
        before = count
    return out


def stage_bars(f: dict) -> list[dict]:
    """The stages in pipeline order with their busy seconds as bars (% of the slowest)."""
    timed = [s for s in f["stages"] if s.get("seconds") is not None]
    slowest = max([s["seconds"] for s in timed] + [1e-9])
    return [{**s, "width": round(100 * (s.get("seconds") or 0.0) / slowest, 2)} for s in f["stages"]]


def _environment():
    from pipelines.release.templating import environment

    return environment(row_examples=_row_examples, forms=_forms, scored_examples=_scored_examples,
                       period_examples=_period_examples)


# how a table cell lists a few examples (the numbers in them written as every other number of the page)
def _row_examples(examples: list[dict]) -> str:
    return " | ".join(f"{x['source']}:{number(x['position'])} {x['raw']}" for x in examples)


def _forms(forms: list) -> str:
    return " | ".join(f"{q} ({number(n)})" for q, n in forms)


def _scored_examples(examples: list) -> str:
    return " | ".join(f"{q} → {a} ({number(score)})" for q, a, score in examples)


def _period_examples(examples: list) -> str:
    return " | ".join(f"{q} [{period}] → {a}" for q, period, a in examples)


def _context(f: dict) -> dict:
    """What the section macros share beyond the figures (a part of the figures gives the parts it can)."""
    return {"funnel": funnel_bars(f) if "funnel" in f else [], "stages": stage_bars(f) if "stages" in f else [],
            "browse": BROWSE_FILE, "topics_shown": TOPICS_SHOWN, "QUESTION": QUESTION, "ANSWER": ANSWER}


def render_html(f: dict, images: dict[str, str]) -> str:
    return _environment().get_template("report.html.j2").render(
        f=f, images=images, sections=sections(f), headline=headline(f), browse=BROWSE_FILE, ctx=_context(f))


def render_section(anchor: str, f: dict, images: dict[str, str] | None = None) -> str:
    """The body of one section of the page (its macro's HTML, without its anchor and title), from the figures it
    reads: to check a part alone."""
    s = next(s for s in sections(f) if s["id"] == anchor)
    macros = _environment().get_template("report_sections.html.j2").module
    return str(getattr(macros, s["kind"])(s, f, images or {}, _context(f)))


def write_report(version_dir: Path, manifest: dict) -> dict:
    from pipelines.release.browse import write_browse

    figures = collect(version_dir, manifest)
    (version_dir / "report.html").write_text(render_html(figures, charts(figures)), encoding="utf-8")
    (version_dir / "report.json").write_text(json.dumps(figures, indent=1, ensure_ascii=False), encoding="utf-8")
    write_browse(version_dir, manifest)
    return figures
