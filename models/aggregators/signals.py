"""How far an entry's answer can be trusted, from its answers alone: agreement, support, contradiction.

Works on any aggregator's result (embedding or LLM): the chosen answer's class is the viewpoint that holds
the stored answer (majority vote) or the leading viewpoint (viewpoints). Downstream users set their own
bar on ``reliability`` (in [0, 1]) or on its parts:

* ``agreement``: the share of the answer rows that answer (non-answers left out) that agree with the chosen
  one (its class); for viewpoint entries, whose answer summarises every viewpoint, the share of rows in
  viewpoints that at least two answer rows share (a point one answer makes alone is weakly attested);
* ``support``: ``1 - 0.5 ** agreeing rows`` (one answer 0.5, two 0.75, three 0.875): how many answers back it;
* ``answered``: the share of the judged rows that were answers, not non-answers;
* ``consistent``: ``1 - 0.5 x`` the share of the answer rows that contradict the chosen answer with
  numbers (a minority class states numbers none of which agree with the chosen class's): a lone wrong
  figure among many right ones costs little beyond ``agreement``, an even split on a figure costs a
  quarter; 1 when nothing contradicts (always 1 for
  viewpoint entries, whose answer reports every viewpoint and takes no side);
* ``fresh``: 0.7 when the entry is time-sensitive (its answer may be stale), else 1.

``reliability`` is their product, so any one weak part pulls it down and every part can be read off.
"""

from __future__ import annotations

from typing import NamedTuple

from models.aggregators.base import AggregateResult
from models.numbers import any_agree, number_values
from schemas.records import AnswerCount

CONTRADICTION_WEIGHT = 0.5
STALE = 0.7


class AnswerSignals(NamedTuple):
    agreeing_answers: int  # answer rows in the chosen answer's class
    valid_answers: int  # answer rows that answer
    contradicted: bool  # a minority class states numbers that disagree with the chosen class's
    contradicting_answers: int  # rows of such minority classes


def chosen_class(result: AggregateResult, answers: list[AnswerCount]) -> int:
    """Index of the viewpoint holding the stored answer (majority vote), else 0 (the leading viewpoint)."""
    if not result.method.endswith("viewpoints"):
        ids = {a.answer_id for a in answers if a.text == result.answer}
        for k, v in enumerate(result.viewpoints):
            if ids & set(v.answer_ids):
                return k
    return 0


def answer_signals(result: AggregateResult, answers: list[AnswerCount]) -> AnswerSignals:
    """``answers``: the valid answers the aggregator saw (non-answers are never among them)."""
    by_id = {a.answer_id: a for a in answers}
    valid = sum(a.count for a in answers)
    views = [[by_id[i] for i in v.answer_ids if i in by_id] for v in result.viewpoints]
    if not views or not any(views):
        return AnswerSignals(valid, valid, False, 0)
    k = chosen_class(result, answers)
    if result.method.endswith("viewpoints"):
        agreeing = sum(sum(a.count for a in members) for members in views
                       if sum(a.count for a in members) >= 2) if valid > 1 else valid
    else:
        agreeing = sum(a.count for a in views[k])
    # a viewpoint entry's answer reports every viewpoint side by side: it takes no side to contradict
    chosen_numbers = [] if result.method.endswith("viewpoints") else [x for a in views[k] for x in number_values(a.text)]
    against = 0
    if chosen_numbers:
        for j, members in enumerate(views):
            if j == k:
                continue
            for a in members:
                theirs = number_values(a.text)
                if theirs and not any_agree(chosen_numbers, theirs):
                    against += a.count
    return AnswerSignals(agreeing, valid, against > 0, against)


def reliability_parts(signals: AnswerSignals, judged_rows: int, non_answer_rows: int,
                      time_sensitive: bool) -> dict[str, float]:
    """The parts (each in [0, 1]); ``judged_rows``: the rows judged answer or non-answer."""
    valid = signals.valid_answers
    return {
        "agreement": round(signals.agreeing_answers / valid, 6) if valid else 0.0,
        "support": round(1.0 - 0.5 ** signals.agreeing_answers, 6),
        "answered": round(1.0 - non_answer_rows / judged_rows, 6) if judged_rows else 1.0,
        "consistent": round(1.0 - CONTRADICTION_WEIGHT * signals.contradicting_answers / valid, 6) if valid else 1.0,
        "fresh": STALE if time_sensitive else 1.0,
    }


def reliability(parts: dict[str, float]) -> float:
    out = 1.0
    for value in parts.values():
        out *= value
    return round(out, 6)
