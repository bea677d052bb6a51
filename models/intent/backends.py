"""The intent kind's backend table for models.registry (schemas.backends): a name or a path prefix, how to load
it, its identity without loading it. Apart from the package's ``__init__``, so that importing any module of the
kind never runs the table's imports (a package that imports its own modules forms import circles with them)."""

from __future__ import annotations

from schemas.backends import Backend
from schemas.judgement import QUESTION, JudgeKind


def _prototype(target, ctx):
    from models.intent.prototype import PrototypeIntentScorer

    return PrototypeIntentScorer(ctx.embedder(ctx.models.intent_embedder_en), ctx.embedder(ctx.models.intent_embedder_zh))


def _prototype_identity(target, ctx) -> str:
    from models.intent.prototype import prototype_intent_identity

    return prototype_intent_identity(ctx.embedder_identity(ctx.models.intent_embedder_en),
                                     ctx.embedder_identity(ctx.models.intent_embedder_zh))


def _classifier(target, ctx):
    from models.intent.classifier import load_classifier_intent

    return load_classifier_intent(target, ctx.embedder)


def _classifier_identity(target, ctx) -> str:
    from models.intent.classifier import classifier_identity

    return classifier_identity(target, ctx.embedder_identity)


BACKENDS = (
    Backend("prototype", _prototype, _prototype_identity),
    Backend("classifier:", _classifier, _classifier_identity, "dir", "classifier:/path"),
)

MEANING = ("Intent: a question is kept only if its intent score (1 = a clear, self-contained request) is above "
           "filter.intent_threshold, reason `low_intent`.")
# built in: the score stage writes questions.parquet's intent_score, intent_details and passed_intent
# a quality score: a question at or below filter.intent_threshold is flagged (its embedders' calls are metered
# where they are loaded, so the scorer is not)
JUDGE = JudgeKind("intent", QUESTION, BACKENDS, None, MEANING, ("intent_score", "intent_details", "passed_intent"),
                  model_keys=("intent",), flags_low=True)
