"""The gec kind's backend table for models.registry (schemas.backends): a name or a path prefix, how to load
it, its identity without loading it. Apart from the package's ``__init__``, so that importing any module of the
kind never runs the table's imports (a package that imports its own modules forms import circles with them)."""

from __future__ import annotations

from schemas.backends import Backend
from schemas.judgement import QUESTION, JudgeKind


def _quire_ngram(target, ctx):
    from models.gec.quire_fluency import QuireFluencyGecScorer

    return QuireFluencyGecScorer(quire=ctx.backend("quire"))


def _quire_ngram_identity(target, ctx) -> str:
    from models.gec.quire_fluency import quire_fluency_identity

    return quire_fluency_identity(ctx.backend_identity("quire"))


def _quire(target, ctx):
    from models.gec.quire import QuireGecScorer

    # the tagger keeps the batches it has always run in (its default, 32), not models.batch_size: a batch is
    # padded to its longest text, and other batches could move the scores the score cache and measurements hold
    return QuireGecScorer()


def _quire_identity(target, ctx) -> str:
    from models.gec.quire import quire_identity

    return quire_identity()


def _zh_ngram(target, ctx):
    from models.gec.base import BuiltOnFirstUse
    from models.gec.zh_ngram import ZhNgramGecScorer, zh_ngram_identity

    return BuiltOnFirstUse(ZhNgramGecScorer, zh_ngram_identity())


def _zh_ngram_identity(target, ctx) -> str:
    from models.gec.zh_ngram import zh_ngram_identity

    return zh_ngram_identity()


def _zh_heuristic(target, ctx):
    from models.gec.zh_heuristic import ZhHeuristicGecScorer

    return ZhHeuristicGecScorer()


def _zh_heuristic_identity(target, ctx) -> str:
    from models.gec.zh_heuristic import ZhHeuristicGecScorer

    return ZhHeuristicGecScorer.model_id


def _causal_lm(target, ctx):
    from models.gec.causal_lm import CausalLmGecScorer

    return CausalLmGecScorer(target)


def _causal_lm_identity(target, ctx) -> str:
    from models.gec.causal_lm import causal_lm_identity

    return causal_lm_identity(target)


def _seq2seq(target, ctx):
    from models.gec.seq2seq import Seq2SeqGecScorer

    return Seq2SeqGecScorer(target)


def _seq2seq_identity(target, ctx) -> str:
    from models.gec.seq2seq import seq2seq_identity

    return seq2seq_identity(target)


BACKENDS = (
    Backend("quire-ngram", _quire_ngram, _quire_ngram_identity),
    Backend("quire", _quire, _quire_identity),
    Backend("zh-ngram", _zh_ngram, _zh_ngram_identity),
    Backend("zh-heuristic", _zh_heuristic, _zh_heuristic_identity),
    Backend("lm:", _causal_lm, _causal_lm_identity, "dir", "lm:/path"),
    Backend("seq2seq:", _seq2seq, _seq2seq_identity, "dir", "seq2seq:/path"),
)

MEANING = ("Grammatical errors: a question is kept only if its GEC score (1 = needs no correction) is above "
           "filter.gec_threshold, reason `low_gec`.")
# built in: the score stage writes questions.parquet's gec_score, gec_details and passed_gec
# a quality score: a question at or below filter.gec_threshold is flagged; each scorer computes its texts itself,
# so the ledger of model calls counts its ``score``
JUDGE = JudgeKind("gec", QUESTION, BACKENDS, None, MEANING, ("gec_score", "gec_details", "passed_gec"),
                  model_keys=("gec_en", "gec_zh"), flags_low=True, metered="score")
