"""The aggregators kind's backend table for models.registry (schemas.backends): a name or a path prefix, how to load
it, its identity without loading it. Apart from the package's ``__init__``, so that importing any module of the
kind never runs the table's imports (a package that imports its own modules forms import circles with them)."""

from __future__ import annotations

from schemas.backends import Backend


def _embedding(target, ctx):
    from models.aggregators.embedding import EmbeddingAggregator

    a = ctx.section
    return EmbeddingAggregator(ctx.embedder(ctx.models.embedder), merge_threshold=a.merge_threshold,
                               lexical_weight=a.lexical_weight, summary_max_chars=a.summary_max_chars,
                               embed_max_chars=a.embed_max_chars, embed_max_chars_zh=a.embed_max_chars_zh)


def _embedding_identity(target, ctx) -> str:
    from models.aggregators.embedding import embedding_aggregator_identity

    a = ctx.section
    return embedding_aggregator_identity(ctx.embedder_identity(ctx.models.embedder), a.merge_threshold,
                                         a.lexical_weight, a.summary_max_chars, a.embed_max_chars,
                                         a.embed_max_chars_zh)


def _llm(target, ctx):
    from models.aggregators.llm import LlmAggregator, make_generator

    a = ctx.section
    # the retry bounds change how long a batch may wait, never what it returns: no part of the identity
    generator = make_generator(a.backend, a.llm_max_new_tokens, a.llm_model, attempts=a.llm_attempts,
                               retry_max_s=a.llm_retry_max_seconds, timeout_s=a.llm_timeout_seconds,
                               device=ctx.models.device)
    return LlmAggregator(generator, ctx.backend("embedding"), a.prompt_version)


def _llm_identity(target, ctx) -> str:
    from models.aggregators.llm import generator_identity, llm_aggregator_identity

    a = ctx.section
    return llm_aggregator_identity(generator_identity(a.backend, a.llm_max_new_tokens, a.llm_model),
                                   a.prompt_version, ctx.backend_identity("embedding"))


BACKENDS = (
    Backend("embedding", _embedding, _embedding_identity),
    Backend("hf:", _llm, _llm_identity, "dir", "hf:/path"),
    Backend("http://", _llm, _llm_identity, "", "http(s)://host:port"),
    Backend("https://", _llm, _llm_identity, "", "http(s)://host:port"),
)
