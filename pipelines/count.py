"""Count occurrences per normalised question key; keep the most frequent surface form."""

from __future__ import annotations

from collections import Counter

import apache_beam as beam

from pipelines.progress import MeteredMap
from pipelines.records import QuestionStats


def most_frequent(counts: dict[str, int]) -> str:
    """The most frequent entry; ties go to the lexicographically smallest, so runs agree."""
    return min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]


class QuestionStatsFn(beam.CombineFn):
    """(surface form, lang) values of one key -> counts of forms and languages."""

    def create_accumulator(self):
        return (Counter(), Counter())

    def add_input(self, acc, value):
        question, lang = value
        acc[0][question] += 1
        acc[1][lang] += 1
        return acc

    def merge_accumulators(self, accs):
        forms, langs = Counter(), Counter()
        for f, lg in accs:
            forms.update(f)
            langs.update(lg)
        return (forms, langs)

    def extract_output(self, acc):
        forms, langs = acc
        return forms, langs


def to_question_stats(key: str, forms: Counter, langs: Counter) -> QuestionStats:
    return QuestionStats(
        key=key,
        question=most_frequent(forms),
        frequency=sum(forms.values()),
        lang=most_frequent(langs),
        surface_forms=len(forms),
    )


class CountQuestions(beam.PTransform):
    """accepted rows -> one QuestionStats per distinct key."""

    def expand(self, accepted):
        return (
            accepted
            | "KeyByQuestion" >> beam.Map(lambda r: (r.key, (r.question, r.lang)))
            | "CountPerKey" >> beam.CombinePerKey(QuestionStatsFn())
            | "ToQuestionStats" >> MeteredMap.of("count", lambda kv: to_question_stats(kv[0], *kv[1]))
        )
