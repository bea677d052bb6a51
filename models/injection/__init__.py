"""Instruction-like answers: does an answer address the model that reads it? (``injection.model``;
models.injection.base). ``BACKENDS``: this kind's table for models.registry (schemas.backends). The loader hands
out its judge at ``injection.threshold`` (models.injection.base.ConfiguredInjection): the judge scores,
schemas.judgement decides."""

from __future__ import annotations

from schemas.backends import Backend
from schemas.judgement import effective_threshold


def _patterns(target, ctx):
    from models.injection.base import ConfiguredInjection
    from models.injection.patterns import PatternInjection

    return ConfiguredInjection(PatternInjection(), ctx.section.threshold, _patterns_identity(target, ctx))


def _patterns_identity(target, ctx) -> str:
    from models.injection.patterns import PatternInjection

    return f"{PatternInjection.model_id}@{effective_threshold(ctx.section.threshold, PatternInjection.threshold):g}"


BACKENDS = (
    Backend("patterns", _patterns, _patterns_identity),
)
