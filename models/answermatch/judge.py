"""The answer-match judge: P(the answer does not answer the question) from the pair model (models.cross_encoder),
question first. It was trained on Chinese answers only: other languages are not judged (score 0, no reason)."""

from __future__ import annotations

import numpy as np

from schemas.judgement import Judgement

REASON = "does_not_answer"
LANGS = ("zh", "mixed")


class AnswerMatchJudge:
    """P(the answer does not answer the question), reason ``does_not_answer`` (a detector: see models.answermatch
    .backends.JUDGE)."""

    langs = LANGS

    def __init__(self, logits, threshold: float, model_id: str, asks_above: float = 0.0,
                 lets_through_below: float = 0.0):
        self.logits = logits  # (question, answer) pairs -> logits (cross_encoder.pair_logits bound to a model)
        self.threshold = threshold
        self.model_id = model_id
        # asked only of answers the non-answer judge scores at least this (pipelines.stages.nonanswer)
        self.asks_above = asks_above
        # also asked of the answers that judge flags by its score alone: those it scores below this are let through
        self.lets_through_below = lets_through_below

    def own_threshold(self, lang: str) -> float:
        return self.threshold

    def judgements(self, items: list[tuple[str, str, str]]) -> list[Judgement]:
        """Per (question, answer, lang) item (schemas.judgement.AnswerJudge)."""
        asked = [i for i, (_, _, lang) in enumerate(items) if lang in self.langs]
        p = np.zeros(len(items))
        if asked:
            p[asked] = 1.0 / (1.0 + np.exp(-np.asarray(self.logits([items[i][:2] for i in asked]))))
        return [Judgement(round(float(p[i]), 6), REASON if lang in self.langs else "")
                for i, (_, _, lang) in enumerate(items)]
