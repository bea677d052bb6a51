"""The base browser of a version: ``browse.html``, one offline page to read the base, not only its funnel.

Written beside ``report.html`` by the report step (every build, and ``qabase report``). In it a person
searches the published entries (substring, case-insensitive, over the question, its aliases, the answer
and the viewpoint summaries), filters them (a flag, language, question type, a minimum confidence and
reliability, a topic), sorts them, opens any entry to see everything it holds, lists the topics (entries,
asks, flagged and least reliable entries in each; a click filters by one), and browses the dropped questions
by reason, the ones closest to passing first (a failed GEC by ``gec_score`` descending, and so on).
The page's state is in its URL hash (``browse.html#q=paris&flag=contradicted``): a link opens a search.

It is also where people review the base. On an opened entry they exclude it, set its answer, split one of its
forms off, merge it into another entry, or mark it time-sensitive (or not); on a dropped question (not a merged
one) they keep it; each with an optional note. The page keeps the decisions offline, in the browser's
``localStorage`` under a key naming this version of this base (:func:`review_facts`: every page opened from disk
shares the one ``file://`` origin), lists them in its "Decisions" tab with undo, and exports them as a review file
(``qabase build --review FILE``), one JSON object per line in that file's format (``{"action": "exclude",
"question": Q, "note": ...}``; ``answer``, ``merge`` with ``into``, ``split`` with ``from``, ``time_sensitive``
with ``value``, ``keep``), naming each question by its text (an entry by its representative question, a form by
its own text): as a download (a ``blob:`` URL made in the page, which is no request; the CSP needs no change)
and as text to copy. Texts the page holds only in part (cut at :data:`MAX_TEXT`) cannot be named from it.

The page is self-contained and makes no request at all: the script and the styles are inline (see
``browse.js`` and ``browse.css`` beside this module; the page around them is ``templates/browse.html.j2``,
pipelines.release.templating), the data is one JSON document inside a
``<script type="application/json">`` element, escaped so that no log text can end it (:func:`embed_json`),
and a Content-Security-Policy meta tag allows only that script and that style (by their sha256), nothing
from the network. Log text is only ever set as text (``textContent``), never parsed as HTML.

The page stays bounded on big bases: entries are embedded in rank order up to :data:`ENTRY_BUDGET_BYTES`,
each with at most :data:`MAX_ANSWERS` answers and :data:`MAX_ALIASES` aliases (texts cut at
:data:`MAX_TEXT` characters), and at most :data:`DROPPED_PER_REASON` dropped questions per reason; the page
says what it left out.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from pathlib import Path

from schemas.dates import as_of_note
from schemas.layout import BROWSE_FILE, QA_FILE, QUESTIONS_FILE, TOPICS_FILE
from schemas.tables import rows_as_shown as _read  # any file of a version, any base format
from schemas.text import invisible_ranges

ENTRY_BUDGET_BYTES = 24_000_000  # the entries' JSON; then the page says how many ranks it holds
MAX_ANSWERS = 30  # per entry, the most given first
MAX_ALIASES = 50  # per entry, the most asked first (the representative always first)
MAX_TEXT = 4000  # characters of any one text (the published answer, an answer, a question)
DROPPED_PER_REASON = 500

_HERE = Path(__file__).parent
ENTRY_FIELDS = ["rank", "question", "lang", "qtype", "qtype_score", "frequency", "answer", "confidence",
                "vote_margin", "reliability", "parts", "flags", "aliases", "aliases_more", "answers",
                "answers_more", "viewpoints", "total_answers", "distinct_answers", "method", "ts_reason", "period",
                "as_of", "agreeing", "contradicting", "non_answers", "gec", "intent", "qid", "topic"]
DROPPED_FIELDS = ["question", "lang", "frequency", "reason", "gec", "intent", "closeness", "merged_into",
                  "merge_probability", "ts_reason", "non_answer_share", "rank"]

# how each reason's dropped questions are ordered, the ones nearest passing first (the reasons in this order, the
# filters' first; merged questions are not lost: they count toward an entry)
ORDER = {
    "low_gec": "GEC score, highest first (nearest the threshold)",
    "low_intent": "intent score, highest first (nearest the threshold)",
    "low_gec+low_intent": "the larger of the two shortfalls, smallest first (nearest passing both)",
    "no_valid_answer": "share of non-answers, lowest first (nearest having a valid answer)",
    "time_sensitive": "time-sensitivity score, lowest first (nearest the threshold)",
    "instruction_like": "asks, most first (its answers addressed the model reading them)",
    "below_top_k": "asks, most first (nearest the top K)",
    "merged": "judge probability, lowest first (the least sure merges; each counts toward its entry)",
}

_OVERLAP = re.compile(r"answers overlap ([0-9.]+)")
_UNSAFE = re.compile("[<>&\u2028\u2029\ud800-\udfff]")


def embed_json(obj) -> str:
    """``obj`` as JSON text safe inside ``<script type="application/json">``: ``<``, ``>`` and ``&`` are written
    as ``\\u003c`` ..., so no ``</script>`` or ``<!--`` can appear (they only ever occur inside JSON strings,
    where the escape means the same character); U+2028/2029 and lone surrogates are escaped too."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _cut(text, limit: int = MAX_TEXT):
    if text is None:
        return None
    return text if len(text) <= limit else text[:limit] + f" … [{len(text) - limit:,} more characters]"


