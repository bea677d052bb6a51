"""Turning a language model's mean negative log-likelihood into a fluency score in [0, 1].

``z = (nll - mean_ref) / sd_ref`` against the same model's values on fluent
reference requests (the clear-request prototypes of the text's language), shrunk
for short texts, ``z × n / (n + 4)`` for n predictions (a mean over a few
predictions is mostly noise), and ``fluency = sigmoid(2.5 - z)``: a text as
fluent as the references scores 0.92, one reference deviation worse 0.82, 2.5
worse 0.5. The offset is set so that about 98% of clean held-out questions keep a
fluency above 0.5 (measured: 500 CLINC150 val requests 98.2%, 50 hand-written
Chinese requests 98%; with an offset of 1, only 88% and 66%), because fluency is
a ranking signal far more than a verdict: one error moves a sentence by less than
fluent sentences differ among themselves (docs/measurements/scorer-quality.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

SHRINK = 4.0
OFFSET = 2.5


@dataclass(frozen=True)
class ReferenceScale:
    mean: float
    sd: float

    @classmethod
    def from_values(cls, values: list[float], min_sd: float = 0.05) -> "ReferenceScale":
        v = np.asarray(values, dtype=float)
        if len(v) == 0:
            raise ValueError("no reference values")
        return cls(float(v.mean()), float(max(v.std(), min_sd)))

    def fluency(self, nll: float, n: int, offset: float = OFFSET) -> tuple[float, float | None]:
        """(fluency, z) for a mean NLL over n predictions: ``sigmoid(offset - shrunk z)``. With no
        predictions (n = 0) there is no evidence: ``sigmoid(offset)`` and z None."""
        if n <= 0:
            return 1.0 / (1.0 + math.exp(-offset)), None
        z = (nll - self.mean) / self.sd
        shrunk = z * n / (n + SHRINK)
        return 1.0 / (1.0 + math.exp(-(offset - shrunk))), z
