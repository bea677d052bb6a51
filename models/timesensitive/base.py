"""The time-sensitivity judgement: does a question's right answer change within months or a few years?

Prices, release dates of things not yet released, this year's school opening dates, the latest episode,
lottery numbers, who holds an office now: an answer logged some time ago may be wrong today. The build
flags such entries (``time_sensitive``, with the period of the logs their answers came from) or drops
them (``time_sensitive.policy``).
"""

from __future__ import annotations

from typing import Protocol

from models.timesensitive.config import TimeSensitiveConfig
from schemas.judgement import Configured, Judgement, verdicts


class TimeSensitivityDetector(Protocol):
    model_id: str

    def space(self, lang: str) -> str:
        """Which of :meth:`embedders` holds a question of this language (its vector is reused)."""

    def embedders(self) -> dict:
        """The sentence embedders it reads vectors from, by space ("en", "zh"); {} when it needs none."""

    def own_threshold(self, lang: str) -> float:
        """The threshold it was calibrated for: a question scoring at or above it is time-sensitive."""

    def judgements(self, questions: list[str], langs: list[str], vectors: list) -> list[Judgement]:
        """Per question: score in [0, 1] and the reason it is time-sensitive if flagged (the cue family: "price",
        "latest", ... or "time_sensitive"); ``vectors``: each question's vector in its space from
        :meth:`embedders` (or None: the detector embeds it)."""


def score_questions(detector: TimeSensitivityDetector, questions: list[str], langs: list[str], vectors=None,
                    threshold: float = TimeSensitiveConfig.threshold, flags_low: bool = False
                    ) -> list[tuple[float, str]]:
    """(score, reason) per question at ``threshold`` (-1: the detector's own), in the direction the kind declares
    (``flags_low``: models.timesensitive.backends.JUDGE's); the reason is "" exactly when the question is not
    time-sensitive."""
    if not questions:
        return []
    judged = detector.judgements(list(questions), list(langs), list(vectors) if vectors is not None
                                 else [None] * len(questions))
    return verdicts(detector, judged, langs, threshold, flags_low)


class ConfiguredTimeSensitivity(Configured):
    """A detector at time_sensitive.threshold in its kind's direction (what the registry hands out; ``model_id``:
    the config's identity)."""

    def score(self, questions: list[str], langs: list[str], vectors=None) -> list[tuple[float, str]]:
        return score_questions(self, questions, langs, vectors, flags_low=self.flags_low)
