"""The standalone judge's config section (``standalone.*``), joined to the build config by models.config_check."""

from __future__ import annotations

from dataclasses import dataclass

from schemas.config import key

MEANING = ("Questions that cannot stand alone (\"要门票吗\", \"how long does it take?\"): a question judge, reason "
           "`no_subject`.")


@dataclass(frozen=True)
class StandaloneConfig:
    # such questions only make sense inside a conversation: in a QA base they match everything and answer nothing.
    # One merged with a form that names its subject counts toward that entry (the form becomes the representative)
    enabled: bool = key(True, "Judge whether each question names what it asks about; a question that does not (a bare "
                              "predicate, a pointing word with nothing named, a follow-up turn) is dropped as "
                              "`no_subject` (it still counts toward an entry it was merged into); `false`: not judged.")
    # word lists of asking words, pointing words and follow-up turns
    model: str = key("rules", "`rules` (word lists, no model: docs/measurements/standalone-questions.md).")
    # its range is checked as every judge's is, by models.config_check.check_config
    threshold: float = key(-1.0, "A question is flagged when its score reaches this; -1 takes the model's own (0.5).")
