"""Answers that say their question goes stale: "价格实时变动", "以最新公布为准", "今年的考试安排在…", "as of this year",
"rates are subject to change". The question judge reads the question alone and misses what only the answer tells
("核污水排放后学校放假吗", answered "…以当地实时通知为准"); the build flags such an entry too
(pipelines.stages.aggregate, under ``time_sensitive.policy: flag`` and ``time_sensitive.answers``).

Narrow on purpose: words that say the answer's own content changes or was true at a moment. Broad time words
("目前", "现在", "已经", "currently") are left out: "目前科学上没有证据…" is about the state of knowledge, not a
figure going stale. Chosen on the DQ labels' tune split (54 answers with a tell, 53 on time-sensitive questions);
docs/measurements/time-sensitive-questions.md has the report split's figures.
"""

from __future__ import annotations

import re

from schemas.judgement import OWN_THRESHOLD
from schemas.text import lang_space

_TELLS = {
    "zh": re.compile(r"实时|最新|当前|今年|截[至止]|随[^，。；]{0,12}(变化|波动|调整|更新)|每年[^，。；]{0,8}(不同|变化|调整)"),
    "en": re.compile(r"\b(real[- ]time|latest|as of (now|today|this \w+|\w+ \d{4}|\d{4})|at the time of writing|"
                     r"subject to change|up[- ]to[- ]date|this year)\b", re.I),
}


def reads_answers(cfg) -> bool:
    """Does a build under ``cfg`` (a TimeSensitiveConfig) flag entries by their answers' tells? Only under ``policy:
    flag``: under ``drop`` the entries are chosen before their answers are read, under ``keep`` nothing is flagged."""
    return cfg.policy == "flag" and cfg.answers


def answer_tell(answer: str, lang: str) -> str:
    """The words of ``answer`` that say it goes stale, or ""."""
    m = _TELLS[lang_space(lang)].search(answer)
    return m.group() if m else ""


READ_TOGETHER = "question and answers"  # the reason where the question and its answers read together flag an entry


def entry_reasons(detector, entries: list[tuple[str, str, float, str, list[tuple[str, int]]]],
                  sure: list[bool]) -> list[str]:
    """The time-sensitivity reason per entry (question, language, the question's score, the question's reason or
    "", its answers as (text, count)), or "": what a build under ``policy: flag`` with ``answers`` on serves.

    Where the detector has an answers head for the language (the packaged Chinese one: models.timesensitive.
    embedding) and decides at its own threshold, the question and its answers read together decide: they can
    flag an entry its question alone did not, and clear one it did; ``sure``: a sure cue flagged the question
    (kept whatever the answers say). Then an entry not flagged is flagged where one of its answers tells it goes
    stale (:func:`answer_tell`)."""
    read = getattr(detector, "read_answers", None)
    own = getattr(detector, "threshold", OWN_THRESHOLD) == OWN_THRESHOLD
    combined = read([e[:3] + (e[4],) for e in entries]) if read is not None and own else [None] * len(entries)
    out = []
    for (question, lang, _, reason, answers), score, is_sure in zip(entries, combined, sure):
        if score is not None and not is_sure:
            reason = (reason or READ_TOGETHER) if score >= detector.answers_threshold(lang) else ""
        if not reason:
            told = next((t for t in (answer_tell(text, lang) for text, _ in answers) if t), "")
            reason = f"answer: {told}" if told else ""
        out.append(reason)
    return out
