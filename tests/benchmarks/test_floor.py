"""benchmarks/floor.py: the floor's texts are every distinct question and judged answer, cut; a sample scales."""

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
    answers = [[{"text": "yes " * 60}, {"text": "no"}], [{"text": "no"}], [{"text": "是" * 300}]]
    pq.write_table(pa.table({"lang": ["en", "en", "zh"], "answers": answers}), tmp_path / QA_FILE)
    questions, judged = floor.floor_texts(tmp_path)
    assert questions == ["x" * floor.FLOOR_CHARS, "b", "c", "d"]
    # the product's cut: 200 characters of an English answer, 128 of a Chinese one
    assert judged == ["no", ("yes " * 60)[:200], "是" * 128]
    _, flat = floor.floor_texts(tmp_path, answer_cut="flat")
    assert flat == ["no", ("yes " * 60)[:floor.FLOOR_CHARS], "是" * floor.FLOOR_CHARS]
    clock = _Clock()
    monkeypatch.setattr("models.registry.load_embedder", lambda spec: clock)
    monkeypatch.setattr(floor, "time", clock)
    whole = floor.floor_seconds(tmp_path)
    assert (whole["questions"], whole["answers"], whole["sampled"]) == (4, 3, False) and clock.seen == 1 + 7
    assert whole["seconds"] == 7.0  # the warm-up is not counted
    part = floor.floor_seconds(tmp_path, sample=2)
    assert part["sampled"] and clock.seen == 8 + 1 + 2 + 2
    assert part["seconds"] == 2 * 2.0 + 2 * 1.5  # 2 of 4 questions embedded, their time doubled; 2 of 3 answers
    both = floor.floor_seconds(tmp_path, flat=True)  # the questions are embedded once for both floors
    assert clock.seen == 13 + 1 + 4 + 3 + 3 and both["seconds"] == both["flat_seconds"] == 7.0


def test_the_judged_answers_are_every_judged_entrys_not_only_the_published_ones(tmp_path):
    # an entry none of whose answers passed is judged but not published: its answers count; an entry never judged
    # (a member's non_answer_share None) does not; members' answers pool, the most given max_answers of them
    import json

    from schemas.layout import MANIFEST, STATE_DIR

    questions = {"question_key": ["a", "a2", "b", "c"], "question": ["A?", "A2?", "B?", "C?"],
                 "lang": ["en", "en", "zh", "en"], "frequency": [3, 1, 2, 1], "entry_key": ["a", "a", "b", "c"],
                 "non_answer_share": [0.0, None, 1.0, None]}
    pq.write_table(pa.table(questions), tmp_path / QUESTIONS_FILE)
    (tmp_path / STATE_DIR).mkdir()

    def answers(*forms):
        return [{"answer_key": text.lower(), "forms": [{"text": text, "count": n}]} for text, n in forms]

    state = {"key": ["a", "a2", "b", "c"], "forms": [[{"text": q, "count": 1}] for q in ("A?", "A2?", "B?", "C?")],
             "langs": [[{"text": lang, "count": 1}] for lang in ("en", "en", "zh", "en")],
             "answers": [answers(("One", 2), ("Two", 1)), answers(("Two", 3), ("Three", 1)),
                         answers(("不知道" * 50, 2)), answers(("Never judged", 1))],
             "first_seen": ["0"] * 4, "first_date": [""] * 4, "last_date": [""] * 4}
    pq.write_table(pa.table(state), tmp_path / STATE_DIR / QUESTIONS_FILE)
    (tmp_path / MANIFEST).write_text(json.dumps({"config": {"grouping": {"max_answers": 2}}}), encoding="utf-8")
    # qa.parquet is not read: only entry "a" was published
    pq.write_table(pa.table({"lang": ["en"], "answers": [[{"text": "One"}]]}), tmp_path / QA_FILE)
    assert sorted(floor.judged_answers(tmp_path)) == [("en", "One"), ("en", "Two"), ("zh", "不知道" * 50)]
    _, judged = floor.floor_texts(tmp_path)
    assert judged == ["One", "Two", ("不知道" * 50)[:128]]
