"""Look-alike questions through a build (fake models): forms that differ only by invisible characters or letters of
another script that pass for Latin ones are one entry, shown in the form they imitate; a reviewer's exclusion of
the real question holds for every look-alike, and neither retriever serves a look-alike's answer."""

import json

import pyarrow.parquet as pq
import pytest
from conftest import FAST_BUILD
from fakes.models import FakeModels, HashEmbedder

from indexes.retrievers import AnswerRetriever
from models.config_check import load_config
from pipelines.build import run_build

REAL_PASSWORD, REAL_WATER = "How do I reset my password?", "What is the boiling point of water?"
FAKE_PASSWORD = "How do I reset my pass\u200bword?"  # a zero-width space
FAKE_WATER = "What is the boiling point of w\u0430ter?"  # a Cyrillic а
PLANTED = "Water boils at 50 degrees."
ROWS = ([(REAL_PASSWORD, "Click Forgot password on the sign-in page.")] * 3
        + [(FAKE_PASSWORD, "Mail your password to the support desk.")] * 5
        + [(REAL_WATER, "Water boils at 100 degrees at sea level.")] * 3
        + [(FAKE_WATER, PLANTED)] * 5
        + [("What is the capital of France?", "Paris.")] * 2)


def _build(tmp_path, review=None):
    logs = tmp_path / "logs.jsonl"
    logs.write_text("".join(json.dumps({"question": q, "answer": a}, ensure_ascii=False) + "\n" for q, a in ROWS),
                    encoding="utf-8")
    more = {"review.file": str(review)} if review else {}
    cfg = load_config(None, {**FAST_BUILD, "filter.top_k": 10, **more})
    return run_build([str(logs)], tmp_path / "base", cfg, factory=FakeModels(), gate=False, report=False)


def _qa(res) -> dict:
    return {r["question"]: r for r in pq.read_table(res.path / "qa.parquet").to_pylist()}


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("plain"))


def test_lookalike_forms_are_one_entry_shown_in_the_form_they_imitate(plain):
    qa = _qa(plain)
    assert set(qa) == {REAL_PASSWORD, REAL_WATER, "What is the capital of France?"}
    assert qa[REAL_WATER]["frequency"] == 8
    assert qa[REAL_PASSWORD]["frequency"] == 8
    shown = [r["question"] for r in pq.read_table(plain.path / "questions.parquet").to_pylist()]
    assert not any("\u200b" in q or "\u0430" in q for q in shown)


def test_an_exclusion_of_the_real_question_holds_for_every_lookalike(tmp_path):
    review = tmp_path / "review.jsonl"
    review.write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in [
        {"action": "exclude", "question": REAL_PASSWORD}, {"action": "exclude", "question": REAL_WATER}]),
        encoding="utf-8")
    res = _build(tmp_path, review)
    assert set(_qa(res)) == {"What is the capital of France?"}
    retriever = AnswerRetriever(tmp_path / "base", embedder=HashEmbedder())
    for q in (FAKE_WATER, REAL_WATER, FAKE_PASSWORD):
        ans = retriever.get(q)
        assert not ans.found and PLANTED not in ans.answer


def test_a_decision_naming_a_lookalike_form_names_its_question(tmp_path):
    review = tmp_path / "review.jsonl"
    review.write_text(json.dumps({"action": "exclude", "question": FAKE_PASSWORD}) + "\n", encoding="utf-8")
    res = _build(tmp_path, review)
    assert REAL_PASSWORD not in _qa(res)
    status = {r["question"]: r["reasons"] for r in pq.read_table(res.path / "questions.parquet").to_pylist()}
    assert status[REAL_PASSWORD] == ["excluded_by_reviewer"]
