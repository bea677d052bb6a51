"""Count occurrences per normalised question key; keep the most frequent surface form."""

from __future__ import annotations

from collections import Counter

import apache_beam as beam

from pipelines.state import QuestionStateFn, row_value, state_value
from schemas.records import QuestionStats


def most_frequent(counts: dict[str, int]) -> str:
    """The most frequent entry; ties go to the lexicographically smallest, so runs agree."""
    return min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]


def to_question_stats(key: str, forms: Counter, langs: Counter) -> QuestionStats:
    return QuestionStats(
        key=key,
        question=most_frequent(forms),
        frequency=sum(forms.values()),
        lang=most_frequent(langs),
        surface_forms=len(forms),
    )


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
