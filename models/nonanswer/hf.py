"""``hf:/path``: a local Hugging Face sequence classifier of (question, answer) pairs (a label named
non_answer, nonanswer, refusal, invalid or no_answer; a two-label model without one: label 1)."""

from __future__ import annotations

from pathlib import Path

from models.hfseq import HfYesNo
from models.nonanswer.base import score_answers
from schemas.judgement import Judgement

POSITIVE = frozenset({"non_answer", "non-answer", "nonanswer", "refusal", "invalid", "no_answer", "unanswered"})


OWN_THRESHOLD = 0.5


def hf_nonanswer_identity(path: str | Path, fingerprint: str, threshold: float) -> str:
    return f"nonanswer-hf:{Path(path).name}@{fingerprint}@{threshold:g}"


class HfNonAnswer:
    def __init__(self, path: str | Path):
        self._clf = HfYesNo(path, POSITIVE, "non-answer")
        self.model_id = hf_nonanswer_identity(path, self._clf.fingerprint, OWN_THRESHOLD)

    def own_threshold(self, lang: str) -> float:
        return OWN_THRESHOLD

    def judgements(self, items: list[tuple[str, str, str]]) -> list[Judgement]:
        probs = self._clf.probabilities([q for q, _, _ in items], [a for _, a, _ in items])
        return [Judgement(float(p), "non_answer") for p in probs]

    def score(self, items: list[tuple[str, str, str]]) -> list[tuple[float, str]]:
        return score_answers(self, items)
