"""The timesensitive kind's backend table for models.registry (schemas.backends): a name or a path prefix, how to load
it, its identity without loading it. Apart from the package's ``__init__``, so that importing any module of the
kind never runs the table's imports (a package that imports its own modules forms import circles with them)."""

from __future__ import annotations

from models.timesensitive.config import MEANING, TimeSensitiveConfig
from schemas.backends import Backend
from schemas.judgement import QUESTION, JudgeKind, effective_threshold


def _configured(detector, target, ctx, identity):
    from models.timesensitive.base import ConfiguredTimeSensitivity

    return ConfiguredTimeSensitivity(detector, ctx.section.threshold, identity(target, ctx), JUDGE.flags_low)


def _spaces(ctx) -> dict:
    return {"en": ctx.models.intent_embedder_en, "zh": ctx.models.intent_embedder_zh}


def _embedding(target, ctx):
    from models.timesensitive.embedding import EmbeddingTimeSensitivity, load_params

    detector = EmbeddingTimeSensitivity({sp: ctx.embedder(spec) for sp, spec in _spaces(ctx).items()},
                                        load_params(target or None))
    return _configured(detector, target, ctx, _embedding_identity)


def _embedding_identity(target, ctx) -> str:
    from models.timesensitive.embedding import embedding_identity, load_params, own_thresholds_suffix

    threshold = ctx.section.threshold
    ids = ",".join(ctx.embedder_identity(spec) for spec in _spaces(ctx).values())
    return (f"{embedding_identity(load_params(target or None))}{own_thresholds_suffix(None if threshold < 0 else threshold)}"
            f"[{ids}]")


def _rules(target, ctx):
    from models.timesensitive.rules import RuleTimeSensitivity

    return _configured(RuleTimeSensitivity(), target, ctx, _rules_identity)


def _rules_identity(target, ctx) -> str:
    from models.timesensitive.rules import RuleTimeSensitivity

    threshold = effective_threshold(ctx.section.threshold, RuleTimeSensitivity.threshold)
    return f"{RuleTimeSensitivity.model_id}@{threshold:g}"


def _hf(target, ctx):
    from models.timesensitive.hf import HfTimeSensitivity

    return _configured(HfTimeSensitivity(target), target, ctx, _hf_identity)


def _hf_identity(target, ctx) -> str:
    from pathlib import Path

    from models.embedders.hf import dir_fingerprint
    from models.timesensitive.hf import OWN_THRESHOLD, hf_timesensitive_identity

    return hf_timesensitive_identity(target, dir_fingerprint(Path(target)),
                                     effective_threshold(ctx.section.threshold, OWN_THRESHOLD))


def _judged(section_cfg) -> bool:
    # policy keep: not judged (the columns say false)
    return section_cfg.policy != "keep"


BACKENDS = (
    Backend("embedding", _embedding, _embedding_identity),
    Backend("rules", _rules, _rules_identity),
    Backend("embedding:", _embedding, _embedding_identity, "file", "embedding:/params.json"),
    Backend("hf:", _hf, _hf_identity, "dir", "hf:/path"),
)

# built in: its own stage writes questions.parquet's and qa.parquet's time_sensitive* (pipelines.stages.frontier)
JUDGE = JudgeKind("time_sensitive", QUESTION, BACKENDS, TimeSensitiveConfig, MEANING,
                  ("time_sensitive", "time_sensitive_score", "time_sensitive_reason"), _judged)
