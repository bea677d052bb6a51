"""How a build applies its answer judges to a batch of answers, one call of each: the columns the built-in judges
write (non-answer, instruction-like), then the judges without columns (answer_match) on the answers still open,
asked where the cheap judge is unsure, and a second opinion on the non-answer head's own flags.

The non-answer stage (pipelines.stages.nonanswer) applies it to every batch; the answer-match trainer
(models.tools.train_answer_match) measures "as a build applies them" with it, so the figure it reports is the
stage's rule, not a copy of it.
"""

from __future__ import annotations

from schemas.judgement import asked_items
from schemas.records import NON_ANSWER

# what an answer judge without columns of its own writes where it flags an answer: it is shut out as a non-answer
# is, with that judge's reason (AnswerCount's non-answer flag and reason)
SHUT_OUT_AS = (NON_ANSWER, "non_answer_reason")
PRIOR = "non_answer_score"  # what a judge with ``asks_above`` is asked by (AnswerCount's non-answer score)


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
        judged = judge.judgements(sub)
        for i, theirs in zip(asked, judge.decide(judged, langs)):
            out[i] = out[i] if out[i][1] else theirs
    return out


def judged_columns(judges: tuple, items: list[tuple[str, str, str]]) -> list[dict]:
    """Per (question, answer, lang) item, the AnswerCount fields the answer judges write: ``judges``, (JudgeKind,
    judge) pairs in the order the factory hands them out (models.factory: the built-in ones, then the config's
    ``judges.answer``), each judge at its config threshold in its kind's direction (schemas.judgement.Configured).
    A judge whose kind declares columns (flag, score, reason) writes them for every item; the judges without
    columns are then asked of the answers no judge has shut out as a non-answer (:func:`other_verdicts`), and
    one that flags an answer shuts it out as a non-answer is, with its reason (:data:`SHUT_OUT_AS`); and one with
    ``lets_through_below`` judges again what the non-answer judge flagged by its score alone
    (:func:`second_opinions`)."""
    langs = [lang for _, _, lang in items]
    columns = [{} for _ in items]
    unsure = []  # the non-answer judge's flags by its score alone, not by a sure rule
    for kind, judge in judges:
        if kind.columns and items:
            judged = judge.judgements(items)
            for i, (fields, (score, reason), j) in enumerate(zip(columns, judge.decide(judged, langs), judged)):
                fields.update(zip(kind.columns, (bool(reason), round(float(score), 6), reason)))
                if kind.columns[0] == NON_ANSWER and reason and not j.sure:
                    unsure.append(i)
    others = tuple(judge for kind, judge in judges if not kind.columns)
    if others:
        # only the answers not shut out yet: an answer judge may cost an encoder pass per answer (answer_match)
        open_ = [i for i, fields in enumerate(columns) if not fields.get(NON_ANSWER)]
        priors = [columns[i].get(PRIOR, 0.0) for i in open_]
        for i, (_, reason) in zip(open_, other_verdicts(others, [items[i] for i in open_], priors)):
            if reason:
                columns[i].update(zip(SHUT_OUT_AS, (True, reason)))
        second_opinions(others, items, unsure, columns)
    return columns


def second_opinions(others: tuple, items: list[tuple[str, str, str]], unsure: list[int], columns: list[dict]) -> None:
    """A judge with ``lets_through_below`` (answer_match) judges again the answers the non-answer judge flagged by
    its score alone, in the languages it reads (its ``langs``), and lets through those it scores below that; the
    others stay shut out with the non-answer judge's reason. A sure rule's flag is not judged again: the rules read
    words (on real answers they are almost never wrong), where a head's score is a guess from the answer's opening
    alone and this judge reads the question too. In wiring order: an item goes to the first such judge that reads
    its language."""
    left = list(unsure)
    for judge in others:
        below = getattr(judge, "lets_through_below", 0.0)
        if below <= 0 or not left:
            continue
        asked = [i for i in left if items[i][2] in judge.langs]
        left = [i for i in left if items[i][2] not in judge.langs]
        if not asked:
            continue
        for i, j in zip(asked, judge.judgements([items[i] for i in asked])):
            if j.score < below:
                columns[i].update(zip(SHUT_OUT_AS, (False, "")))
