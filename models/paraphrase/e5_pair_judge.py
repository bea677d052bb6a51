"""``pair-e5``: Chinese pairs judged by the pair model on the packaged e5 (models.cross_encoder: both
questions read together), English pairs by the packaged ``pair-lr`` judge (the pair model was trained on Chinese
pairs only). The build's vetoes (numbers, negation, names, direction) apply to both, as they do to ``pair-lr``.

``pair-lr`` reads the two pooled vectors' cosine and word-level evidence; the pairs it cannot part (one question
word, an antonym or one slot changed on otherwise the same words) are what the pair model reads token by token
(docs/measurements/paraphrase-pair-model.md). Where the model's file holds a ``mix`` (its trainer chose one on the
tune pairs), a Chinese pair's probability is the two judges' log-odds mixed (:func:`mixed`): ``pair-lr`` proposes
(a pair it gives 0, below its floor or vetoed, is never asked) and the pair model reads what it proposes. Without
one, the pair model decides alone. It costs one encoder pass per pair asked (on ``models.device``: the GPU where
there is one).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from models.paraphrase.pair_classifier import PairClassifier, space
from models.paraphrase.surface import same_surface

# the rules the judge applies besides the model: part of its identity, so a change of them is a new judge
RULES = "surface-v1;mix-v1"
EPS = 1e-6  # probabilities are read as log-odds within [EPS, 1 - EPS]

PACKAGED = Path(__file__).resolve().parents[1] / "data" / "paraphrase_e5_pairs.npz"


def judge_identity(model_sha: str, threshold_zh: float, english_id: str, mix: dict | None = None) -> str:
    """The judge's identity from its adapters file's digest, its Chinese threshold, the English judge's identity
    and the file's mix (what the manifest records), computed without loading the encoder."""
    payload = f"{model_sha}|{float(threshold_zh)!r}|{english_id}|{RULES}" + \
        (f"|mix {float(mix['weight'])!r}" if mix else "")
    return f"paraphrase-e5-pair-v1@{hashlib.sha256(payload.encode()).hexdigest()[:12]}"


def own_threshold(meta: dict) -> float:
    """The Chinese threshold a pair model's file sets: its mix's where it has one, else the model's own."""
    return float(meta["mix"]["threshold"] if meta.get("mix") else meta["thresholds"]["zh"])


def log_odds(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, dtype=np.float64), EPS, 1 - EPS)
    return np.log(p / (1 - p))


def mixed(p_lr: np.ndarray, p_model: np.ndarray, weight: float) -> np.ndarray:
    """P(one question) from ``pair-lr``'s probability and the pair model's, their log-odds weighted ``weight`` and
    ``1 - weight``; 0 where ``pair-lr``'s is 0 (below its floor, or vetoed)."""
    p_lr = np.asarray(p_lr, dtype=np.float64)
    s = weight * log_odds(p_lr) + (1 - weight) * log_odds(p_model)
    return np.where(p_lr > 0, 1 / (1 + np.exp(-s)), 0.0)


def canonical(a: str, b: str) -> tuple[str, str]:
    """A pair in one order whichever way it comes: the order it was trained in (the model is not symmetric)."""
    return (a, b) if a <= b else (b, a)


class E5PairJudge:
    """A :class:`models.paraphrase.base.ParaphraseJudge`. ``logits(pairs)``: the pair model's logit per (a, b)
    (cross_encoder.pair_logits bound to a model); ``meta``: its file's metadata (threshold, floor, embedder)."""

    def __init__(self, logits, meta: dict, english: PairClassifier, threshold_zh: float | None = None,
                 model_sha: str = ""):
        self.logits = logits
        self.meta = meta
        self.english = english
        self.floor = float(meta["floor"])
        self.mix = meta.get("mix")  # {"weight": pair-lr's, "threshold": the mixed probability's}, or None
        own = own_threshold(meta)
        self.thresholds = {"en": english.thresholds["en"], "zh": float(own if threshold_zh is None else threshold_zh)}
        self.second_embedder = english.second_embedder if self.mix or "second" in english.params["en"] else None
        # the spaces whose cosines each side was fitted on (models.registry checks the config's embedders)
        self.params = {"en": english.params["en"], "zh": {"embedder": meta.get("embedder")}}
        self.model_id = judge_identity(model_sha, self.thresholds["zh"], english.model_id, self.mix)

    def min_cosine(self, sp: str, probability: float) -> float:
        if sp == "en":
            return self.english.min_cosine(sp, probability)
        if not self.mix:
            return self.floor
        # mixed: pair-lr must give the pair more than 0 (its floor, or its ``also`` regression's sure cosine)
        return max(self.floor, self.english.min_cosine(sp, EPS))

    def second_evidence(self, sp: str, a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
        return self.english.second_evidence(sp, a, b) if sp == "en" or self.mix else None

    def vetoed(self, a: str, b: str, lang: str) -> bool:
        return self.english.vetoed(a, b, lang)

    def probabilities_zh(self, pairs: list[tuple]) -> np.ndarray:
        """P(one question) per Chinese pair (a, b, space, cosine, ...): 1 where the two differ only in how they are
        written (models.paraphrase.surface), else 0 below the floor or where vetoed, else the model's."""
        out = np.zeros(len(pairs))
        written = [i for i, p in enumerate(pairs) if same_surface(p[0], p[1])]
        out[written] = 1.0
        if self.mix:
            rest = [i for i in range(len(pairs)) if out[i] == 0.0]
            lr = np.zeros(len(pairs))
            if rest:
                lr[rest] = self.english.probabilities([pairs[i] for i in rest])
            asked = [i for i in rest if lr[i] > 0 and float(pairs[i][3]) >= self.floor]
        else:
            asked = [i for i, p in enumerate(pairs) if out[i] == 0.0 and float(p[3]) >= self.floor
                     and not self.vetoed(p[0], p[1], p[2])]
        if asked:
            model = 1.0 / (1.0 + np.exp(-np.asarray(self.logits([canonical(*pairs[i][:2]) for i in asked]))))
            out[asked] = mixed(lr[asked], model, float(self.mix["weight"])) if self.mix else model
        # six places, as every judge's probability is recorded (a matrix product's last bits may differ with a
        # batch's shape; the same pairs are batched alike in every build, full or incremental)
        return np.round(out, 6)

    def judge(self, pairs: list[tuple]) -> list[tuple[bool, float]]:
        out: list = [None] * len(pairs)
        en = [i for i, p in enumerate(pairs) if space(p[2]) == "en"]
        zh = [i for i, p in enumerate(pairs) if space(p[2]) != "en"]
        for i, v in zip(en, self.english.judge([pairs[i] for i in en]) if en else []):
            out[i] = v
        for i, p in zip(zh, self.probabilities_zh([pairs[i] for i in zh]) if zh else []):
            out[i] = (bool(p >= self.thresholds["zh"]), float(p))
        return out
