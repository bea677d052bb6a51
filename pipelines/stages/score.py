"""Stage ``score``: a distinct question once: GEC and intent, kept iff gec > e1 and intent > e2.

Scores, the details of which signals fired, and the reason are recorded for every scored question
(pipelines.stages.frontier decides which: the members of entries that can reach the top K). The paraphrase
stage already embedded every question in its intent space; entries travel without vectors, so the vector
cache (``models.cache``) serves those vectors here instead of embedding again. Vectors computed here are
passed on so later stages reuse them.
"""

from __future__ import annotations

from models.gec.base import details_json
from models.registry import ScoringModels
from schemas.config import FilterConfig
from schemas.records import QuestionStats, ScoredQuestion


def unscored(q: QuestionStats) -> ScoredQuestion:
    """A counted question before scoring (scores None: see :func:`fate`)."""
    return ScoredQuestion(key=q.key, question=q.question, frequency=q.frequency, lang=q.lang,
                          surface_forms=q.surface_forms, gec_score=None, intent_score=None, gec_details="",
                          intent_details="", passed_gec=False, passed_intent=False, vectors={},
                          first_seen=q.first_seen, answers=q.answers, period=q.period)


def score_questions(models: ScoringModels, batch: list, filt: FilterConfig) -> list[ScoredQuestion]:
    """QuestionStats (or unscored ScoredQuestions) -> ScoredQuestion."""
    texts = [q.question for q in batch]
    langs = [q.lang for q in batch]
    gec: list[tuple[float, dict] | None] = [None] * len(batch)
    for scorer, wanted in ((models.gec_en, ("en", "other")), (models.gec_zh, ("zh", "mixed"))):
        idx = [i for i, lg in enumerate(langs) if lg in wanted]
        if idx:
            for i, res in zip(idx, scorer.score([texts[i] for i in idx])):
                gec[i] = res
    intent = models.intent
    intents, vectors = intent.score_with_vectors(texts, langs)
    embedders = intent.embedders()
    out = []
    for i, q in enumerate(batch):
        g_score, g_details = gec[i]
        i_score, i_details = intents[i]
        passed_gec = g_score > filt.gec_threshold
        passed_intent = i_score > filt.intent_threshold
        space = intent.space(q.lang)
        # every question's vector goes on: the paraphrase stage compares all of them (a typo'd form still
        # joins its entry), and the index reuses the representative's
        reuse = {embedders[space].model_id: vectors[i]} if space in embedders else {}
        out.append(ScoredQuestion(
            key=q.key, question=q.question, frequency=q.frequency, lang=q.lang, surface_forms=q.surface_forms,
            gec_score=round(float(g_score), 6), intent_score=round(float(i_score), 6),
            gec_details=details_json(g_details),
            intent_details=details_json(i_details),
            passed_gec=passed_gec, passed_intent=passed_intent, vectors=reuse, first_seen=q.first_seen,
            answers=q.answers, period=q.period))
    return out


def fate(q: ScoredQuestion) -> str:
    """The reject reason of a scored question, or '' if it passed both filters; ``below_top_k`` for a question
    never scored (its entry ranked below every entry the top K could take)."""
    if q.gec_score is None:
        return "below_top_k"
    reasons = []
    if not q.passed_gec:
        reasons.append("low_gec")
    if not q.passed_intent:
        reasons.append("low_intent")
    return "+".join(reasons)
