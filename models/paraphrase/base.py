"""The paraphrase judge interface: are two questions the same question (one base entry)?

Precision first: merging two different questions corrupts the base, while a missed merge only
leaves a duplicate entry. A judge sees each pair's embedding cosine (in the language's question
space, so no text is embedded twice) and the texts themselves. The build's paraphrase stage
(pipelines/stages/paraphrase.py) uses all of what is declared here.
"""

from __future__ import annotations

from typing import Protocol


class ParaphraseJudge(Protocol):
    model_id: str
    thresholds: dict  # {"en": p, "zh": p}: a pair at or above its language's probability is the same question

    def judge(self, pairs: list[tuple[str, str, str, float]]) -> list[tuple[bool, float]]:
        """(same question?, probability) for each (text a, text b, language space, cosine)."""

    def vetoed(self, a: str, b: str, lang: str) -> bool:
        """True when the two must never merge, whatever else says so (numbers, negation, names differ)."""

    def min_cosine(self, sp: str, probability: float) -> float:
        """The lowest cosine at which a pair in space ``sp`` could still reach ``probability``."""
