"""Stage ``score``: each distinct question once: GEC and intent, kept iff gec > e1 and intent > e2.

Scores, the details of which signals fired, and the reason are recorded for every
distinct question. Embeddings computed for intent are passed on so later stages (paraphrase
merging, the index) don't embed the same text again with the same model.
"""

from __future__ import annotations

from pathlib import Path

from apache_beam.ml.inference.base import RunInference

from models.caches.scores import ScoreCache
from models.gec.base import details_json
from models.registry import ModelFactory, ScoringModels
from pipelines.stages.counters import run_counted
from pipelines.stages.metering import MeteredHandler, ModelBox
from schemas.config import FilterConfig
from schemas.layout import SCORE_CACHE
from schemas.records import QuestionStats, ScoredQuestion


def score_questions(models: ScoringModels, batch: list[QuestionStats], filt: FilterConfig) -> list[ScoredQuestion]:
    texts = [q.question for q in batch]
    langs = [q.lang for q in batch]
    gec: list[tuple[float, dict] | None] = [None] * len(batch)
    for scorer, wanted in ((models.gec_en, ("en", "other")), (models.gec_zh, ("zh", "mixed"))):
        idx = [i for i, lg in enumerate(langs) if lg in wanted]
        if idx:
            for i, res in zip(idx, scorer.score([texts[i] for i in idx])):
                gec[i] = res
    intent = models.intent
    intents, vectors = intent.score_with_vectors(texts, langs)
    embedders = intent.embedders()
    out = []
    for i, q in enumerate(batch):
        g_score, g_details = gec[i]
        i_score, i_details = intents[i]
        passed_gec = g_score > filt.gec_threshold
        passed_intent = i_score > filt.intent_threshold
        space = intent.space(q.lang)
        # every question's vector goes on: the paraphrase stage compares all of them (a typo'd form still
        # joins its entry), and the index reuses the representative's
        reuse = {embedders[space].model_id: vectors[i]} if space in embedders else {}
        out.append(ScoredQuestion(
            key=q.key, question=q.question, frequency=q.frequency, lang=q.lang, surface_forms=q.surface_forms,
            gec_score=round(float(g_score), 6), intent_score=round(float(i_score), 6),
            gec_details=details_json(g_details),
            intent_details=details_json(i_details),
            passed_gec=passed_gec, passed_intent=passed_intent, vectors=reuse, first_seen=q.first_seen,
            answers=q.answers, period=q.period))
    return out


def fate(q: ScoredQuestion) -> str:
    """The reject reason of a scored question, or '' if it passed both filters."""
    reasons = []
    if not q.passed_gec:
        reasons.append("low_gec")
    if not q.passed_intent:
        reasons.append("low_intent")
    return "+".join(reasons)


class ScoringHandler(MeteredHandler):
    """Loads the scorers once per worker; scores batches of distinct questions."""

    stage = "score"

    def __init__(self, factory: ModelFactory, filt: FilterConfig, batch_size: int, cache_dir: str | None = None):
        super().__init__(batch_size)
        self._factory = factory
        self._filt = filt
        self._cache_dir = cache_dir

    def load_model(self):
        models = self._factory.scoring()
        cache = ScoreCache(str(Path(self._cache_dir) / SCORE_CACHE), models) if self._cache_dir else None
        return ModelBox((models, cache))

    def run_inference(self, batch, model, inference_args=None):
        models, cache = model.value
        score = lambda b: score_questions(models, b, self._filt)  # noqa: E731
        if cache is None:
            return self._run(score, batch)
        return run_counted("score", cache, lambda: self._run(lambda b: cache.score(b, self._filt, score), batch))


def score_transform(factory: ModelFactory, filt: FilterConfig, batch_size: int,
                    cache_dir: str | None = None) -> RunInference:
    """QuestionStats -> ScoredQuestion, batched, scorers loaded once per worker; with ``cache_dir``, each
    question already scored by the same models is served from the score cache there."""
    return RunInference(ScoringHandler(factory, filt, batch_size, cache_dir))
