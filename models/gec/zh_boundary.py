"""Per-boundary error evidence for the Chinese GEC default (zh-ngram v4).

Every boundary between two characters of a text (and its start and end) gets 24 numbers from the
character models zh-ngram already holds: the surprisal ``-log P`` of the character after it under the
left-to-right model cut to orders 5, 3, 2 and 1, and of the character before it under the right-to-left
models of the same orders (8), the same 8 at the boundary to its left and the 8 at the boundary to its right
(0 beyond the text's ends). A logistic head (``models/data/zh_gec_boundary_lr.json``, fitted by
``python -m models.tools.train_zh_gec`` on where MuCGEC dev's corrections edit a learner sentence) turns
them into one log-odds per boundary: how much it looks like a place an annotator would edit. The text's
value is the power mean (p = 3) of the log-odds above the fitted ``offset`` (the median boundary), so one
bad place in a long sentence still counts.

v3 fixed the mix by hand (5-gram minus half the bigram, both directions, this boundary only). The head
learns it, and the neighbours and the order-3 and unigram terms are what it adds: on MuCGEC dev split by
essay topic (docs/measurements/chinese-gec.md), fitted on one group and measured on the other, pooled AUROC
rises from 0.621 to 0.632, and from 0.587 to 0.599 on the third of the lines with the fewest edits.
"""

from __future__ import annotations

import difflib

import numpy as np

from models.lm.char_ngram import CharNgramModel, normalise

ORDERS = (5, 3, 2, 1)
FEATURE_NAMES = tuple(f"{side}{d}{o}" for side in ("", "left_", "right_") for o in ORDERS for d in ("fwd", "bwd"))


class BoundaryFeatures:
    """The 24 per-boundary features of texts, from the left-to-right and right-to-left Kneser-Ney models and
    their bigram models (orders 3 and 1 are the Kneser-Ney models cut short: no extra memory)."""

    def __init__(self, forward: CharNgramModel, forward_bigram: CharNgramModel, backward: CharNgramModel,
                 backward_bigram: CharNgramModel):
        if not backward.backward:
            raise ValueError("zh-ngram: the backward model must be trained right to left")
        if not all(m.vocab is forward.vocab for m in (forward_bigram, backward, backward_bigram)):
            raise ValueError("zh-ngram: the four models must share one vocabulary")
        self._models = []
        for order in ORDERS:
            pick = {forward.order: (forward, backward), 2: (forward_bigram, backward_bigram)}
            pair = pick.get(order) or (forward.truncated(order), backward.truncated(order))
            self._models.append(pair)
        self.encode = forward.encode

    def __call__(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(features, one row per boundary, texts one after another; boundaries per text = characters + 1)."""
        encoded = [self.encode(t) for t in texts]
        cols, n_pred = [], None
        for fwd, bwd in self._models:
            f, n_pred = fwd.flat_logprobs(encoded)
            b, _ = bwd.flat_logprobs(encoded)
            cols += [-f, -b]
        if not texts:
            return np.zeros((0, len(FEATURE_NAMES))), np.zeros(0, dtype=np.int64)
        start = np.concatenate([[0], np.cumsum(n_pred)[:-1]])
        pos = np.arange(len(cols[0])) - np.repeat(start, n_pred)
        # boundary k sits before character k (k = n: the end); the right-to-left value for it is that of
        # character k - 1, and for k = 0 that of the text's start (each text's last value)
        shift = np.where(pos == 0, np.repeat(start + n_pred - 1, n_pred), np.arange(len(cols[0])) - 1)
        here = np.column_stack([c[shift] if i % 2 else c for i, c in enumerate(cols)])
        first, last = pos == 0, pos == np.repeat(n_pred, n_pred) - 1
        left = np.roll(here, 1, axis=0)
        left[first] = 0.0
        right = np.roll(here, -1, axis=0)
        right[last] = 0.0
        return np.hstack([here, left, right]), np.asarray(n_pred)


def boundary_log_odds(params: dict, x: np.ndarray) -> np.ndarray:
    z = (x - np.asarray(params["mean"])) / np.asarray(params["scale"])
    return z @ np.asarray(params["weights"]) + params["bias"]


def text_values(params: dict, log_odds: np.ndarray, n_pred: np.ndarray) -> np.ndarray:
    """Per text: the power mean of its boundaries' log-odds above ``params["offset"]`` (0 for a text with none)."""
    if len(n_pred) == 0:
        return np.zeros(0)
    start = np.concatenate([[0], np.cumsum(n_pred)[:-1]])
    p = float(params["power"])
    above = np.maximum(log_odds - params["offset"], 0.0) ** p
    return np.power(np.add.reduceat(above, start) / n_pred, 1.0 / p)


def edited_boundaries(source: str, correction: str) -> np.ndarray:
    """0/1 per boundary of ``source`` (normalised; characters + 1): 1 where the correction inserts text or
    which touches a character it deletes or replaces (both sides of it)."""
    a, b = normalise(source), normalise(correction)
    out = np.zeros(len(a) + 1)
    for op, i1, i2, _, _ in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            out[i1:i2 + 1] = 1.0
    return out
