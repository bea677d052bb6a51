"""``pair-lr``: a logistic regression on pair evidence (models.paraphrase.evidence), one per language
space, over candidate pairs (cosine at or above a floor), with the decision threshold that reached
the target precision on held-out pairs.

``qabase train-paraphrase`` (models/tools/train_paraphrase.py) fits and measures it on LCQMC and BQ
dev pairs (Chinese) and the project's hand-labelled English pairs (benchmarks/paraphrase_en.tsv);
docs/paraphrase.md has the measurements. Not yet wired into the build (issue 13).
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from models.paraphrase.evidence import FEATURES, pair_features


def space(lang: str) -> str:
    return "zh" if lang in ("zh", "mixed") else "en"


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 50) -> dict:
    """Standardised L2 logistic regression by Newton's method (a few features: exact and fast)."""
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    w = np.zeros(z.shape[1])
    reg = l2 * np.eye(z.shape[1])
    reg[-1, -1] = 0.0  # no penalty on the bias
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-z @ w))
        step = np.linalg.solve((z * (p * (1 - p))[:, None]).T @ z + reg, z.T @ (p - y) + reg @ w)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return {"features": list(FEATURES), "mean": mean.tolist(), "scale": scale.tolist(),
            "weights": w[:-1].tolist(), "bias": float(w[-1])}


def probabilities(params: dict, x: np.ndarray) -> np.ndarray:
    """P(same question) per row of evidence ``x``; 0 below the candidate floor on the cosine (column 0)."""
    z = (x - np.asarray(params["mean"])) / np.asarray(params["scale"])
    p = 1.0 / (1.0 + np.exp(-(z @ np.asarray(params["weights"]) + params["bias"])))
    return np.where(x[:, 0] >= params.get("floor", -1.0), p, 0.0)


def threshold_for_precision(scores: np.ndarray, labels: np.ndarray, target: float) -> float:
    """The lowest score threshold whose precision (on these pairs) is at least ``target``: the pairs at
    or above it are merged. If no cut reaches it, a threshold above every score (nothing merged)."""
    order = np.argsort(-scores, kind="stable")
    s, y = scores[order], labels[order]
    precision = np.cumsum(y) / np.arange(1, len(y) + 1)
    best = float(s[0]) + 1e-9 if len(s) else 1.0
    for i in range(len(s)):
        if i + 1 < len(s) and s[i + 1] == s[i]:
            continue  # a threshold cannot split equal scores
        if precision[i] >= target and s[i] > 0:
            best = float(s[i])
    return best


class PairClassifier:
    """A :class:`models.paraphrase.base.ParaphraseJudge` from trained parameters (``{"en": ..., "zh": ...}``,
    as ``qabase train-paraphrase`` writes them)."""

    def __init__(self, params: dict):
        self.params = params
        digest = hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:12]
        self.model_id = f"paraphrase-pair-lr-v1@{digest}"

    def probabilities(self, pairs: list[tuple[str, str, str, float]]) -> np.ndarray:
        out = np.zeros(len(pairs))
        for sp in ("en", "zh"):
            idx = [i for i, p in enumerate(pairs) if space(p[2]) == sp]
            if idx:
                x = np.stack([pair_features(pairs[i][0], pairs[i][1], pairs[i][2], pairs[i][3]) for i in idx])
                out[idx] = probabilities(self.params[sp], x)
        return out

    def judge(self, pairs: list[tuple[str, str, str, float]]) -> list[tuple[bool, float]]:
        probs = self.probabilities(pairs)
        return [(bool(p >= self.params[space(lang)]["threshold"]), float(p)) for (_, _, lang, _), p in zip(pairs, probs)]
