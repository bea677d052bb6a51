"""Stage ``nonanswer``: the answers of each candidate entry, pooled over its forms, each judged: does it
answer at all? A refusal, "I cannot provide real-time information", "无法确定", a restatement of the
question never wins a vote nor holds a viewpoint; an entry whose every judged answer is one leaves the
base (reason ``no_valid_answer``) and the next entry takes its place.

The same answers are judged for being instruction-like (models.injection: an answer that addresses the model
reading it, "ignore previous instructions and ..."). Under ``injection.policy`` exclude such an answer is shut
out as a non-answer is, so no retriever serves it, and an entry left with no valid answer leaves the base with
the reason ``instruction_like``; under flag it votes and the entry carries the flag (pipelines.stages.aggregate).

Work follows the top K: only the candidates (the top ``K x (1 + non_answer.headroom)`` entries) are
judged, and of each only the ``grouping.max_answers`` most given distinct answers (the ones the base
shows); a member question's ``non_answer_share`` is over its rows whose answer was judged.
"""

from __future__ import annotations

from typing import NamedTuple

from models.injection.backends import JUDGE as INJECTION
from models.injection.base import score_answers as score_instructions
from models.nonanswer.backends import JUDGE as NON_ANSWER
from models.nonanswer.base import score_answers
from models.factory import ModelFactory
from pipelines.stages.group import pool_answers, ranked_answers
from pipelines.beam.metering import MeteredHandler, MeteredInference, ModelBox, announce_loading
from schemas.dates import widen
from schemas.judgement import OWN_THRESHOLD, asked_items
from schemas.records import AnswerCount, AnswerGroup, Entry


def entry_period(entry: Entry) -> tuple[str, str]:
    period = ("", "")
    for q in entry.members:
        for date in q.period:
            period = widen(period, date)
    return period


def member_shares(member_accs: list, flagged: dict[str, bool]) -> dict[str, float | None]:
    """Each member's share of non-answer rows among its rows whose answer was judged (None: none judged)."""
    out = {}
    for key, acc in member_accs:
        judged = bad = 0
        for answer_key, forms in acc.items():
            if answer_key in flagged:
                n = sum(forms.values())
                judged += n
                bad += n if flagged[answer_key] else 0
        out[key] = round(bad / judged, 6) if judged else None
    return out


class InjectionSettings(NamedTuple):
    """What the stage needs of the injection config section: the judge is applied (``enabled``), at
    ``threshold`` (-1: its own), and instruction-like answers are shut out (``exclude``) or flagged."""

    enabled: bool = True
    threshold: float = OWN_THRESHOLD
    exclude: bool = True

    @classmethod
    def of(cls, cfg) -> "InjectionSettings":
        return cls(cfg.enabled, cfg.threshold, cfg.policy == "exclude")


def other_verdicts(judges: tuple, items: list[tuple[str, str, str]],
                   priors: list[float] | None = None) -> list[tuple[float, str]]:
    """(score, reason) per (question, answer, lang) of the first wired answer-level judge (models.registry.JUDGES)
    that flags it (at its config threshold, in the direction its kind declares: schemas.judgement.Configured), in
    wiring order; (0.0, "") where none does. A judge with ``asks_above`` (answer_match) is asked
    only of the items whose ``priors`` (the non-answer judge's scores) reach it: the cost of an encoder pass is
    spent where the cheap judge is unsure."""
    out = [(0.0, "")] * len(items)
    for judge in judges:
        asked = list(range(len(items))) if priors is None else asked_items(priors, getattr(judge, "asks_above", 0.0))
        if not asked:
            continue
        sub = [items[i] for i in asked]
        langs = [lang for _, _, lang in sub]
        judged = judge.judgements([q for q, _, _ in sub], [a for _, a, _ in sub], langs)
        for i, theirs in zip(asked, judge.decide(judged, langs)):
            out[i] = out[i] if out[i][1] else theirs
    return out


