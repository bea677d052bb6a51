"""The non-answer judge's config section (``non_answer.*``), joined to the build config by models.config_check."""

from __future__ import annotations

from dataclasses import dataclass

from schemas.config import key

MEANING = "Answers that do not answer (refusals, restatements, \"it depends\")."


@dataclass(frozen=True)
class NonAnswerConfig:
    # a non-answer ("I cannot provide real-time information", "无法确定") never wins a vote nor holds a viewpoint,
    # and an entry whose every answer is one leaves the base (no_valid_answer). The packaged head:
    # models/data/nonanswer_lr.json (docs/measurements/non-answers.md)
    model: str = key("embedding", "`embedding` (the packaged per-language heads), `embedding:/path/params.json` "
           "(`qabase train-nonanswer --out`), `rules` (the pattern families alone) or "
           "`hf:/path` (a local HF classifier of (question, answer) pairs).")
    threshold: float = key(-1.0, "An answer is a non-answer when its score reaches this; -1 takes the model's own (0.7 "
           "for the packaged heads).", lo=0, hi=1, also=(-1, "the model's own"))
    headroom: float = key(0.2, "Entries judged beyond the top K (0.2: the top 1.2 K), so that the base still holds K "
           "after entries with no valid answer leave.", lo=0, hi=10)
