"""``hf:/path``: a local Hugging Face sequence classifier of questions (a label named time_sensitive,
stale, temporal, dynamic or yes; a two-label model without one: label 1)."""

from __future__ import annotations

from pathlib import Path

from models.hfseq import HfYesNo

POSITIVE = frozenset({"time_sensitive", "time-sensitive", "stale", "temporal", "dynamic", "yes", "true", "1"})


class HfTimeSensitivity:
    def __init__(self, path: str | Path, threshold: float | None = None):
        self._clf = HfYesNo(path, POSITIVE, "time-sensitivity")
        self.threshold = 0.5 if threshold is None else float(threshold)
        self.model_id = f"timesensitive-hf:{Path(path).name}@{self._clf.fingerprint}@{self.threshold:g}"

    @staticmethod
    def space(lang: str) -> str:
        return "zh" if lang in ("zh", "mixed") else "en"

    def embedders(self) -> dict:
        return {}

    def score(self, questions, langs, vectors=None):
        probs = self._clf.probabilities(list(questions))
        return [(round(float(p), 6), "time_sensitive" if p >= self.threshold else "") for p in probs]
