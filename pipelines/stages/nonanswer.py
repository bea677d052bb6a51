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
shows); a member question's ``non_answer_share`` is over its rows whose answer was judged. With the build caches
on, an answer judged before is not judged again by a judge that judges each answer alone (models.caches.judgements):
a day's increment judges the day's new answers, not the whole top K's again.
"""

from __future__ import annotations

from pathlib import Path

from models.answer_judging import judged_columns
from models.caches.judgements import JudgementCache
from models.factory import ModelFactory
from pipelines.beam.counters import run_counted
from pipelines.stages.group import pool_answers, ranked_answers
from pipelines.beam.metering import MeteredHandler, MeteredInference, ModelBox, announce_loading
from schemas.dates import widen
from schemas.layout import JUDGEMENT_CACHE
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
                 shut_out: tuple = AnswerGroup._field_defaults["shut_out"], cache_dir: str | None = None):
        super().__init__(batch_size)  # answers a call, not groups: see whole_batches
        self._factory = factory
        self._max_answers = max_answers
        self._shut_out = shut_out
        self._cache_dir = cache_dir

    def element_size(self, element) -> int:
        """How many answers of an (element, total) pair the judges read: its group's distinct answers, at most
        ``max_answers`` (judge_groups)."""
        (_, member_accs), _ = element
        return max(1, min(self._max_answers, len({key for _, acc in member_accs for key in acc})))

    @announce_loading("non_answer")
    def load_model(self):
        judges = self._factory.answer_judges()
        cache = JudgementCache(Path(self._cache_dir) / JUDGEMENT_CACHE) if self._cache_dir else None
        return ModelBox((cache.wrap(judges) if cache else judges, cache))

    def run_inference(self, batch, model, inference_args=None):
        judges, cache = model.value
        return run_counted("nonanswer", cache, lambda: self._run(
            lambda b: judge_groups(judges, b, self._max_answers, self._shut_out), batch))


def nonanswer_transform(factory: ModelFactory, batch_size: int, max_answers: int,
                        shut_out: tuple = AnswerGroup._field_defaults["shut_out"],
                        cache_dir: str | None = None) -> MeteredInference:
    """``factory.answer_judges()``: every answer judge the build applies; ``shut_out``: the flags that keep an
    answer from voting (models.factory.shut_out_flags(cfg)); ``cache_dir``: the build caches' folder (None: no
    judgement cache). The progress lines' total: the candidates that come (counted once the candidates are paired
    with their answers)."""
    return MeteredInference(NonAnswerHandler(factory, batch_size, max_answers, shut_out, cache_dir))
