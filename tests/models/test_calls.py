"""The model-call ledger (models.calls): each stage's texts computed, characters and cache hits, read back from
a Beam pipeline's counters."""

import apache_beam as beam
import numpy as np

from models.caches.vectors import CachedEmbedder
from models.calls import MeteredModel, stage_scope
from pipelines.beam.counters import model_calls
from pipelines.beam.metering import StageMeter


class _Embedder:
    dim = 2
    model_id = "toy-embedder"

    def embed(self, texts):
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)


def test_metered_model_delegates_and_records_outside_beam_without_error():
    m = MeteredModel(_Embedder(), "toy", "embed")
    assert m.dim == 2 and m.model_id == "toy-embedder"
    with stage_scope("anywhere"):
        assert m.embed(["ab", "c"]).tolist() == [[2.0, 1.0], [1.0, 1.0]]


def test_calls_are_counted_per_stage_with_cache_hits(tmp_path):
    cache_path = tmp_path / "vectors.sqlite"

    class _Embed(beam.DoFn):
        def __init__(self, stage):
            self.stage = stage

        def setup(self):
            self.model = CachedEmbedder(MeteredModel(_Embedder(), "toy", "embed"), cache_path)

        def process(self, batch):
            meter = StageMeter(self.stage)
            with meter.timing(len(batch)):
                self.model.embed(batch)
            meter.done()
            yield len(batch)

    with beam.Pipeline() as p:
        first = p | "A" >> beam.Create([["hello", "hi", "hello"]]) | "EmbedA" >> beam.ParDo(_Embed("paraphrase"))
        (first | "Wait" >> beam.combiners.Count.Globally()
         | "B" >> beam.FlatMap(lambda _: [["hello", "hey"]]) | "EmbedB" >> beam.ParDo(_Embed("embed")))
    rows = {(r["stage"], r["model"]): r for r in model_calls(p.result)}
    # "hello" twice in one call is computed once (not a cache hit); the later stage finds it in the vector cache
    assert rows[("paraphrase", "toy")] == {"stage": "paraphrase", "model": "toy", "texts": 2, "chars": 7,
                                           "cached": 0}
    assert rows[("embed", "toy")]["texts"] == 1 and rows[("embed", "toy")]["chars"] == 3
    assert rows[("embed", "toy")]["cached"] == 1


def test_a_pair_models_calls_are_counted_as_pairs_of_both_sides_characters(monkeypatch):
    import models.cross_encoder as ce

    monkeypatch.setattr(ce, "pair_logits", lambda model, tok, pairs, batch, device: np.zeros(len(pairs)))

    class _Score(beam.DoFn):
        def process(self, pairs):
            meter = StageMeter("nonanswer")
            with meter.timing(len(pairs)):
                ce.MeteredPairLogits(None, None, "answer_match e5-pairs")(pairs)
            meter.done()
            yield len(pairs)

    with beam.Pipeline() as p:
        p | beam.Create([[("几点了", "三点"), ("你好", "你好呀")]]) | beam.ParDo(_Score())
    rows = {(r["stage"], r["model"]): r for r in model_calls(p.result)}
    assert rows[("nonanswer", "answer_match e5-pairs")] == {"stage": "nonanswer", "model": "answer_match e5-pairs",
                                                            "texts": 2, "chars": 10, "cached": 0}