def _num(x, digits: int = 4):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return None
    return round(float(x), digits)


def entry_flags(r: dict) -> list[str]:
    """The aggregation flags of an entry (``tie``, ``single_answer`` ...) and its marks: ``time_sensitive``,
    ``contradicted``, ``non_answers`` (some answers shown are non-answers), ``instruction_like`` (the served
    answer rests on instruction-like answers: injection.policy flag) and ``instruction_like_answers`` (some
    answers shown address the model reading them), and ``reviewed:ACTIONS`` (a review file's decisions took
    effect on it, ``reviewed:answer,time_sensitive``: qa.parquet ``reviewed``)."""
    out = [f for f in (r.get("flags") or []) if f]
    if r.get("time_sensitive"):
        out.append("time_sensitive")
    if r.get("contradicted"):
        out.append("contradicted")
    if r.get("non_answers"):
        out.append("non_answers")
    if r.get("instruction_like"):
        out.append("instruction_like")
    if r.get("instruction_like_answers"):
        out.append("instruction_like_answers")
    if r.get("reviewed"):
        out.append("reviewed:" + ",".join(r["reviewed"]))
    return out


def _entry_row(r: dict, excludes_instructions: bool = True) -> list:
    """An entry as the page shows it; ``excludes_instructions``: injection.policy is exclude (instruction-like
    answers did not vote: struck through as non-answers are)."""
    answers = sorted(r.get("answers") or [], key=lambda a: (-a["count"], a["answer_id"]))
    aliases = r.get("aliases") or []
    kept_aliases = aliases[:1] + sorted(aliases[1:], key=lambda a: -a["count"])[:MAX_ALIASES - 1]
    shown = answers[:MAX_ANSWERS]
    more = answers[MAX_ANSWERS:]
    period = r.get("logs_period")
    row = {
        "rank": r["rank"], "question": _cut(r["question"]), "lang": r.get("lang") or "",
        "qtype": r.get("qtype") or "", "qtype_score": _num(r.get("qtype_score")), "frequency": r["frequency"],
        "answer": _cut(r.get("answer") or ""), "confidence": _num(r.get("confidence")),
        "vote_margin": _num(r.get("vote_margin")), "reliability": _num(r.get("reliability")),
        "parts": {k: _num(v) for k, v in (r.get("reliability_parts") or {}).items()},
        "flags": entry_flags(r),
        "aliases": [[_cut(a["question"]), a["count"]] for a in kept_aliases],
        "aliases_more": len(aliases) - len(kept_aliases),
        "answers": [[a["answer_id"], _cut(a["text"]), a["count"], bool(a.get("non_answer")),
                     _num(a.get("non_answer_score")), a.get("non_answer_reason") or "",
                     a.get("instruction_reason") or "" if a.get("instruction_like") else "",
                     _num(a.get("instruction_score")),
                     bool(a.get("non_answer")) or (bool(a.get("instruction_like")) and excludes_instructions)]
                    for a in shown],
        "answers_more": [len(more), sum(a["count"] for a in more)],
        "viewpoints": [[_cut(v["summary"]), list(v["answer_ids"])] for v in (r.get("viewpoints") or [])],
        "total_answers": r.get("total_answers"), "distinct_answers": r.get("distinct_answers"),
        "method": r.get("method") or "", "ts_reason": r.get("time_sensitive_reason") or "",
        "period": [period["first"], period["last"]] if period else None,
        "as_of": as_of_note(bool(r.get("time_sensitive")), period),  # shown with the answer, as AnswerRetriever does
        "agreeing": r.get("agreeing_answers"), "contradicting": r.get("contradicting_answers"),
        "non_answers": r.get("non_answers"), "gec": _num(r.get("gec_score")), "intent": _num(r.get("intent_score")),
        "qid": r.get("qid") or "",
        "topic": r.get("topic"),  # its topic id (topics.parquet; -1 unassigned); None: the version has no topics
    }
    return [row[f] for f in ENTRY_FIELDS]


