"""The intent scorer interface: how clearly a question asks for something a knowledge base can answer.

Backends: ``prototype`` (embedding prototypes + lexical signals) and ``classifier`` (a trained head on
an embedder, or a local Hugging Face sequence classifier). ``models.registry`` maps config names to them.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from models.embedders.base import Embedder
from schemas.config import FilterConfig
from schemas.judgement import Judgement

REASON = "low_intent"  # a question the intent judge flags (its score at or below filter.intent_threshold)
OWN_THRESHOLD = FilterConfig.intent_threshold


class IntentScorer(Protocol):
    model_id: str

    def space(self, lang: str) -> str:
        """The embedding space ("en" or "zh") a question of language ``lang`` is scored in."""

    def embedders(self) -> dict[str, Embedder]:
        """The embedder of each space whose vectors :meth:`score_with_vectors` returns ({} if none)."""

    def score_with_vectors(self, texts: list[str], langs: list[str]
                           ) -> tuple[list[tuple[float, dict]], dict[int, np.ndarray]]:
        """(score in [0, 1], details) per text, and text i's vector in its space, for later stages to reuse."""

    def score(self, texts: list[str], langs: list[str]) -> list[tuple[float, dict]]: ...


def intent_judgements(scorer: IntentScorer, texts: list[str], langs: list[str]
                      ) -> tuple[list[Judgement], dict[int, np.ndarray]]:
    """The intent question judge (schemas.judgement): a judgement per text, and the vectors the scorer computed."""
    scores, vectors = scorer.score_with_vectors(texts, langs)
    return [Judgement(score, REASON, details) for score, details in scores], vectors
