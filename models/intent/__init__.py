"""Intent scorers (``models.intent``): how clearly a question asks for something a knowledge base can answer
(models.intent.base). ``BACKENDS``: this kind's table for models.registry (schemas.backends)."""

from __future__ import annotations

from schemas.backends import Backend


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
