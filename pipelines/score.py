"""Score each distinct question once: GEC and intent, kept iff gec > e1 and intent > e2.

Scores, the details of which signals fired, and the reason are recorded for every
distinct question. Embeddings computed for intent are passed on (for kept
questions) so later stages don't embed the same text again with the same model.
"""

from __future__ import annotations

from pathlib import Path

from apache_beam.ml.inference.base import RunInference

from models.gec import details_json
from models.registry import ScoringModels, scoring_models
from pipelines.config import FilterConfig, ModelsConfig
from pipelines.handlers import MeteredHandler, ModelBox, run_counted
from pipelines.records import QuestionStats, ScoredQuestion


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
        reuse = {embedders[space].model_id: vectors[i]} if passed_gec and passed_intent and space in embedders \
            else {}
        out.append(ScoredQuestion(
            key=q.key, question=q.question, frequency=q.frequency, lang=q.lang, surface_forms=q.surface_forms,
            gec_score=round(float(g_score), 6), intent_score=round(float(i_score), 6),
            gec_details=details_json(g_details),
            intent_details=details_json(i_details),
            passed_gec=passed_gec, passed_intent=passed_intent, vectors=reuse))
    return out


class ScoreCache:
    """Scores and details of questions scored before, keyed by (text, language, scoring model identities).

    A question's scores depend on its representative surface form and language, so those are the key,
    with the identities of the GEC and intent models (a new model or version misses). Thresholds are
    applied afresh on every hit. Stored in ``cache_dir/scores.sqlite``.
    """

    def __init__(self, path: str, models: ScoringModels):
        from models.sqlite_kv import SqliteKV

        self.kv = SqliteKV(path, "scores", "result", "TEXT")
        self.identity = "\x00".join((models.gec_en.model_id, models.gec_zh.model_id, models.intent.model_id))
        self.hits = 0
        self.misses = 0

    def key(self, q: QuestionStats) -> str:
        import hashlib

        return hashlib.sha256(f"{self.identity}\x00{q.lang}\x00{q.question}".encode("utf-8")).hexdigest()

    def score(self, models: ScoringModels, batch: list[QuestionStats], filt: FilterConfig) -> list[ScoredQuestion]:
        import json

        keys = [self.key(q) for q in batch]
        found = self.kv.get_many(sorted(set(keys)))
        todo = [i for i, k in enumerate(keys) if k not in found]
        fresh = score_questions(models, [batch[i] for i in todo], filt) if todo else []
        self.kv.put_many({keys[i]: json.dumps([s.gec_score, s.intent_score, s.gec_details, s.intent_details])
                          for i, s in zip(todo, fresh)})
        out: list[ScoredQuestion | None] = [None] * len(batch)
        for i, s in zip(todo, fresh):
            out[i] = s
        for i, k in enumerate(keys):
            if out[i] is None:
                g, it, gd, idt = json.loads(found[k])
                q = batch[i]
                out[i] = ScoredQuestion(key=q.key, question=q.question, frequency=q.frequency, lang=q.lang,
                                        surface_forms=q.surface_forms, gec_score=g, intent_score=it, gec_details=gd,
                                        intent_details=idt, passed_gec=g > filt.gec_threshold,
                                        passed_intent=it > filt.intent_threshold, vectors={})
        self.misses += len(todo)
        self.hits += len(batch) - len(todo)
        return out  # type: ignore[return-value]


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

    def __init__(self, models_cfg: ModelsConfig, filt: FilterConfig, cache_dir: str | None = None):
        super().__init__(models_cfg.batch_size)
        self._models_cfg = models_cfg
        self._filt = filt
        self._cache_dir = cache_dir

    def load_model(self):
        models = scoring_models(self._models_cfg, self._cache_dir)
        cache = ScoreCache(str(Path(self._cache_dir) / "scores.sqlite"), models) if self._cache_dir else None
        return ModelBox((models, cache))

    def run_inference(self, batch, model, inference_args=None):
        models, cache = model.value
        if cache is None:
            return self._run(lambda b: score_questions(models, b, self._filt), batch)
        return run_counted("score", cache, lambda: self._run(lambda b: cache.score(models, b, self._filt), batch))


def score_transform(models_cfg: ModelsConfig, filt: FilterConfig, cache_dir: str | None = None) -> RunInference:
    """QuestionStats -> ScoredQuestion, batched, scorers loaded once per worker; with ``cache_dir``, each
    question already scored by the same models is served from the score cache."""
    return RunInference(ScoringHandler(models_cfg, filt, cache_dir))
