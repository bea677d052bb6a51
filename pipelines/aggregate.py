"""Embed kept questions for the index, type them, and aggregate their answers.

Two Beam stages over custom ModelHandlers: ``embed`` (index vector, reused from
scoring when the same embedder produced it, plus objective/subjective type) and
``aggregate`` (majority vote or viewpoints per question).
"""

from __future__ import annotations

import numpy as np
from apache_beam.ml.inference.base import RunInference

from models import registry
from pipelines.config import AggregationConfig, ModelsConfig
from pipelines.handlers import MeteredHandler, ModelBox, run_counted
from pipelines.records import AnswerCount, KeptQuestion, ScoredQuestion
from pipelines.text import question_id


def embed_kept(embedder, qtyper, batch: list[tuple[int, ScoredQuestion]], subjective_threshold: float
               ) -> list[KeptQuestion]:
    vectors: list[np.ndarray | None] = [q.vectors.get(embedder.model_id) for _, q in batch]
    missing = [i for i, v in enumerate(vectors) if v is None]
    if missing:
        for i, v in zip(missing, embedder.embed([batch[i][1].question for i in missing])):
            vectors[i] = v
    mat = np.stack(vectors).astype(np.float32) if vectors else np.zeros((0, embedder.dim), np.float32)
    types = qtyper.classify_vectors([q.question for _, q in batch], mat, subjective_threshold)
    out = []
    for (rank, q), vec, (qtype, qscore) in zip(batch, mat, types):
        out.append(KeptQuestion(question_id(q.key), rank, q._replace(vectors={}), vec, qtype, round(qscore, 6)))
    return out


def qa_row(kept: KeptQuestion, answers: list[AnswerCount], total: int, distinct: int, agg) -> dict:
    """A row of qa.parquet (plus the index vector under 'vector', dropped before writing)."""
    q = kept.scored
    return {
        "qid": kept.qid, "question": q.question, "question_key": q.key, "lang": q.lang,
        "frequency": q.frequency, "rank": kept.rank, "gec_score": q.gec_score, "intent_score": q.intent_score,
        "qtype": kept.qtype, "qtype_score": kept.qtype_score, "answer": agg.answer,
        "confidence": agg.confidence, "vote_margin": agg.vote_margin,
        "viewpoints": [{"summary": v.summary, "answer_ids": list(v.answer_ids)} for v in agg.viewpoints],
        "answers": [{"answer_id": a.answer_id, "text": a.text, "count": a.count} for a in answers],
        "total_answers": total, "distinct_answers": distinct, "method": agg.method, "flags": list(agg.flags),
        "vector": kept.vector,
    }


def aggregate_groups(aggregator, batch: list[tuple[KeptQuestion, tuple]]) -> list[dict]:
    groups = [(k.scored.question, k.qtype, k.scored.lang, answers) for k, (answers, _, _) in batch]
    results = aggregator.aggregate_many(groups)
    return [qa_row(k, answers, total, distinct, agg)
            for (k, (answers, total, distinct)), agg in zip(batch, results)]


class EmbedHandler(MeteredHandler):
    stage = "embed"

    def __init__(self, models_cfg: ModelsConfig, subjective_threshold: float, cache_dir: str | None = None):
        super().__init__(models_cfg.batch_size)
        self._models_cfg = models_cfg
        self._threshold = subjective_threshold
        self._cache_dir = cache_dir

    def load_model(self):
        return ModelBox((registry.embedder(self._models_cfg.embedder, self._models_cfg, self._cache_dir),
                        registry.qtype_classifier(self._models_cfg, self._cache_dir)))

    def run_inference(self, batch, model, inference_args=None):
        emb, qtyper = model.value
        run = lambda: self._run(lambda b: embed_kept(emb, qtyper, b, self._threshold), batch)  # noqa: E731
        return run_counted("embed", emb, run) if self._cache_dir else run()


class AggregateHandler(MeteredHandler):
    stage = "aggregate"

    def __init__(self, models_cfg: ModelsConfig, agg_cfg: AggregationConfig, cache_path: str | None = None,
                 vector_cache_dir: str | None = None):
        super().__init__(max(1, models_cfg.batch_size // 8))  # groups hold up to max_answers texts
        self._models_cfg = models_cfg
        self._agg_cfg = agg_cfg
        self._cache_path = cache_path
        self._vector_cache_dir = vector_cache_dir

    def load_model(self):
        agg = registry.aggregator(self._models_cfg, self._agg_cfg, self._vector_cache_dir)
        if self._cache_path:
            from models.aggregation_cache import AggregationCache, CachedAggregator

            agg = CachedAggregator(agg, AggregationCache(self._cache_path))
        return ModelBox(agg)

    def run_inference(self, batch, model, inference_args=None):
        agg = model.value
        run = lambda: self._run(lambda b: aggregate_groups(agg, b), batch)  # noqa: E731
        return run_counted("aggregate", agg, run) if self._cache_path else run()


def embed_transform(models_cfg: ModelsConfig, agg_cfg: AggregationConfig, cache_dir: str | None = None
                    ) -> RunInference:
    """Index vectors (from the vector cache ``cache_dir/vectors.sqlite`` when given) and question types."""
    return RunInference(EmbedHandler(models_cfg, agg_cfg.subjective_threshold, cache_dir))


def aggregate_transform(models_cfg: ModelsConfig, agg_cfg: AggregationConfig, cache_path: str | None = None,
                        vector_cache_dir: str | None = None) -> RunInference:
    """Aggregated rows; ``cache_path``: the aggregation cache; ``vector_cache_dir``: answer embeddings cache."""
    return RunInference(AggregateHandler(models_cfg, agg_cfg, cache_path, vector_cache_dir))