def judge_groups(detector, batch: list[tuple[Entry, list]], max_answers: int,
                 threshold: float = OWN_THRESHOLD, injection=None,
                 settings: InjectionSettings = InjectionSettings(), others: tuple = ()) -> list[tuple[Entry, AnswerGroup]]:
    """(Entry, [(member key, its answers accumulator)]) -> (Entry, its judged AnswerGroup), one call of each
    judge; ``threshold``: non_answer.threshold (-1: the detector's own), applied here (schemas.judgement);
    ``injection``: the instruction-like answer judge (None: not judged), at ``settings.threshold``; ``others``:
    the wired answer-level judges, each at its config threshold: an answer one flags is shut out as a non-answer
    is, with that judge's reason where the non-answer judge did not flag it."""
    plans, items = [], []
    for entry, member_accs in batch:
        ranked = ranked_answers(pool_answers(acc for _, acc in member_accs))
        top = ranked[:max_answers]
        rep = entry.representative
        items.extend((rep.question, text, rep.lang) for _, _, text in top)
        plans.append((ranked, top))
    results = score_answers(detector, items, threshold, NON_ANSWER.flags_low)
    judged = injection is not None and settings.enabled
    instructions = (score_instructions(injection, items, settings.threshold, INJECTION.flags_low) if judged
                    else [(0.0, "")] * len(items))
    if others:
        # only the answers the non-answer judge let through: a flagged answer is shut out whatever they say, and
        # an answer judge may cost an encoder pass per answer (answer_match)
        open_ = [i for i, r in enumerate(results) if not r[1]]
        for i, o in zip(open_, other_verdicts(others, [items[i] for i in open_], [results[i][0] for i in open_])):
            results[i] = (results[i][0], o[1])
    out, at = [], 0
    for (entry, member_accs), (ranked, top) in zip(batch, plans):
        answers, flagged = [], {}
        for i, (key, count, text) in enumerate(top):
            score, reason = results[at + i]
            i_score, i_reason = instructions[at + i]
            bad = bool(reason)
            flagged[key] = bad
            answers.append(AnswerCount(i + 1, text, count, bad, round(float(score), 6), reason if bad else "",
                                       bool(i_reason), round(float(i_score), 6), i_reason))
        at += len(top)
        out.append((entry, AnswerGroup(
            answers=tuple(answers), total=sum(c for _, c, _ in ranked), distinct=len(ranked),
            non_answer_rows=sum(a.count for a in answers if a.non_answer),
            shares=member_shares(member_accs, flagged), period=entry_period(entry),
            instruction_like_rows=sum(a.count for a in answers if a.instruction_like),
            excludes_instruction_like=settings.exclude)))
    return out


class NonAnswerHandler(MeteredHandler):
    stage = "nonanswer"

    def __init__(self, factory: ModelFactory, batch_size: int, max_answers: int, threshold: float = OWN_THRESHOLD,
                 injection: InjectionSettings = InjectionSettings()):
        super().__init__(max(1, batch_size // 8))  # a group: up to max_answers texts
        self._factory = factory
        self._max_answers = max_answers
        self._threshold = threshold
        self._injection = injection

    @announce_loading("non_answer")
    def load_model(self):
        return ModelBox((self._factory.non_answer(), self._factory.injection() if self._injection.enabled else None,
                         self._factory.answer_judges()))

    def run_inference(self, batch, model, inference_args=None):
        detector, injection, others = model.value
        return self._run(lambda b: judge_groups(detector, b, self._max_answers, self._threshold, injection,
                                                self._injection, others), batch)


def nonanswer_transform(factory: ModelFactory, batch_size: int, max_answers: int,
                        threshold: float = OWN_THRESHOLD,
                        injection: InjectionSettings = InjectionSettings()) -> MeteredInference:
    """``injection``: how instruction-like answers are judged and treated (InjectionSettings.of(cfg.injection)).
    The progress lines' total: the candidates that come (counted once the candidates are paired with their
    answers)."""
    return MeteredInference(NonAnswerHandler(factory, batch_size, max_answers, threshold, injection))
