"""Stage ``count``: occurrences per normalised question key, folded into the saved state of earlier logs.

The per-question state is (surface forms, languages, {answer_key: answer surface forms}, first seen, the
(first, last) dates of its rows), the first three with counts; it is written to ``state/questions.parquet`` (see pipelines.state for the rest of the state).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import apache_beam as beam

from models.caches.judgements import CachedPredicate, module_digest, package_digest
from models.nonanswer.rules import RuleNonAnswer
from models.paraphrase.evidence import answer_signature
from pipelines.beam.counters import count_cache
from schemas.dates import seen_date, widen
from schemas.layout import JUDGEMENT_CACHE
from schemas.records import QuestionStats
from schemas.text import has_lookalikes


def most_frequent(counts: dict[str, int]) -> str:
    """The most frequent entry; ties go to the lexicographically smallest, so runs agree."""
    return min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]


def shown_form(forms: dict[str, int]) -> str:
    """The form of a question (or answer) to show: the most frequent of those written in their own letters. Forms
    that differ only by look-alike letters of another script share a key; however often the look-alike is logged,
    people, models and search then read the form it imitates."""
    plain = {f: n for f, n in forms.items() if not has_lookalikes(f)}
    return most_frequent(plain or forms)


_RULES = RuleNonAnswer()


def is_stock_non_answer(answer: str) -> bool:
    """A refusal, "I cannot provide real-time information", "无法确定，请咨询官方": the same few sentences answer
    many unrelated questions, so sharing one is no evidence that two questions are one (the paraphrase
    stage's answer evidence leaves them out). The pattern families alone (precision 1.000 on the
    non-answer evaluation set, no model at count time); the non-answer stage later judges every
    candidate's answers with the full detector."""
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in answer) else "en"
    return _RULES.judge("", answer, lang)[0] >= _RULES.threshold


def to_question_stats(key: str, state: tuple, stock=is_stock_non_answer) -> QuestionStats:
    """``stock``: :func:`is_stock_non_answer`, or the same answers from a cache (:class:`ToQuestionStats`)."""
    forms, langs, answers, first_seen, period = state
    return QuestionStats(
        key=key,
        question=shown_form(forms),
        frequency=sum(forms.values()),
        lang=most_frequent(langs),
        surface_forms=len(forms),
        first_seen=first_seen,
        answers=answer_signature(answers, skip=stock),
        period=tuple(period),
    )


class ToQuestionStats:
    """(key, merged state) -> :func:`to_question_stats`, for pipelines.beam.metering.MeteredMap. With the build
    caches' folder, the stock-answer check of an answer checked by an earlier build comes from the judgement cache
    (models.caches.judgements): every build derives every distinct question's stats again, a day's increment too,
    and the rules over each of their answers grew with the base (~0.1 ms an answer)."""

    def __init__(self, cache_dir: str | None = None):
        self._cache_dir = cache_dir
        self._stock: CachedPredicate | None = None

    def setup(self) -> None:
        if self._cache_dir:
            # the rules' identity and code, and this module's (is_stock_non_answer's language test is here): an
            # edit of another stage leaves the day's answers' verdicts cached
            identity = "\x00".join((_RULES.model_id, "stock", package_digest(RuleNonAnswer.__module__),
                                    module_digest(__name__)))
            self._stock = CachedPredicate(Path(self._cache_dir) / JUDGEMENT_CACHE, is_stock_non_answer, identity)

    def __call__(self, kv) -> QuestionStats:
        if self._stock is None:
            return to_question_stats(kv[0], kv[1])
        self._stock.prefetch(kv[1][2])
        return to_question_stats(kv[0], kv[1], self._stock)

    def finish_bundle(self) -> None:
        if self._stock is not None:
            self._stock.flush()
            count_cache("count", self._stock.hits, self._stock.misses)
            self._stock.hits = self._stock.misses = 0


class CountQuestions(beam.PTransform):
    """accepted rows (+ the saved state of earlier logs, see pipelines.state) -> (key, merged state) per
    distinct question; :func:`to_question_stats` of a state's forms and languages gives its QuestionStats."""

    def __init__(self, previous_state: str | None = None):
        super().__init__()
        self._previous = previous_state

    def expand(self, accepted):
        rows = accepted | "KeyRows" >> beam.Map(lambda r: (r.key, row_value(r)))
        if self._previous:
            saved = (accepted.pipeline
                     | "ReadState" >> beam.io.ReadFromParquet(self._previous)
                     | "StateValues" >> beam.Map(state_value))
            rows = (rows, saved) | "WithState" >> beam.Flatten()
        return rows | "CountPerKey" >> beam.CombinePerKey(QuestionStateFn())


class QuestionStateFn(beam.CombineFn):
    """Values of one key, either a row ``(question, lang, answer_key, answer, seen)`` or a saved state
    ``(forms, langs, answers, first_seen, period)`` -> the merged state ``(Counter, Counter,
    {answer_key: Counter}, first_seen, (first date, last date))`` (first_seen: the smallest ``seen``; ""
    only while empty; the dates are "" while no row had a timestamp)."""

    def create_accumulator(self):
        return (Counter(), Counter(), {}, "", ("", ""))

    def add_input(self, acc, value):
        forms, langs, answers, first, period = acc
        if isinstance(value[0], str):  # a row
            question, lang, answer_key, answer, seen = value
            forms[question] += 1
            langs[lang] += 1
            answers.setdefault(answer_key, Counter())[answer] += 1
            period = widen(period, seen_date(seen))
        else:
            f, lg, ans, seen, (d0, d1) = value
            forms.update(f)
            langs.update(lg)
            for key, texts in ans.items():
                answers.setdefault(key, Counter()).update(texts)
            period = widen(widen(period, d0), d1)
        first = seen if not first or (seen and seen < first) else first
        return forms, langs, answers, first, period

    def merge_accumulators(self, accs):
        out = self.create_accumulator()
        for acc in accs:
            out = self.add_input(out, acc)
        return out

    def extract_output(self, acc):
        return acc


def row_value(row) -> tuple:
    """An accepted row as a value for :class:`QuestionStateFn`."""
    return (row.question, row.lang, row.answer_key, row.answer, row.seen)


def _counted(c: dict) -> list[dict]:
    return [{"text": t, "count": int(n)} for t, n in sorted(c.items())]


def state_record(kv) -> dict:
    """(key, merged state) -> a row of state/questions.parquet (lists sorted, so files are deterministic)."""
    key, (forms, langs, answers, first_seen, (d0, d1)) = kv
    return {"key": key, "forms": _counted(forms), "langs": _counted(langs),
            "answers": [{"answer_key": a, "forms": _counted(answers[a])} for a in sorted(answers)],
            "first_seen": first_seen, "first_date": d0, "last_date": d1}


def state_value(record: dict) -> tuple:
    """A row of state/questions.parquet -> (key, saved state value)."""
    def counts(items):
        return {x["text"]: x["count"] for x in items}

    return record["key"], (counts(record["forms"]), counts(record["langs"]),
                           {a["answer_key"]: counts(a["forms"]) for a in record["answers"]}, record["first_seen"],
                           (record["first_date"], record["last_date"]))
