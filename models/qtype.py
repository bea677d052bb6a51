"""Objective vs subjective question type, with a score (probability of subjective).

Embedding prototypes of factual and opinion questions (both languages, in the
index embedder's space, so the question's index vector is reused) plus lexical
opinion cues in English and Chinese.
"""

from __future__ import annotations

import re

import numpy as np

from models.prototypes import PrototypeMargin, load_prototypes, sigmoid
from schemas.config import AggregationConfig

_EN_OPINION = re.compile(
    r"\b(best|better|worse|worst|favou?rite|should i|should we|worth|recommend|opinion|think|feel|prefer|"
    r"pros and cons|like|love|hate|good idea|beautiful|overrated|underrated|which is more)\b", re.I)
_ZH_OPINION = re.compile(r"还是|你觉得|你认为|怎么看|看法|观点|好不好|值得|值不值|推荐|哪个好|哪个更|更好|最好|最适合|"
                         r"喜欢|应该|建议|利弊|优缺点|怎么样")
_EN_FACT = re.compile(r"^(what is the|when (was|did|is)|who (wrote|invented|is)|how many|how much|where is|"
                      r"what year|what does .* mean)\b", re.I)
_ZH_FACT = re.compile(r"是哪一年|哪一年|多少|几[个条天年种]|在哪里?|是谁|是什么|什么是|什么意思|有多[长高大远重久]|"
                      r"首都|化学式|沸点|全称|怎么[办做用设重]|如何[办做设重]")


def opinion_cues(text: str) -> dict[str, float]:
    cues: dict[str, float] = {}
    if _EN_OPINION.search(text) or _ZH_OPINION.search(text):
        cues["opinion_words"] = 1.2
    if _EN_FACT.search(text) or _ZH_FACT.search(text):
        cues["fact_form"] = -1.0
    return cues


class QuestionTypeClassifier:
    def __init__(self, embedder):
        protos = load_prototypes()["qtype"]
        subjective = protos["subjective"]["en"] + protos["subjective"]["zh"]
        objective = protos["objective"]["en"] + protos["objective"]["zh"]
        self._margin = PrototypeMargin(embedder, subjective, objective)
        self.embedder = embedder
        self.model_id = qtype_identity(embedder.model_id)

    def classify_vectors(self, texts: list[str], vectors: np.ndarray,
                         threshold: float = AggregationConfig.subjective_threshold) -> list[tuple[str, float]]:
        margins = self._margin.margins(vectors)
        out = []
        for text, m in zip(texts, margins):
            p = sigmoid(float(m) / self._margin.scale + sum(opinion_cues(text).values()))
            out.append(("subjective" if p >= threshold else "objective", p))
        return out


def qtype_identity(embedder_id: str) -> str:
    return f"qtype-prototype-v1[{embedder_id}]"
