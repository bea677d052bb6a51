"""``hf:/path``: a local Hugging Face sequence classifier of (question, answer) pairs (a label named
non_answer, nonanswer, refusal, invalid or no_answer; a two-label model without one: label 1)."""

from __future__ import annotations

from pathlib import Path

from models.hfseq import HfYesNo

POSITIVE = frozenset({"non_answer", "non-answer", "nonanswer", "refusal", "invalid", "no_answer", "unanswered"})


class HfNonAnswer:
    def __init__(self, path: str | Path, threshold: float | None = None):
        self._clf = HfYesNo(path, POSITIVE, "non-answer")
        self.threshold = 0.5 if threshold is None else float(threshold)
        self.model_id = f"nonanswer-hf:{Path(path).name}@{self._clf.fingerprint}@{self.threshold:g}"

    def score(self, items: list[tuple[str, str, str]]) -> list[tuple[float, str]]:
        probs = self._clf.probabilities([q for q, _, _ in items], [a for _, a, _ in items])
        return [(round(float(p), 6), "non_answer" if p >= self.threshold else "") for p in probs]
