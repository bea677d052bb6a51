"""Two-class prototype scoring on sentence embeddings, self-calibrated per embedder.

For a text, ``margin = mean top-k cosine to the positive prototypes - mean top-k
cosine to the negative ones``. Embedders differ in scale (e5 puts unrelated
sentences at cosine 0.8, MiniLM at 0.1), so the margin is divided by a scale
measured on the prototypes themselves (leave-one-out margins). ``logit =
margin / scale`` then feeds a sigmoid together with lexical signals.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import yaml

DATA = Path(__file__).parent / "data" / "prototypes.yaml"


@functools.lru_cache(maxsize=1)
def load_prototypes() -> dict:
    return yaml.safe_load(DATA.read_text(encoding="utf-8"))


def _topk_mean(sims: np.ndarray, k: int) -> np.ndarray:
    k = min(k, sims.shape[1])
    part = np.partition(sims, sims.shape[1] - k, axis=1)[:, -k:]
    return part.mean(axis=1)


class PrototypeMargin:
    """Margin of texts between a positive and a negative prototype set, in one embedding space."""

    def __init__(self, embedder, positive: list[str], negative: list[str], k: int = 3):
        self.embedder = embedder
        self.k = k
        self._pos = embedder.embed(positive)
        self._neg = embedder.embed(negative)
        self.scale = self._loo_scale()

    def _loo_scale(self) -> float:
        """Spread of leave-one-out margins of the prototypes: the embedder's own unit."""
        margins = []
        for own, other, sign in ((self._pos, self._neg, 1.0), (self._neg, self._pos, -1.0)):
            sims_own = own @ own.T
            np.fill_diagonal(sims_own, -np.inf)
            m = _topk_mean(sims_own, self.k) - _topk_mean(own @ other.T, self.k)
            margins.append(sign * m)
        all_m = np.abs(np.concatenate(margins))
        return float(max(np.median(all_m), 1e-3))

    def margins(self, vectors: np.ndarray) -> np.ndarray:
        """Raw margins (positive side minus negative side) of pre-computed vectors."""
        if len(vectors) == 0:
            return np.zeros(0)
        # float64: a float32 product changes in its last bits with the number of rows (BLAS blocking), which
        # would make a question's score depend on the batch it was scored in (see models/embedders/hf.py)
        v = np.asarray(vectors, dtype=np.float64)
        return (_topk_mean(v @ self._pos.T.astype(np.float64), self.k)
                - _topk_mean(v @ self._neg.T.astype(np.float64), self.k))


def sigmoid(x: float) -> float:
    return float(1.0 / (1.0 + np.exp(-x)))
