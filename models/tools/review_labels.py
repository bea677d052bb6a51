"""A review file's decisions as labelled examples for the judges, on the texts a base holds (docs/review.md,
docs/guides/learning-from-review.md).

A reviewer who excludes an entry because its answer answers nothing, or who writes the answer an entry lacked,
has labelled answers; one who marks a question time-sensitive (or not) has labelled a question; one who merges or
splits two questions has labelled a pair. Which decision says what:

* ``exclude`` whose note names a non-answer (:data:`NON_ANSWER_NOTE`: "non-answer", "non_answer", "非答案",
  "不是答案"...): every logged answer of the question is a non-answer (label 1); an exclusion for another reason
  (stale, off-topic, unsafe) says nothing about its answers and gives no label;
* ``answer``: the reviewer's answer answers the question (label 0); with a note naming a non-answer, the logged
  answers it replaces are non-answers too;
* ``time_sensitive``: the question, labelled with ``value``;
* ``merge`` / ``split``: the two questions, the same question (1) or not (0);
* ``keep``: nothing (it overrides a question filter, not a judge).

A reviewer's decisions are one-sided: a reviewer excludes what is wrong and names little of what is right, so
a head fitted on them alone learns the chatbot's style as "non-answer" (measured: on the demo of
docs/guides/learning-from-review.md it flagged half the base). :func:`anchors` adds what the reviewer let stand:
the version's own verdicts on the published entries no decision names (their answer is an answer; their
time-sensitivity flag is right), each a label of line 0.

The texts come from the base, not the file: a question's most asked form, its language and its distinct answers
(each in its most given form) from the version's ``state/questions.parquet``; a decision naming a question the
base does not hold gives no label and is listed as skipped. Where two decisions label the same thing, the later
line wins, as in the build.
"""

from __future__ import annotations

import random
import re
from typing import NamedTuple

from schemas.review import Decision

NON_ANSWER_NOTE = re.compile(r"non[-_ ]?answer|非答案|不是答案|没有回答|答非所问", re.I)
KINDS = ("non_answer", "time_sensitive", "paraphrase")
ANCHOR_LINE = 0  # the line of a label no decision gave (an anchor)


class QuestionTexts(NamedTuple):
    """What a base holds of one question key."""

    question: str  # its most asked form
    lang: str  # its most common language
    answers: tuple[str, ...]  # each distinct answer in its most given form, the most given first


class Label(NamedTuple):
    """One labelled example: ``kind`` non_answer (question, answer), time_sensitive (question) or paraphrase
    (question, other); ``line``: the decision it came from."""

    kind: str
    line: int
    lang: str
    label: int
    question: str
    text: str = ""  # non_answer: the answer; paraphrase: the other question


class Labels(NamedTuple):
    labels: tuple[Label, ...]
    skipped: tuple[tuple[int, str], ...]  # (line, why) of decisions that named a label but gave none

    def of(self, kind: str) -> list[Label]:
        return [lab for lab in self.labels if lab.kind == kind]


def _most(counted: list[dict]) -> str:
    """The text of a counted list (``[{"text", "count"}]``) given most (the first such in order on a tie)."""
    return max(counted, key=lambda c: c["count"])["text"] if counted else ""


def base_texts(folder) -> dict[str, QuestionTexts]:
    """Question key -> its texts, from a published version's folder (its ``state/questions.parquet``)."""
    import pyarrow.parquet as pq

    from schemas.layout import QUESTIONS_FILE, STATE_DIR

    table = pq.read_table(folder / STATE_DIR / QUESTIONS_FILE, columns=["key", "forms", "langs", "answers"])
    out = {}
    for row in table.to_pylist():
        answers = sorted(row["answers"], key=lambda a: -sum(f["count"] for f in a["forms"]))
        out[row["key"]] = QuestionTexts(_most(row["forms"]), _most(row["langs"]) or "en",
                                        tuple(_most(a["forms"]) for a in answers))
    return out


def says_non_answer(decision: Decision) -> bool:
    return bool(NON_ANSWER_NOTE.search(decision.note))


