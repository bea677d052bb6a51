"""``hf:/path``: a local Hugging Face sequence classifier of questions (a label named time_sensitive,
stale, temporal, dynamic or yes; a two-label model without one: label 1)."""

from __future__ import annotations

from pathlib import Path

from models.hfseq import HfYesNo
from models.timesensitive.base import score_questions
from schemas.judgement import Judgement
from schemas.text import lang_space

POSITIVE = frozenset({"time_sensitive", "time-sensitive", "stale", "temporal", "dynamic", "yes", "true", "1"})


OWN_THRESHOLD = 0.5


def hf_timesensitive_identity(path: str | Path, fingerprint: str, threshold: float) -> str:
    return f"timesensitive-hf:{Path(path).name}@{fingerprint}@{threshold:g}"


class HfTimeSensitivity:
    def __init__(self, path: str | Path):
        self._clf = HfYesNo(path, POSITIVE, "time-sensitivity")
        self.model_id = hf_timesensitive_identity(path, self._clf.fingerprint, OWN_THRESHOLD)

    def own_threshold(self, lang: str) -> float:
        return OWN_THRESHOLD

    @staticmethod
    def space(lang: str) -> str:
        return lang_space(lang)

    def embedders(self) -> dict:
        return {}

    def judgements(self, questions, langs, vectors=None) -> list[Judgement]:
        return [Judgement(float(p), "time_sensitive") for p in self._clf.probabilities(list(questions))]

    def score(self, questions, langs, vectors=None):
        return score_questions(self, questions, langs, vectors)
