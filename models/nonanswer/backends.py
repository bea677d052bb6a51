"""The nonanswer kind's backend table for models.registry (schemas.backends): a name or a path prefix, how to load
it, its identity without loading it. Apart from the package's ``__init__``, so that importing any module of the
kind never runs the table's imports (a package that imports its own modules forms import circles with them)."""

from __future__ import annotations

from models.nonanswer.config import MEANING, NonAnswerConfig
from schemas.backends import Backend
from schemas.judgement import ANSWER, JudgeKind, effective_threshold


def _configured(detector, target, ctx, identity):
    from models.nonanswer.base import ConfiguredNonAnswer

    return ConfiguredNonAnswer(detector, ctx.section.threshold, identity(target, ctx), JUDGE.flags_low)


def _embedding(target, ctx):
    from models.nonanswer.embedding import EmbeddingNonAnswer, load_params

    return _configured(EmbeddingNonAnswer(ctx.embedder(ctx.models.embedder), load_params(target or None)), target,
                       ctx, _embedding_identity)


def _embedding_identity(target, ctx) -> str:
    from models.nonanswer.embedding import load_params, nonanswer_identity

    threshold = ctx.section.threshold
    return (nonanswer_identity(load_params(target or None), ctx.embedder_identity(ctx.models.embedder))
            + ("" if threshold < 0 else f"@{threshold:g}"))


def _rules(target, ctx):
    from models.nonanswer.rules import RuleNonAnswer

    return _configured(RuleNonAnswer(), target, ctx, _rules_identity)


def _rules_identity(target, ctx) -> str:
    from models.nonanswer.rules import RuleNonAnswer

    return f"{RuleNonAnswer.model_id}@{effective_threshold(ctx.section.threshold, RuleNonAnswer.threshold):g}"


def _hf(target, ctx):
    from models.nonanswer.hf import HfNonAnswer

    return _configured(HfNonAnswer(target), target, ctx, _hf_identity)


def _hf_identity(target, ctx) -> str:
    from pathlib import Path

    from models.embedders.hf import dir_fingerprint
    from models.nonanswer.hf import OWN_THRESHOLD, hf_nonanswer_identity

    return hf_nonanswer_identity(target, dir_fingerprint(Path(target)),
                                 effective_threshold(ctx.section.threshold, OWN_THRESHOLD))


BACKENDS = (
    Backend("embedding", _embedding, _embedding_identity),
    Backend("rules", _rules, _rules_identity),
    Backend("embedding:", _embedding, _embedding_identity, "file", "embedding:/params.json"),
    Backend("hf:", _hf, _hf_identity, "dir", "hf:/path"),
)

# built in: its own stage writes answers.non_answer*: qa.parquet's (pipelines.stages.nonanswer)
JUDGE = JudgeKind("non_answer", ANSWER, BACKENDS, NonAnswerConfig, MEANING,
                  ("non_answer", "non_answer_score", "non_answer_reason"))
