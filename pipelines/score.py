"""Score each distinct question once: GEC and intent, kept iff gec > e1 and intent > e2.

Scores, the details of which signals fired, and the reason are recorded for every
distinct question. Embeddings computed for intent are passed on (for kept
questions) so later stages don't embed the same text again with the same model.
"""

from __future__ import annotations

from apache_beam.ml.inference.base import RunInference

from models.gec import details_json
from models.registry import ScoringModels, scoring_models
from pipelines.config import FilterConfig, ModelsConfig
from pipelines.handlers import MeteredHandler, ModelBox
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

    def __init__(self, models_cfg: ModelsConfig, filt: FilterConfig):
        super().__init__(models_cfg.batch_size)
        self._models_cfg = models_cfg
        self._filt = filt

    def load_model(self):
        return ModelBox(scoring_models(self._models_cfg))

    def run_inference(self, batch, model, inference_args=None):
        return self._run(lambda b: score_questions(model.value, b, self._filt), batch)


def score_transform(models_cfg: ModelsConfig, filt: FilterConfig) -> RunInference:
    """QuestionStats -> ScoredQuestion, batched, scorers loaded once per worker."""
    return RunInference(ScoringHandler(models_cfg, filt))
