"""The GEC scorer interface and the score every backend shares: 1 = needs no correction.

A score comes from corrections per word, each weighted by its confidence:
``score = exp(-strength * sum(weights) / words)``. One confident correction in a
five-word question gives about 0.5. Backends: ``quire`` and ``quire-ngram`` (English), ``zh-heuristic``
and ``zh-ngram`` (Chinese), ``lm:`` (a local causal LM) and ``seq2seq:`` (a local corrector).
"""

from __future__ import annotations

import json
import math
import threading
from typing import Protocol

from schemas.config import FilterConfig
from schemas.judgement import Judgement
from schemas.privacy.redactor import with_stand_ins

STRENGTH = 3.5
REASON = "low_gec"  # a question the GEC judge flags (its score at or below filter.gec_threshold)
OWN_THRESHOLD = FilterConfig.gec_threshold  # the filter's default: one confident correction in a five-word question


class GecScorer(Protocol):
    model_id: str

    def score(self, texts: list[str]) -> list[tuple[float, dict]]: ...


class BuiltOnFirstUse:
    """A scorer built when it is first given texts to score. Its identity is known without building it, so a build
    whose texts all come from the score cache never pays for it (a small increment with no new Chinese question
    never loads the Chinese n-gram models)."""

    def __init__(self, build, model_id: str):
        self._build = build
        self._scorer: GecScorer | None = None
        self._building = threading.Lock()  # a runner's threads may share the model: it is built once
        self.model_id = model_id

    def score(self, texts: list[str]) -> list[tuple[float, dict]]:
        if not texts:
            return []
        with self._building:
            if self._scorer is None:
                self._scorer = self._build()
        return self._scorer.score(texts)


# how GecJudge reads a question, part of the score cache's key: placeholders read as stand-in values
READS = "placeholders-as-values-v1"


class GecJudge:
    """The GEC question judge (schemas.judgement): the English scorer for en and other, the Chinese one for zh
    and mixed. A quality score (its direction is declared with the kind: models.gec.backends.JUDGE)."""

    LANGS = {"en": ("en", "other"), "zh": ("zh", "mixed")}

    def __init__(self, en: GecScorer, zh: GecScorer):
        self.scorers = {"en": en, "zh": zh}
        self.model_id = f"{en.model_id}+{zh.model_id}"

    def own_threshold(self, lang: str) -> float:
        return OWN_THRESHOLD

    def judgements(self, texts: list[str], langs: list[str]) -> list[Judgement]:
        # a redacted question is judged as if its values were there (schemas.privacy.with_stand_ins)
        texts = [with_stand_ins(t) for t in texts]
        out: list[Judgement | None] = [None] * len(texts)
        for side, wanted in self.LANGS.items():
            idx = [i for i, lg in enumerate(langs) if lg in wanted]
            if idx:
                for i, (score, details) in zip(idx, self.scorers[side].score([texts[i] for i in idx])):
                    out[i] = Judgement(score, REASON, details)
        return out  # type: ignore[return-value]


def score_from_weights(weights: list[float], units: float) -> float:
    rate = sum(weights) / max(units, 1.0)
    return float(math.exp(-STRENGTH * rate))


def details_json(details: dict) -> str:
    return json.dumps(details, ensure_ascii=False, sort_keys=True)
