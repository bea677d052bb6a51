"""Stage ``embed``: each kept question's index vector and its type (objective or subjective).

The vector is reused from scoring when the same embedder produced it there (each text is embedded once).
"""

from __future__ import annotations

import numpy as np
from apache_beam.ml.inference.base import RunInference

from models.registry import ModelFactory
from pipelines.stages.counters import run_counted
from pipelines.stages.metering import MeteredHandler, ModelBox
from schemas.records import KeptQuestion, ScoredQuestion
from schemas.text import question_id


def embed_kept(embedder, qtyper, batch: list[tuple[int, ScoredQuestion]], subjective_threshold: float
               ) -> list[KeptQuestion]:
    vectors: list[np.ndarray | None] = [q.vectors.get(embedder.model_id) for _, q in batch]
    missing = [i for i, v in enumerate(vectors) if v is None]
    if missing:
        for i, v in zip(missing, embedder.embed([batch[i][1].question for i in missing])):
            vectors[i] = v
    mat = np.stack(vectors).astype(np.float32) if vectors else np.zeros((0, embedder.dim), np.float32)
    types = qtyper.classify_vectors([q.question for _, q in batch], mat, subjective_threshold)
    out = []
    for (rank, q), vec, (qtype, qscore) in zip(batch, mat, types):
        out.append(KeptQuestion(question_id(q.key), rank, q._replace(vectors={}), vec, qtype, round(qscore, 6)))
    return out


class EmbedHandler(MeteredHandler):
    stage = "embed"

    def __init__(self, factory: ModelFactory, subjective_threshold: float, batch_size: int):
        super().__init__(batch_size)
        self._factory = factory
        self._threshold = subjective_threshold

    def load_model(self):
        return ModelBox((self._factory.index_embedder(), self._factory.qtype()))

    def run_inference(self, batch, model, inference_args=None):
        emb, qtyper = model.value
        return run_counted("embed", emb, lambda: self._run(lambda b: embed_kept(emb, qtyper, b, self._threshold),
                                                           batch))


def embed_transform(factory: ModelFactory, subjective_threshold: float, batch_size: int) -> RunInference:
    """(rank, ScoredQuestion) -> KeptQuestion with its index vector and type, batched."""
    return RunInference(EmbedHandler(factory, subjective_threshold, batch_size))
