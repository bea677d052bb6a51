"""The non-answer judgement: does an answer answer its question?

A chatbot often answers without answering: a refusal, "I cannot provide real-time information",
"无法确定", "建议关注官方信息", "作为一个AI…", a restatement of the question. Such an answer must never
win a vote or hold a viewpoint. An answer that says it cannot give the exact figure and then gives
the rule, a range or the main facts *is* an answer.
"""

from __future__ import annotations

from typing import Protocol

from models.nonanswer.config import NonAnswerConfig
from schemas.judgement import Configured, Judgement, verdicts


class NonAnswerDetector(Protocol):
    """A judge of (question, answer, language) items (schemas.judgement: it scores, the stage decides)."""

    model_id: str

    def own_threshold(self, lang: str) -> float:
        """The threshold it was calibrated for: an answer scoring at or above it is a non-answer."""

    def judgements(self, items: list[tuple[str, str, str]]) -> list[Judgement]:
        """Per item: score in [0, 1] (how surely it is a non-answer) and the reason it is one if flagged (the
        family: refusal, no_realtime, ... or "non_answer")."""


def score_answers(detector: NonAnswerDetector, items: list[tuple[str, str, str]],
                  threshold: float = NonAnswerConfig.threshold, flags_low: bool = False) -> list[tuple[float, str]]:
    """(score, reason) per item at ``threshold`` (-1: the detector's own), in the direction the kind declares
    (``flags_low``: models.nonanswer.backends.JUDGE's); the reason is "" exactly when the answer answers."""
    return verdicts(detector, detector.judgements(items) if items else [], [lang for _, _, lang in items], threshold,
                    flags_low)


class ConfiguredNonAnswer(Configured):
    """A detector at non_answer.threshold in its kind's direction (what the registry hands out; ``model_id``: the
    config's identity)."""

    def score(self, items: list[tuple[str, str, str]]) -> list[tuple[float, str]]:
        return score_answers(self, items, flags_low=self.flags_low)
