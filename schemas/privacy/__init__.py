"""Personal data in log text: recognisers (:mod:`.recognizers`, on checksums from :mod:`.checks`) and the
redactor that replaces what they find by typed placeholders (:mod:`.redactor`). Pure, on the bottom floor:
validation redacts with it and the quality gate checks published text with it."""

from schemas.privacy.recognizers import KINDS, Finding, PatternRecognizer
from schemas.privacy.redactor import PLACEHOLDER, Redacted, Redactor, placeholder, with_stand_ins

__all__ = ["KINDS", "PLACEHOLDER", "Finding", "PatternRecognizer", "Redacted", "Redactor", "placeholder",
           "with_stand_ins"]
