"""Stage ``score``: a distinct question once, by every question judge: GEC and intent, kept iff gec > e1 and
intent > e2, and any further question judge the registry wires (models.registry.JUDGES), each kept
iff it does not flag the question at its config threshold.

The judges score (schemas.judgement.Judgement); thresholds are applied here, by schemas.judgement.flagged, on
fresh scores and on scores from the score cache alike. Scores, the details of which signals fired, and the
reason are recorded for every scored question (pipelines.stages.frontier decides which: the members of entries
that can reach the top K). The paraphrase stage already embedded every question in its intent space; entries
travel without vectors, so the vector cache (``models.cache``) serves those vectors here instead of embedding
again. Vectors computed here are passed on so later stages reuse them.
"""

from __future__ import annotations

from models.factory import filter_verdicts
from models.gec.base import REASON as LOW_GEC
from models.gec.base import GecJudge, details_json
from models.intent.base import REASON as LOW_INTENT
from models.intent.base import intent_judgements
from models.registry import ScoringModels
from schemas.config import FilterConfig
from schemas.judgement import Judgement, verdict
from schemas.records import QuestionStats, ScoredQuestion


def unscored(q: QuestionStats) -> ScoredQuestion:
    """A counted question before scoring (scores None: see :func:`fate`)."""
    return ScoredQuestion(key=q.key, question=q.question, frequency=q.frequency, lang=q.lang,
                          surface_forms=q.surface_forms, gec_score=None, intent_score=None, gec_details="",
                          intent_details="", passed_gec=False, passed_intent=False, vectors={},
                          first_seen=q.first_seen, answers=q.answers, period=q.period)


def decided(q, gec: Judgement, intent: Judgement, others: tuple, models: ScoringModels, filt: FilterConfig,
            vectors: dict | None = None) -> ScoredQuestion:
    """A question with its judgements, kept or flagged by each judge at its threshold (the config's), in the
    direction its kind declares (GEC's and intent's by models.factory.filter_verdicts, the others' carried by the
    registry's Configured)."""
    flags = tuple(reason for judge, j in zip(models.judges, others)
                  if (reason := verdict(j, judge.own_threshold(q.lang), judge.flags_low)))
    low_gec, low_intent = filter_verdicts(gec, intent, filt)
    return ScoredQuestion(
        key=q.key, question=q.question, frequency=q.frequency, lang=q.lang, surface_forms=q.surface_forms,
        gec_score=round(float(gec.score), 6), intent_score=round(float(intent.score), 6),
        gec_details=details_json(gec.details) if isinstance(gec.details, dict) else gec.details,
        intent_details=details_json(intent.details) if isinstance(intent.details, dict) else intent.details,
        passed_gec=not low_gec, passed_intent=not low_intent,
        vectors=vectors or {}, first_seen=q.first_seen, answers=q.answers, period=q.period,
        judgements=others, flags=flags)


def score_questions(models: ScoringModels, batch: list, filt: FilterConfig) -> list[ScoredQuestion]:
    """QuestionStats (or unscored ScoredQuestions) -> ScoredQuestion."""
    texts = [q.question for q in batch]
    langs = [q.lang for q in batch]
    gec = GecJudge(models.gec_en, models.gec_zh).judgements(texts, langs)
    intent = models.intent
    intents, vectors = intent_judgements(intent, texts, langs)
    others = list(zip(*(judge.judgements(texts, langs) for judge in models.judges))) or [()] * len(batch)
    embedders = intent.embedders()
    out = []
    for i, q in enumerate(batch):
        space = intent.space(q.lang)
        # every question's vector goes on: the paraphrase stage compares all of them (a typo'd form still
        # joins its entry), and the index reuses the representative's
        reuse = {embedders[space].model_id: vectors[i]} if space in embedders else {}
        out.append(decided(q, gec[i], intents[i], tuple(others[i]), models, filt, reuse))
    return out


def cached_record(s: ScoredQuestion) -> list:
    """What the score cache keeps of a scored question: its scores and details (thresholds are applied afresh),
    and the other judges' judgements when any are wired."""
    record = [s.gec_score, s.intent_score, s.gec_details, s.intent_details]
    return record + [[list(j) for j in s.judgements]] if s.judgements else record


def from_cached(models: ScoringModels, filt: FilterConfig):
    """(question, cached record) -> ScoredQuestion, decided at this build's thresholds."""
    def revive(q, record: list) -> ScoredQuestion:
        g, it, gd, idt = record[:4]
        others = tuple(Judgement(*j) for j in record[4]) if len(record) > 4 else ()
        return decided(q, Judgement(g, LOW_GEC, gd), Judgement(it, LOW_INTENT, idt), others, models, filt)
    return revive


def fate(q: ScoredQuestion) -> list[str]:
    """The reject reasons of a scored question, in judge order (empty if it passed every question judge);
    ``below_top_k`` for a question never scored (its entry ranked below every entry the top K could take)."""
    if q.gec_score is None:
        return ["below_top_k"]
    reasons = []
    if not q.passed_gec:
        reasons.append(LOW_GEC)
    if not q.passed_intent:
        reasons.append(LOW_INTENT)
    return reasons + list(q.flags)
