"""Build the swappable model objects a config names; each is loaded once per process.

Loading is kept apart from inference: Beam's ModelHandlers call these in
``load_model()`` on each worker, and the objects' batch methods do the inference.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import NamedTuple

from models.aggregators import EmbeddingAggregator
from models.embedders import load_embedder
from models.gec import CausalLmGecScorer, QuireGecScorer, Seq2SeqGecScorer, ZhHeuristicGecScorer
from models.intent import PrototypeIntentScorer
from models.qtype import QuestionTypeClassifier
from pipelines.config import AggregationConfig, ModelsConfig

_LOCK = threading.RLock()
_CACHE: dict[tuple, object] = {}


def _cached(key: tuple, build):
    with _LOCK:
        if key not in _CACHE:
            _CACHE[key] = build()
        return _CACHE[key]


class ScoringModels(NamedTuple):
    gec_en: object
    gec_zh: object
    intent: object  # PrototypeIntentScorer, HeadIntentScorer or HfClassifierIntentScorer


def gec_scorer(name: str, batch_size: int = 32):
    if name == "quire":
        return _cached(("gec", name, batch_size), lambda: QuireGecScorer(batch_size=batch_size))
    if name == "quire-ngram":
        from models.gec_en import QuireFluencyGecScorer

        return _cached(("gec", name, batch_size), lambda: QuireFluencyGecScorer(
            quire=gec_scorer("quire", batch_size)))
    if name == "zh-heuristic":
        return _cached(("gec", name), ZhHeuristicGecScorer)
    if name == "zh-ngram":
        from models.gec_zh import ZhNgramGecScorer

        return _cached(("gec", name), ZhNgramGecScorer)
    if name.startswith("lm:"):
        return _cached(("gec", name), lambda: CausalLmGecScorer(name[3:]))
    if name.startswith("seq2seq:"):
        return _cached(("gec", name), lambda: Seq2SeqGecScorer(name[len("seq2seq:"):]))
    raise ValueError(f"unknown GEC backend {name!r}")


def embedder(spec: str, cfg: ModelsConfig, cache_dir: str | None = None):
    """An embedder; with ``cache_dir``, wrapped in the persistent vector cache ``cache_dir/vectors.sqlite``."""
    if cache_dir:
        from models.vector_cache import CachedEmbedder

        return _cached(("cached-embedder", spec, cfg.batch_size, cfg.torch_threads, cache_dir), lambda: CachedEmbedder(
            embedder(spec, cfg), Path(cache_dir) / "vectors.sqlite"))
    return load_embedder(spec, batch_size=cfg.batch_size, torch_threads=cfg.torch_threads)


def intent_scorer(cfg: ModelsConfig, cache_dir: str | None = None):
    """``models.intent``: ``prototype`` (default) or ``classifier:DIR`` (see models.intent_classifier)."""
    if cfg.intent.startswith("classifier:"):
        from models.intent_classifier import load_classifier_intent

        return _cached(("intent", cfg.intent, cfg.batch_size, cfg.torch_threads, cache_dir),
                       lambda: load_classifier_intent(cfg.intent[len("classifier:"):],
                                                      lambda spec: embedder(spec, cfg, cache_dir)))
    return _cached(("intent", cfg.intent_embedder_en, cfg.intent_embedder_zh, cfg.batch_size, cfg.torch_threads,
                    cache_dir),
                   lambda: PrototypeIntentScorer(embedder(cfg.intent_embedder_en, cfg, cache_dir),
                                                 embedder(cfg.intent_embedder_zh, cfg, cache_dir)))


def scoring_models(cfg: ModelsConfig, cache_dir: str | None = None) -> ScoringModels:
    return _cached(("scoring", cfg, cache_dir), lambda: ScoringModels(gec_scorer(cfg.gec_en), gec_scorer(cfg.gec_zh),
                                                                      intent_scorer(cfg, cache_dir)))


def qtype_classifier(cfg: ModelsConfig, cache_dir: str | None = None) -> QuestionTypeClassifier:
    return _cached(("qtype", cfg.embedder, cache_dir), lambda: QuestionTypeClassifier(
        embedder(cfg.embedder, cfg, cache_dir)))


def embedding_aggregator(models_cfg: ModelsConfig, cfg: AggregationConfig,
                         cache_dir: str | None = None) -> EmbeddingAggregator:
    return _cached(("embedding-aggregator", models_cfg.embedder, cfg, cache_dir), lambda: EmbeddingAggregator(
        embedder(models_cfg.embedder, models_cfg, cache_dir), merge_floor=cfg.merge_floor, merge_ceiling=cfg.merge_ceiling,
        gap_ratio=cfg.gap_ratio, lexical_weight=cfg.lexical_weight, summary_max_chars=cfg.summary_max_chars,
        embed_max_chars=cfg.embed_max_chars))


def aggregator(models_cfg: ModelsConfig, cfg: AggregationConfig, cache_dir: str | None = None):
    """``aggregation.backend``: ``embedding``, or an LLM (``hf:/path``, ``http://...``) falling back to it."""
    if cfg.backend == "embedding":
        return embedding_aggregator(models_cfg, cfg, cache_dir)
    from models.llm_aggregator import LlmAggregator, make_generator

    return _cached(("llm-aggregator", models_cfg.embedder, cfg, cache_dir), lambda: LlmAggregator(
        make_generator(cfg.backend, cfg.llm_max_new_tokens, cfg.llm_model),
        embedding_aggregator(models_cfg, cfg, cache_dir),
        cfg.prompt_version))


def model_identities(models_cfg: ModelsConfig, agg_cfg: AggregationConfig) -> dict[str, str]:
    """What the manifest records as the identity of every model a build used."""
    scoring = scoring_models(models_cfg)
    return {
        "gec_en": scoring.gec_en.model_id,
        "gec_zh": scoring.gec_zh.model_id,
        "intent": scoring.intent.model_id,
        "embedder": embedder(models_cfg.embedder, models_cfg).model_id,
        "qtype": qtype_classifier(models_cfg).model_id,
        "aggregator": aggregator(models_cfg, agg_cfg).model_id,
    }
