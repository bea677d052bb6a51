"""Group the answers given to each kept question.

Identical normalised answers merge with counts; the group is capped (most frequent
first, ties by text) and numbered 1..n.
"""

from __future__ import annotations

from collections import Counter

import apache_beam as beam

from pipelines.count import most_frequent
from pipelines.progress import MeteredMap
from pipelines.records import AnswerCount


class AnswerGroupFn(beam.CombineFn):
    """(answer_key, answer text) values of one question -> {answer_key: Counter(surface forms)}."""

    def create_accumulator(self):
        return {}

    def add_input(self, acc, value):
        answer_key, text = value
        acc.setdefault(answer_key, Counter())[text] += 1
        return acc

    def merge_accumulators(self, accs):
        out: dict[str, Counter] = {}
        for acc in accs:
            for key, forms in acc.items():
                out.setdefault(key, Counter()).update(forms)
        return out

    def extract_output(self, acc):
        return acc


def answer_group(acc: dict[str, Counter], max_answers: int) -> tuple[list[AnswerCount], int, int]:
    """(top answers numbered 1..n, total answers, distinct answers) from a group accumulator."""
    merged = [(sum(forms.values()), most_frequent(forms)) for forms in acc.values()]
    merged.sort(key=lambda ct: (-ct[0], ct[1]))
    total = sum(c for c, _ in merged)
    top = [AnswerCount(i + 1, text, count) for i, (count, text) in enumerate(merged[:max_answers])]
    return top, total, len(merged)


class GroupAnswers(beam.PTransform):
    """accepted rows + side input of kept keys -> {'groups': (key, (answers, total, distinct)),
    'kept_rows': the accepted rows of kept questions}."""

    def __init__(self, kept_keys, max_answers: int):
        super().__init__()
        self._kept_keys = kept_keys
        self._max_answers = max_answers

    def expand(self, accepted):
        max_answers = self._max_answers
        kept_rows = accepted | "OnlyKeptQuestions" >> beam.Filter(
            lambda r, keys: r.key in keys, keys=beam.pvalue.AsSingleton(self._kept_keys))
        groups = (
            kept_rows
            | "KeyAnswers" >> beam.Map(lambda r: (r.key, (r.answer_key, r.answer)))
            | "GroupPerQuestion" >> beam.CombinePerKey(AnswerGroupFn())
            | "NumberAnswers" >> MeteredMap.of("group", lambda kv: (kv[0], answer_group(kv[1], max_answers)))
        )
        return {"groups": groups, "kept_rows": kept_rows}
