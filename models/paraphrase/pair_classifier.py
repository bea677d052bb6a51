"""``pair-lr``: a logistic regression on pair evidence (models.paraphrase.evidence), one per language
space, over candidate pairs (cosine at or above a floor), with the decision threshold that reached
the target precision on held-out pairs.

``qabase train-paraphrase`` (models/tools/train_paraphrase.py) fits and measures it on LCQMC and BQ
dev pairs (Chinese) and the project's hand-labelled English pairs (benchmarks/paraphrase_en.tsv);
docs/measurements/paraphrase-merging.md has the measurements; ``models/data/paraphrase_judge.json`` is the packaged
result.
The build's paraphrase stage (pipelines/stages/paraphrase.py) asks it about each candidate pair.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from models import logistic
from models.logistic import read_params
from models.paraphrase import second
from models.paraphrase.evidence import (FEATURES, direction_swapped, entities_differ, negations, numbers_differ,
                                        pair_features)
from schemas.errors import ModelLoadError
from schemas.text import lang_space as space

PACKAGED = Path(__file__).resolve().parents[1] / "data" / "paraphrase_judge.json"
# the judge of one embedding space (no second space), kept as ``paraphrase.judge: pair-lr-single-space``
SINGLE_SPACE = PACKAGED.with_name("paraphrase_judge_single_space.json")
SECOND = "second"  # the feature name of the second space's evidence (models.paraphrase.second)
WITH_SECOND = (*FEATURES, SECOND)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 50) -> dict:
    """Standardised L2 logistic regression (models.logistic) over the pair evidence, named by FEATURES."""
    return {"features": list(FEATURES), **logistic.fit(x, y, l2=l2, steps=steps)}


def probabilities(params: dict, x: np.ndarray) -> np.ndarray:
    """P(same question) per row of evidence ``x``; 0 below the candidate floor on the cosine (column 0)."""
    z = (x - np.asarray(params["mean"])) / np.asarray(params["scale"])
    p = 1.0 / (1.0 + np.exp(-(z @ np.asarray(params["weights"]) + params["bias"])))
    return np.where(x[:, 0] >= params.get("floor", -1.0), p, 0.0)


def wilson_lower(hits: np.ndarray, n: np.ndarray, z: float) -> np.ndarray:
    """The Wilson score lower bound of a proportion hits/n (z = 0: the proportion itself)."""
    p = hits / n
    if z == 0:
        return p
    centre = p + z * z / (2 * n)
    margin = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - margin) / (1 + z * z / n)


def threshold_for_precision(scores: np.ndarray, labels: np.ndarray, target: float, z: float = 0.0) -> float:
    """The lowest score threshold whose precision (on these pairs) is at least ``target``: the pairs at
    or above it are merged. If no cut reaches it, a threshold above every score (nothing merged).
    ``z`` > 0: the precision's Wilson lower bound must reach ``target``, so a threshold set on few
    pairs keeps a margin for the pairs it has not seen (a few hundred pairs move precision by points)."""
    order = np.argsort(-scores, kind="stable")
    s, y = scores[order], labels[order]
    precision = wilson_lower(np.cumsum(y), np.arange(1, len(y) + 1), z)
    best = float(s[0]) + 1e-9 if len(s) else 1.0
    for i in range(len(s)):
        if i + 1 < len(s) and s[i + 1] == s[i]:
            continue  # a threshold cannot split equal scores
        if precision[i] >= target and s[i] > 0:
            best = float(s[i])
    return best


def load_params(path: str | Path | None = None) -> dict:
    """Trained parameters from ``path`` (default: the packaged judge)."""
    p = Path(path) if path else PACKAGED
    params = read_params(p, "paraphrase judge parameters")
    for sp in ("en", "zh"):
        models = [params.get(sp)] + ([params[sp]["also"]] if isinstance(params.get(sp), dict)
                                     and "also" in params[sp] else [])
        for m in models:
            if not isinstance(m, dict) or m.get("features") not in (list(FEATURES), list(WITH_SECOND)):
                raise ModelLoadError(f"model: {p} has no '{sp}' judge over the features {', '.join(FEATURES)}"
                                     f" (and optionally '{SECOND}')")
            if m["features"] == list(WITH_SECOND) and (not isinstance(params[sp].get(SECOND), dict)
                                                       or not params.get("second_embedder")):
                raise ModelLoadError(f"model: {p}: the '{sp}' judge reads a second space's evidence, but the "
                                     "file names no second_embedder or no evidence for it")
    return params


def uses_second(model: dict) -> bool:
    return model["features"] == list(WITH_SECOND)


def model_min_cosine(model: dict, ranges: dict, probability: float) -> float:
    """The lowest cosine at which a pair could reach ``probability`` under one regression ``model``: every
    other feature at the end of its range (``ranges``; [0, 1] unless named) that raises the probability most."""
    w, mean, scale = np.asarray(model["weights"]), np.asarray(model["mean"]), np.asarray(model["scale"])
    rest = model["bias"] + sum(max(w[i] * (v - mean[i]) / scale[i] for v in ranges.get(name, (0.0, 1.0)))
                               for i, name in enumerate(model["features"]) if name != "cosine")
    if w[0] <= 0:
        return model.get("floor", -1.0)
    cos = mean[0] + scale[0] * (_logit(probability) - rest) / w[0]
    return max(float(cos), model.get("floor", -1.0))


def _logit(p: float) -> float:
    p = min(max(p, 1e-12), 1 - 1e-12)
    return float(np.log(p / (1 - p)))


class PairClassifier:
    """A :class:`models.paraphrase.base.ParaphraseJudge` from trained parameters (``{"en": ..., "zh": ...}``,
    as ``qabase train-paraphrase`` writes them). ``thresholds`` override the calibrated ones per space;
    with ``numbers_must_agree`` / ``negation_must_agree`` / ``entities_must_agree`` a pair whose numbers /
    negation / names differ is judged different (probability 0) whatever the regression says: the
    labelled pairs hold few such cases, so the regression barely learned them, and a wrong merge there
    changes the answer."""

    def __init__(self, params: dict, thresholds: dict | None = None, numbers_must_agree: bool = False,
                 negation_must_agree: bool = False, entities_must_agree: bool = False,
                 direction_must_agree: bool = False):
        self.params = params
        self.thresholds = {sp: float((thresholds or {}).get(sp, params[sp]["threshold"])) for sp in ("en", "zh")}
        self.numbers_must_agree = numbers_must_agree
        self.negation_must_agree = negation_must_agree
        self.entities_must_agree = entities_must_agree
        self.direction_must_agree = direction_must_agree
        # the embedder whose vectors the second-space evidence needs (models.paraphrase.second), or None
        self.second_embedder = params.get("second_embedder") if any(SECOND in params[sp] for sp in ("en", "zh")) \
            else None
        payload = json.dumps([params, self.thresholds, numbers_must_agree, negation_must_agree]
                             + ([True] if entities_must_agree else []) + (["direction"] if direction_must_agree else []),
                             sort_keys=True)
        # v2: numbers spelled out agree with digits (evidence._numbers), so the same parameters judge differently;
        # v3: a second space's evidence and an ``also`` regression (models.paraphrase.second)
        self.model_id = f"paraphrase-pair-lr-v3@{hashlib.sha256(payload.encode()).hexdigest()[:12]}"

    def min_cosine(self, sp: str, probability: float) -> float:
        """The lowest cosine at which some pair could still reach ``probability`` (the main regression) or be
        judged the same by the ``also`` one: the other evidence at the values that raise the probability most
        (each in [0, 1], the second space's evidence in its range; a number or negation difference only where
        it is not vetoed). Pairs below it need not be judged at all."""
        prm = self.params[sp]
        # every other feature lies in [0, 1] (the linear term is largest at an end); a vetoed one is 0
        ranges = {"numbers_differ": (0.0,) if self.numbers_must_agree else (0.0, 1.0),
                  "negation_differs": (0.0,) if self.negation_must_agree else (0.0, 1.0)}
        if SECOND in prm:
            ranges[SECOND] = second.value_range(prm[SECOND])
        lowest = model_min_cosine(prm, ranges, probability)
        if "also" in prm:
            lowest = min(lowest, model_min_cosine(prm["also"], ranges, prm["also"]["threshold"]))
        return lowest

    def second_evidence(self, sp: str, a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
        """The second space's evidence (models.paraphrase.second) for pairs of rows of ``a`` and ``b`` (the two
        sides' vectors by :attr:`second_embedder`), or None where the ``sp`` judge reads none."""
        spec = self.params[sp].get(SECOND)
        return None if spec is None else second.evidence(spec, a, b)

    def _scores(self, pairs: list[tuple]) -> tuple[np.ndarray, np.ndarray]:
        """(probability, judged the same by the ``also`` regression) per pair, vetoes applied (probability 0)."""
        out, also_same = np.zeros(len(pairs)), np.zeros(len(pairs), dtype=bool)
        for sp in ("en", "zh"):
            idx = [i for i, p in enumerate(pairs) if space(p[2]) == sp]
            if not idx:
                continue
            prm = self.params[sp]
            x = np.stack([pair_features(*pairs[i][:4]) for i in idx])
            if uses_second(prm) or ("also" in prm and uses_second(prm["also"])):
                if any(len(pairs[i]) < 5 or pairs[i][4] is None for i in idx):
                    raise ValueError(f"the {sp} paraphrase judge reads a second space's evidence: pass it per pair")
                x2 = np.hstack([x, np.array([[float(pairs[i][4])] for i in idx])])
            p = probabilities(prm, x2 if uses_second(prm) else x)
            if "also" in prm:
                also = probabilities(prm["also"], x2 if uses_second(prm["also"]) else x)
                sure = also >= prm["also"]["threshold"]
                p = np.where(sure, np.maximum(p, also), p)
                also_same[idx] = sure
            out[idx] = p
        vetoed = np.array([self.vetoed(p[0], p[1], p[2]) for p in pairs], dtype=bool)
        return np.where(vetoed, 0.0, out), also_same & ~vetoed

    def probabilities(self, pairs: list[tuple]) -> np.ndarray:
        """P(same question) per pair (a, b, space, cosine[, second-space evidence]) by the main regression;
        where an ``also`` regression judges the pair the same, its probability if higher; 0 where vetoed."""
        return self._scores(pairs)[0]

    def vetoed(self, a: str, b: str, lang: str) -> bool:
        """True when the two must not merge whatever else says so (numbers, negation or names differ, or the same
        words ask the opposite direction, where asked)."""
        return (self.numbers_must_agree and numbers_differ(a, b)) or \
            (self.negation_must_agree and negations(a, lang) != negations(b, lang)) or \
            (self.entities_must_agree and entities_differ(a, b)) or \
            (self.direction_must_agree and direction_swapped(a, b, lang))

    def judge(self, pairs: list[tuple]) -> list[tuple[bool, float]]:
        """(same question?, probability) per pair (a, b, space, cosine[, second-space evidence]): the same when
        the main regression reaches its threshold or the ``also`` regression its own."""
        probs, also_same = self._scores(pairs)
        return [(bool(p >= self.thresholds[space(pr[2])] or sure), float(p))
                for pr, p, sure in zip(pairs, probs, also_same)]
