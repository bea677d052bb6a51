"""The GEC scorer interface and the score every backend shares: 1 = needs no correction.

A score comes from corrections per word, each weighted by its confidence:
``score = exp(-strength * sum(weights) / words)``. One confident correction in a
five-word question gives about 0.5. Backends: ``quire`` and ``quire-ngram`` (English), ``zh-heuristic``
and ``zh-ngram`` (Chinese), ``lm:`` (a local causal LM) and ``seq2seq:`` (a local corrector).
"""

from __future__ import annotations

import json
import math
from typing import Protocol

STRENGTH = 3.5


class GecScorer(Protocol):
    model_id: str

    def score(self, texts: list[str]) -> list[tuple[float, dict]]: ...


def score_from_weights(weights: list[float], units: float) -> float:
    rate = sum(weights) / max(units, 1.0)
    return float(math.exp(-STRENGTH * rate))


def details_json(details: dict) -> str:
    return json.dumps(details, ensure_ascii=False, sort_keys=True)