def closeness(q: dict, thresholds: dict) -> tuple[float, str]:
    """A sort key (smaller: nearer passing) and the words that say how near, for one dropped question."""
    reason = q["reason"]
    tg, ti = thresholds.get("gec"), thresholds.get("intent")
    g, i = q.get("gec_score"), q.get("intent_score")

    def short(score, t, name):
        if score is None:
            return math.inf, f"{name} not scored"
        if t is None:
            return -score, f"{name} {score:.3f}"
        return t - score, f"{name} {score:.3f} ≤ {t:g} ({t - score:.3f} short)"

    if reason == "low_gec":
        return short(g, tg, "GEC")
    if reason == "low_intent":
        return short(i, ti, "intent")
    if reason == "low_gec+low_intent":
        (a, ta), (b, tb) = short(g, tg, "GEC"), short(i, ti, "intent")
        return max(a, b), f"{ta}; {tb}"
    if reason == "merged":
        p = q.get("merge_probability")
        overlap = _OVERLAP.search(q.get("merged_into_reason") or "")
        also = f" (answers overlap {overlap.group(1)})" if overlap else ""
        return (math.inf, "no judge probability" + also) if p is None else (p, f"judge probability {p:.3f}{also}")
    if reason == "no_valid_answer":
        s = q.get("non_answer_share")
        return (math.inf, "not judged") if s is None else (s, f"{s:.0%} of its answers are non-answers")
    if reason == "time_sensitive":
        s = q.get("time_sensitive_score")
        return (math.inf, "not scored") if s is None else (s, f"time-sensitivity {s:.3f}")
    return -float(q.get("frequency") or 0), f"asked {q.get('frequency') or 0:,} times"


def dropped_by_reason(questions: list[dict], thresholds: dict, per_reason: int = DROPPED_PER_REASON):
    """The questions left out of the base, by reason (the filters' reasons first, then by count): for each,
    ``(reason, how many, [(words, question), ...])`` with at most ``per_reason`` questions, nearest passing
    first (:func:`closeness`; ties: most asked first)."""
    by_reason: dict[str, list[dict]] = {}
    for q in questions:
        if not q.get("kept") and q.get("reason"):
            by_reason.setdefault(q["reason"], []).append(q)
    known = list(ORDER)
    out = []
    for reason, qs in sorted(by_reason.items(), key=lambda kv: (known.index(kv[0]) if kv[0] in known else len(known),
                                                               -len(kv[1]), kv[0])):
        keyed = sorted(((closeness(q, thresholds), q) for q in qs),
                       key=lambda kq: (kq[0][0], -(kq[1].get("frequency") or 0), kq[1]["question"]))
        out.append((reason, len(qs), [(words, q) for (_, words), q in keyed[:per_reason]]))
    return out


def review_facts(manifest: dict) -> dict:
    """What the page's review decisions need: ``key``, the localStorage key they are kept under. Every page opened
    from disk shares one storage (the ``file://`` origin), so the key names this version of this base: its version
    id and a digest of its manifest's config hash and inputs (two bases built the same millisecond differ); the
    same version's page written again (``qabase report``) finds the decisions made on it."""
    ident = json.dumps([manifest.get("version"), manifest.get("config_hash"),
                        [(f.get("path"), f.get("sha256")) for f in manifest.get("inputs") or []
                         if isinstance(f, dict)]], sort_keys=True, default=str)
    digest = hashlib.sha256(ident.encode("utf-8")).hexdigest()[:16]
    return {"key": f"qabase-review:{manifest.get('version') or '?'}:{digest}"}


def topic_list(version_dir: Path) -> list[dict]:
    """The version's topics (topics.parquet) for the page's topic list and filter, most asked first, the
    unassigned last; [] when it has none."""
    path = Path(version_dir) / TOPICS_FILE
    if not path.is_file():
        return []
    rows = _read(path, ["topic", "name", "size", "asks", "flagged", "least_reliable"])
    return sorted(rows, key=lambda t: (t["topic"] == -1, -t["asks"], t["topic"]))


