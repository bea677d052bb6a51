"""Stage ``nonanswer``: the answers of each candidate entry, pooled over its forms, each judged by every answer
judge the build applies, from one list (models.factory: ModelFactory.answer_judges, the declarations of
models.registry.JUDGES at the answer level); no judge is named here.

A built-in judge writes the columns its kind declares (schemas.judgement.JudgeKind.columns, AnswerCount's fields):
the non-answer judge's (does it answer at all? a refusal, "I cannot provide real-time information", "无法确定", a
restatement of the question never wins a vote nor holds a viewpoint), the instruction-like judge's (an answer that
addresses the model reading it, "ignore previous instructions and ..."). Whether an answer so flagged is shut out
is its kind's, read from its section (JudgeKind.excludes: always for a non-answer, under ``injection.policy``
exclude for an instruction-like answer; under flag it votes and the entry carries the flag). A judge without
columns (answer_match) shuts an answer it flags out as a non-answer is, with its reason. An entry whose every
judged answer is shut out leaves the base (reason ``no_valid_answer``, or ``instruction_like``:
schemas.records.AnswerGroup.withheld_reason) and the next entry takes its place.

Work follows the top K: only the candidates (the top ``K x (1 + non_answer.headroom)`` entries) are
judged, and of each only the ``grouping.max_answers`` most given distinct answers (the ones the base
shows); a member question's ``non_answer_share`` is over its rows whose answer was judged.
"""

from __future__ import annotations

from models.factory import ModelFactory
from pipelines.stages.group import pool_answers, ranked_answers
from pipelines.beam.metering import MeteredHandler, MeteredInference, ModelBox, announce_loading
from schemas.dates import widen
from schemas.judgement import asked_items
from schemas.records import NON_ANSWER, AnswerCount, AnswerGroup, Entry

# what an answer judge without columns of its own writes where it flags an answer: it is shut out as a non-answer
# is, with that judge's reason (AnswerCount's non-answer flag and reason)
SHUT_OUT_AS = (NON_ANSWER, "non_answer_reason")
PRIOR = "non_answer_score"  # what a judge with ``asks_above`` is asked by (AnswerCount's non-answer score)


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


def judge_groups(judges: tuple, batch: list[tuple[Entry, list]], max_answers: int,
                 shut_out: tuple = AnswerGroup._field_defaults["shut_out"]) -> list[tuple[Entry, AnswerGroup]]:
    """(Entry, [(member key, its answers accumulator)]) -> (Entry, its judged AnswerGroup), one call of each
    judge of ``judges`` (:func:`judged_columns`) for the batch; ``shut_out``: the flags that keep an answer from
    voting (models.factory.shut_out_flags)."""
    plans, items = [], []
    for entry, member_accs in batch:
        ranked = ranked_answers(pool_answers(acc for _, acc in member_accs))
        top = ranked[:max_answers]
        rep = entry.representative
        items.extend((rep.question, text, rep.lang) for _, _, text in top)
        plans.append((ranked, top))
    columns = judged_columns(judges, items)
    out, at = [], 0
    for (entry, member_accs), (ranked, top) in zip(batch, plans):
        answers = tuple(AnswerCount(i + 1, text, count, **columns[at + i]) for i, (_, count, text) in enumerate(top))
        at += len(top)
        flagged = {key: a.non_answer for (key, _, _), a in zip(top, answers)}
        out.append((entry, AnswerGroup(answers=answers, total=sum(c for _, c, _ in ranked), distinct=len(ranked),
                                       shares=member_shares(member_accs, flagged), period=entry_period(entry),
                                       shut_out=shut_out)))
    return out


class NonAnswerHandler(MeteredHandler):
    stage = "nonanswer"
    # whole batches of answers: with groups as the unit (at most 8 a call) and a real log's group holding about one
    # answer, the pair model read about 4 answers a call, at about half its speed on a full batch
    whole_batches = True

    def __init__(self, factory: ModelFactory, batch_size: int, max_answers: int,
                 shut_out: tuple = AnswerGroup._field_defaults["shut_out"]):
        super().__init__(batch_size)  # answers a call, not groups: see whole_batches
        self._factory = factory
        self._max_answers = max_answers
        self._shut_out = shut_out

    def answers_judged(self, element) -> int:
        """How many answers of an (element, total) pair the judges read: its group's distinct answers, at most
        ``max_answers`` (judge_groups)."""
        (_, member_accs), _ = element
        return max(1, min(self._max_answers, len({key for _, acc in member_accs for key in acc})))

    element_size = answers_judged

    @announce_loading("non_answer")
    def load_model(self):
        return ModelBox(self._factory.answer_judges())

    def run_inference(self, batch, model, inference_args=None):
        return self._run(lambda b: judge_groups(model.value, b, self._max_answers, self._shut_out), batch)


def nonanswer_transform(factory: ModelFactory, batch_size: int, max_answers: int,
                        shut_out: tuple = AnswerGroup._field_defaults["shut_out"]) -> MeteredInference:
    """``factory.answer_judges()``: every answer judge the build applies; ``shut_out``: the flags that keep an
    answer from voting (models.factory.shut_out_flags(cfg)). The progress lines' total: the candidates that come
    (counted once the candidates are paired with their answers)."""
    return MeteredInference(NonAnswerHandler(factory, batch_size, max_answers, shut_out))
