"""Group the answers given to each kept entry: pooled over all its forms (paraphrases).

Identical normalised answers merge with counts; the group is capped (most frequent
first, ties by text) and numbered 1..n.
"""

from __future__ import annotations

from collections import Counter

from pipelines.stages.count import most_frequent
from schemas.records import AnswerCount


def answer_group(acc: dict[str, Counter], max_answers: int) -> tuple[list[AnswerCount], int, int]:
    """(top answers numbered 1..n, total answers, distinct answers) from a group accumulator."""
    merged = [(sum(forms.values()), most_frequent(forms)) for forms in acc.values()]
    merged.sort(key=lambda ct: (-ct[0], ct[1]))
    total = sum(c for c, _ in merged)
    top = [AnswerCount(i + 1, text, count) for i, (count, text) in enumerate(merged[:max_answers])]
    return top, total, len(merged)


def pool_answers(groups) -> dict[str, Counter]:
    """The answers of several questions (state accumulators' ``{answer_key: surface form counts}``) as one."""
    out: dict[str, Counter] = {}
    for acc in groups:
        for key, forms in acc.items():
            out.setdefault(key, Counter()).update(forms)
    return out
