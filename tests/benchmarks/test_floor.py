"""benchmarks/floor.py: the floor's texts are every distinct question and kept answer, cut; a sample scales."""

import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import floor  # noqa: E402

from schemas.layout import QA_FILE, QUESTIONS_FILE  # noqa: E402


class _Clock:
    """An embedder on a fake clock: each text it embeds takes exactly one second (no timing in the test)."""

    def __init__(self):
        self.seen = 0
        self.now = 0.0

    def perf_counter(self):
        return self.now

    def embed(self, texts):
        self.seen += len(texts)
        self.now += len(texts)


def test_floor_texts_and_a_sampled_floor_scaled_to_every_text(tmp_path, monkeypatch):
    long = "x" * 300
    pq.write_table(pa.table({"question": [long, "b", "c", "d"]}), tmp_path / QUESTIONS_FILE)
    answers = [[{"text": "yes " * 50}, {"text": "no"}], [{"text": "no"}]]
    pq.write_table(pa.table({"answers": answers}), tmp_path / QA_FILE)
    questions, kept = floor.floor_texts(tmp_path)
    assert questions == ["x" * floor.FLOOR_CHARS, "b", "c", "d"]
    assert kept == ["no", ("yes " * 50)[:floor.FLOOR_CHARS]]
    clock = _Clock()
    monkeypatch.setattr("models.registry.load_embedder", lambda spec: clock)
    monkeypatch.setattr(floor, "time", clock)
    whole = floor.floor_seconds(tmp_path)
    assert (whole["questions"], whole["answers"], whole["sampled"]) == (4, 2, False) and clock.seen == 1 + 6
    assert whole["seconds"] == 6.0  # the warm-up is not counted
    part = floor.floor_seconds(tmp_path, sample=2)
    assert part["sampled"] and clock.seen == 7 + 1 + 2 + 2
    assert part["seconds"] == 2 * 2.0 + 2.0  # 2 of the 4 questions embedded, their time doubled; both answers
