"""Beam ModelHandler base for this project's stages.

Loading stays in ``load_model()`` (run once per worker through Beam's Shared);
inference is a batch function. Each handler meters its stage's items and busy time.
"""

from __future__ import annotations

from apache_beam.ml.inference.base import ModelHandler

from pipelines.progress import StageMeter, Timed


class ModelBox:
    """A weak-referenceable holder: Beam's Shared keeps loaded models by weak reference."""

    def __init__(self, value):
        self.value = value


class MeteredHandler(ModelHandler):
    stage = ""

    def __init__(self, batch_size: int):
        super().__init__()
        self._batch_size = batch_size
        self._meter = None

    def _run(self, fn, batch):
        if self._meter is None:
            self._meter = StageMeter(self.stage)
        with Timed(self._meter, len(batch)):
            out = fn(list(batch))
        self._meter.done()
        return out

    def batch_elements_kwargs(self):
        return {"min_batch_size": 1, "max_batch_size": self._batch_size}
