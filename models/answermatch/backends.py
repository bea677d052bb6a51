"""The answer-match kind's backend table and its declaration (schemas.judgement.JudgeKind): wired by one line in
models.registry.JUDGES."""

from __future__ import annotations

from pathlib import Path

from models.answermatch.config import MEANING, AnswerMatchConfig
from schemas.backends import Backend
from schemas.judgement import ANSWER, JudgeKind

PACKAGED = Path(__file__).resolve().parents[1] / "data" / "answer_match.npz"


def _identity(target, ctx) -> str:
    from models.embedders.hf_common import precision_tag, resolve_precision
    from models.pair_file import load_meta
    from schemas.layout import sha256_file

    path = Path(target or PACKAGED)
    load_meta(path)  # a file that is not a pair model fails here, before any build
    # the threshold is no part of it: judgements are decided again at each build's threshold
    return f"answer-match-e5-v1@{sha256_file(path)[:12]}{precision_tag(resolve_precision(ctx.models.precision))}"


def _load(target, ctx):
    from models.answermatch.judge import AnswerMatchJudge
    from models.cross_encoder import PairLogitsOnFirstUse
    from models.embedders.hf_common import resolve_device, resolve_precision
    from models.pair_file import load_meta

    device, precision = resolve_device(ctx.device), resolve_precision(ctx.models.precision)
    meta = load_meta(target or PACKAGED)
    # the encoder is loaded when the judge is first asked: a build without Chinese answers never loads it
    logits = PairLogitsOnFirstUse(target or PACKAGED, "answer_match e5-pairs", batch=ctx.batch_size, device=device,
                                  precision=precision)
    return AnswerMatchJudge(logits, float(meta["threshold"]), _identity(target, ctx), ctx.section.ask_above,
                            ctx.section.lets_through_below)


BACKENDS = (Backend("e5-pairs", _load, _identity),
            Backend("e5-pairs:", _load, _identity, "file", "e5-pairs:/path/model.npz"))
JUDGE = JudgeKind("answer_match", ANSWER, BACKENDS, AnswerMatchConfig, MEANING, reasons=("does_not_answer",))
