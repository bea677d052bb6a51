"""Paraphrase judges (``paraphrase.judge``): are two questions one base entry? (models.paraphrase.base).
``BACKENDS``: this kind's table for models.registry (schemas.backends)."""

from __future__ import annotations

from schemas.backends import Backend


def _pair_lr(target, ctx):
    """The judge a config names (a small JSON file: building it is cheap, identities build it too)."""
    from models.paraphrase.pair_classifier import PairClassifier, load_params

    p = ctx.section
    return PairClassifier(load_params(target or None), {"en": p.threshold_en, "zh": p.threshold_zh},
                          p.numbers_must_agree, p.negation_must_agree, p.entities_must_agree)


def _pair_lr_identity(target, ctx) -> str:
    return _pair_lr(target, ctx).model_id


BACKENDS = (
    Backend("pair-lr", _pair_lr, _pair_lr_identity),
    Backend("pair-lr:", _pair_lr, _pair_lr_identity, "file", "pair-lr:/path/params.json"),
)
