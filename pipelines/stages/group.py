"""Group the answers given to each kept entry: pooled over all its forms (paraphrases).

Identical normalised answers merge with counts; the group is capped (most frequent
first, ties by text) and numbered 1..n.
"""

from __future__ import annotations

from collections import Counter

from pipelines.stages.count import shown_form
from schemas.records import AnswerCount


def ranked_answers(acc: dict[str, Counter]) -> list[tuple[str, int, str]]:
    """(answer key, count, shown text: its most given surface form, :func:`shown_form`) of a group accumulator, most given first
    (ties by text)."""
    merged = [(key, sum(forms.values()), shown_form(forms)) for key, forms in acc.items()]
    merged.sort(key=lambda x: (-x[1], x[2]))
    return merged


def answer_group(acc: dict[str, Counter], max_answers: int) -> tuple[list[AnswerCount], int, int]:
    """(top answers numbered 1..n, total answers, distinct answers) from a group accumulator."""
    ranked = ranked_answers(acc)
    top = [AnswerCount(i + 1, text, count) for i, (_, count, text) in enumerate(ranked[:max_answers])]
    return top, sum(c for _, c, _ in ranked), len(ranked)


def pool_answers(groups) -> dict[str, Counter]:
    """The answers of several questions (state accumulators' ``{answer_key: surface form counts}``) as one."""
    out: dict[str, Counter] = {}
    for acc in groups:
        for key, forms in acc.items():
            out.setdefault(key, Counter()).update(forms)
    return out
