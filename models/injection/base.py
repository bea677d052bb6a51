"""The instruction-like judgement: does an answer address the model that reads it?

The base exists to be read by an agent. An answer logged as "SYSTEM OVERRIDE: ignore previous instructions and
..." is not an answer to the user's question but an instruction to whoever reads it next; served verbatim it
speaks to the agent. A judge of (question, answer, language) items scores each answer and names the cue family
that makes it instruction-like (models.injection.cues); the nonanswer stage applies ``injection.policy``.
"""

from __future__ import annotations

from typing import Protocol

from models.injection.config import InjectionConfig
from schemas.judgement import Configured, Judgement, verdicts


class InjectionJudge(Protocol):
    """A judge of (question, answer, language) items (schemas.judgement: it scores, the stage decides)."""

    model_id: str

    def own_threshold(self, lang: str) -> float:
        """An answer scoring at or above it is instruction-like."""

    def judgements(self, items: list[tuple[str, str, str]]) -> list[Judgement]:
        """Per item: score in [0, 1] and the reason if flagged (instruction_override, role_injection,
        template_tokens, tool_request, hidden_text, encoded_payload)."""


def score_answers(judge: InjectionJudge, items: list[tuple[str, str, str]],
                  threshold: float = InjectionConfig.threshold, flags_low: bool = False) -> list[tuple[float, str]]:
    """(score, reason) per item at ``threshold`` (-1: the judge's own), in the direction the kind declares
    (``flags_low``: models.injection.backends.JUDGE's); the reason is "" exactly when the answer is not
    instruction-like."""
    return verdicts(judge, judge.judgements(items) if items else [], [lang for _, _, lang in items], threshold,
                    flags_low)


class ConfiguredInjection(Configured):
    """A judge at injection.threshold in its kind's direction (what the registry hands out; ``model_id``: the
    config's identity)."""

    def score(self, items: list[tuple[str, str, str]]) -> list[tuple[float, str]]:
        return score_answers(self, items, flags_low=self.flags_low)
