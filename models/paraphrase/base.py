"""The paraphrase judge interface: are two questions the same question (one base entry)?

Precision first: merging two different questions corrupts the base, while a missed merge only
leaves a duplicate entry. A judge sees each pair's embedding cosine (in the index embedder's
space, so no text is embedded twice) and the texts themselves.
"""

from __future__ import annotations

from typing import Protocol


class ParaphraseJudge(Protocol):
    model_id: str

    def judge(self, pairs: list[tuple[str, str, str, float]]) -> list[tuple[bool, float]]:
        """(same question?, probability) for each (text a, text b, language, cosine)."""
