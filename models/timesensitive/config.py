"""The time-sensitivity judge's config section (``time_sensitive.*``), joined to the build config by
models.config_check."""

from __future__ import annotations

from dataclasses import dataclass

from schemas.config import key

MEANING = "Questions whose answers go stale."


@dataclass(frozen=True)
class TimeSensitiveConfig:
    # stale answers: prices, release dates, this year's dates, the latest episode, who holds an office now
    policy: str = key("flag", "`flag` (mark the entry; wherever it is served its answer says when it was true, the "
           "period of its logs), `drop` (exclude such entries from the base, reason "
           "`time_sensitive`; AnswerRetriever then says it has no valid information) or `keep` (not "
           "judged).", choices=("keep", "flag", "drop"))
    # the packaged head: models/data/timesensitive_lr.json (docs/measurements/time-sensitive-questions.md)
    model: str = key("embedding", "`embedding` (the packaged heads over the intent embedders' spaces), "
           "`embedding:/path/params.json`, `rules` (cue families alone) or `hf:/path`.")
    # the packaged Chinese head reads the answers' openings too (docs/measurements/time-sensitive-questions.md)
    answers: bool = key(True, "Under `policy: flag`, an entry's answers are read too: where the head has an answers "
                        "head (the packaged Chinese one) and decides at its own threshold, the question and its "
                        "answers together flag or clear the entry (a sure cue's flag stays; reason `question and "
                        "answers` where the question alone did not flag it); then an entry not flagged is flagged "
                        "where one of its answers says it goes stale (\"价格实时变动\", \"以最新公布为准\", \"as of "
                        "this year\"; reason `answer: <the words>`). A reviewer's time_sensitive decision still "
                        "decides. `false`: the question alone decides.")
    threshold: float = key(-1.0, "A question is time-sensitive when its score reaches this; -1 takes the model's own.",
                                 lo=0, hi=1, also=(-1, "the model's own"))