def labels_of(decisions, texts: dict[str, QuestionTexts]) -> Labels:
    """The labels the ``decisions`` give on a base's ``texts`` (:func:`base_texts`), the later line winning where
    two label the same answer, question or pair."""
    found: dict[tuple, Label] = {}
    skipped: list[tuple[int, str]] = []
    for d in decisions:
        own = texts.get(d.key)
        wants = (d.action in ("merge", "split", "time_sensitive", "answer")
                 or (d.action == "exclude" and says_non_answer(d)))
        if not wants:
            continue
        if own is None:
            skipped.append((d.line, f"{d.action}: the base holds no question {d.question!r}"))
            continue
        if d.action in ("exclude", "answer") and says_non_answer(d):
            for answer in own.answers:
                found[("non_answer", d.key, answer)] = Label("non_answer", d.line, own.lang, 1, own.question, answer)
        if d.action == "answer":
            found[("non_answer", d.key, d.answer)] = Label("non_answer", d.line, own.lang, 0, own.question, d.answer)
        elif d.action == "time_sensitive":
            found[("time_sensitive", d.key)] = Label("time_sensitive", d.line, own.lang, int(d.value), own.question)
        elif d.action in ("merge", "split"):
            other = texts.get(d.other_key)
            if other is None:
                skipped.append((d.line, f"{d.action}: the base holds no question {d.other!r}"))
                continue
            pair = tuple(sorted((d.key, d.other_key)))
            found[("paraphrase", *pair)] = Label("paraphrase", d.line, own.lang, int(d.action == "merge"),
                                                 own.question, other.question)
    return Labels(tuple(sorted(found.values(), key=lambda lab: (lab.line, lab.kind, lab.text))), tuple(skipped))


def held_out_lines(labels: Labels, share: float, seed: int) -> frozenset[int]:
    """The decisions (by line) held out of the fit to measure it: per kind of label, a ``seed``-ed ``share`` of the
    decisions giving that kind (at least one where a kind has two or more and ``share`` > 0), so that all the
    labels of one decision fall on the same side."""
    out: set[int] = set()
    for kind in KINDS:
        lines = sorted({lab.line for lab in labels.of(kind)} - out)
        if share <= 0 or len(lines) < 2:
            continue
        n = min(len(lines) - 1, max(1, round(share * len(lines))))
        out.update(random.Random(f"{seed}:{kind}").sample(lines, n))
    return frozenset(out)


def anchors(folder, decisions, texts: dict[str, QuestionTexts], limit: int, seed: int) -> list[Label]:
    """The version's verdicts on what the reviewer let stand, as labels of :data:`ANCHOR_LINE`: for each published
    entry (``questions.parquet``'s kept rows) whose question no decision names, its most given answer labelled an
    answer (0) and its question labelled with its time-sensitivity flag; a ``seed``-ed sample of ``limit`` entries
    where there are more (the entries in key order first, so the sample does not depend on the file's order)."""
    import pyarrow.parquet as pq

    from schemas.layout import QUESTIONS_FILE

    named = {key for d in decisions for key in d.keys()}
    rows = pq.read_table(folder / QUESTIONS_FILE, columns=["question_key", "kept", "time_sensitive"]).to_pylist()
    stood = sorted((r["question_key"], bool(r["time_sensitive"])) for r in rows
                   if r["kept"] and r["question_key"] not in named and r["question_key"] in texts)
    if len(stood) > limit:
        stood = sorted(random.Random(f"{seed}:anchors").sample(stood, limit))
    out = []
    for key, flagged in stood:
        own = texts[key]
        if own.answers:
            out.append(Label("non_answer", ANCHOR_LINE, own.lang, 0, own.question, own.answers[0]))
        out.append(Label("time_sensitive", ANCHOR_LINE, own.lang, int(flagged), own.question))
    return out


def held_out_anchors(labels: list[Label], share: float, seed: int) -> frozenset[int]:
    """Which anchors (by index in ``labels``) are held out: a ``seed``-ed ``share`` of them."""
    if share <= 0 or len(labels) < 2:
        return frozenset()
    n = min(len(labels) - 1, max(1, round(share * len(labels))))
    return frozenset(random.Random(f"{seed}:anchors-held").sample(range(len(labels)), n))
