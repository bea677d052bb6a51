"""The time-sensitivity judgement: does a question's right answer change within months or a few years?

Prices, release dates of things not yet released, this year's school opening dates, the latest episode,
lottery numbers, who holds an office now: an answer logged some time ago may be wrong today. The build
flags such entries (``time_sensitive``, with the period of the logs their answers came from) or drops
them (``time_sensitive.policy``).
"""

from __future__ import annotations

from typing import Protocol


class TimeSensitivityDetector(Protocol):
    model_id: str

    def space(self, lang: str) -> str:
        """Which of :meth:`embedders` holds a question of this language (its vector is reused)."""

    def embedders(self) -> dict:
        """The sentence embedders it reads vectors from, by space ("en", "zh"); {} when it needs none."""

    def score(self, questions: list[str], langs: list[str], vectors: list) -> list[tuple[float, str]]:
        """(score in [0, 1], reason) per question; ``vectors``: each question's vector in its space from
        :meth:`embedders` (or None: the detector embeds it). The reason is the cue family ("price",
        "latest", ...) or "time_sensitive" for a time-sensitive question, and "" exactly when it is not one
        (each backend applies its own thresholds)."""