def collect(version_dir: Path, manifest: dict) -> dict:
    """Everything the page embeds."""
    qa = _read(version_dir / QA_FILE,
               ["qid", "rank", "question", "lang", "frequency", "gec_score", "intent_score", "qtype", "qtype_score",
                "answer", "confidence", "vote_margin", "viewpoints", "answers", "total_answers", "distinct_answers",
                "method", "flags", "aliases", "non_answers", "time_sensitive", "time_sensitive_reason",
                "logs_period", "agreeing_answers", "contradicted", "contradicting_answers", "reliability",
                "reliability_parts", "instruction_like_answers", "instruction_like", "instruction_like_reason",
                "reviewed", "topic"])
    questions = _read(version_dir / QUESTIONS_FILE,
                      ["question", "lang", "frequency", "gec_score", "intent_score", "kept", "reason", "rank",
                       "merged_into_reason", "merge_probability", "time_sensitive_score", "time_sensitive_reason",
                       "non_answer_share"])
    qa.sort(key=lambda r: r["rank"])
    rows, used = [], 2
    excludes = ((manifest.get("config") or {}).get("injection") or {}).get("policy", "exclude") == "exclude"
    for r in qa:
        row = _entry_row(r, excludes)
        size = len(embed_json(row).encode("utf-8")) + 1
        if used + size > ENTRY_BUDGET_BYTES and rows:
            break
        rows.append(row)
        used += size
    cfg = manifest.get("config") or {}
    flt = cfg.get("filter") or {}
    thresholds = {"gec": flt.get("gec_threshold"), "intent": flt.get("intent_threshold")}
    dropped, reasons = [], []
    for reason, total, nearest in dropped_by_reason(questions, thresholds):
        for words, q in nearest:
            dropped.append([_cut(q["question"]), q.get("lang") or "", q.get("frequency"), reason,
                            _num(q.get("gec_score")), _num(q.get("intent_score")), words,
                            _cut(q.get("merged_into_reason") or "", 300), _num(q.get("merge_probability")),
                            q.get("time_sensitive_reason") or "", _num(q.get("non_answer_share")), q.get("rank")])
        reasons.append({"reason": reason, "total": total, "shown": len(nearest),
                        "order": ORDER.get(reason, "asks, most first")})
    counts = manifest.get("counts") or {}
    return {
        "version": manifest.get("version"), "created": manifest.get("created"),
        "thresholds": thresholds,
        "counts": {"published": len(qa), "distinct_questions": counts.get("distinct_questions", len(questions)),
                   "rows_read": counts.get("rows_read")},
        "limits": {"entries_shown": len(rows), "entries_total": len(qa), "max_answers": MAX_ANSWERS,
                   "max_aliases": MAX_ALIASES, "max_text": MAX_TEXT, "dropped_per_reason": DROPPED_PER_REASON},
        "entries": {"fields": ENTRY_FIELDS, "rows": rows},
        "dropped": {"fields": DROPPED_FIELDS, "rows": dropped},
        "reasons": reasons,
        "data_docs": (manifest.get("quality") or {}).get("data_docs"),
        "review": review_facts(manifest),
        "topics": topic_list(version_dir),
        # the characters the page's filter reads past, as the build's keys do (schemas.text): a regex class
        "invisible": "".join(f"\\u{{{lo:X}}}-\\u{{{hi:X}}}" for lo, hi in invisible_ranges()),
    }


def _asset(name: str) -> str:
    return (_HERE / name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def render(data: dict) -> str:
    """The page (templates/browse.html.j2): ``data`` (:func:`collect`) embedded as JSON, the inline script and
    style allowed by hash. The script, the style, the policy and the JSON go in as they are (the hashes are of
    those exact texts; :func:`embed_json` has escaped what could end its element); the title is escaped."""
    from markupsafe import Markup

    from pipelines.release.templating import environment

    style, script = _asset("browse.css"), _asset("browse.js")
    csp = (f"default-src 'none'; script-src {_sha256(script)}; style-src {_sha256(style)}; img-src data:; "
           "base-uri 'none'; form-action 'none'")
    return environment().get_template("browse.html.j2").render(
        csp=Markup(csp), title=f"qabase base browser {data.get('version') or ''}".strip(), style=Markup(style),
        script=Markup(script), data_json=Markup(embed_json(data)))


def write_browse(version_dir: Path, manifest: dict) -> Path:
    """Write ``browse.html`` into a version folder; returns its path."""
    path = Path(version_dir) / BROWSE_FILE
    path.write_text(render(collect(Path(version_dir), manifest)), encoding="utf-8")
    return path
