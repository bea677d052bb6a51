"""The whole build graph (read .. publish) with small fake models: every stage's wiring, in seconds."""

import json
import time

import pyarrow.parquet as pq
from fake_models import FakeModels

from models.registry import load_config
from pipelines.build import run_build
from schemas.layout import QA_FILE, QUESTIONS_FILE, REJECTED_FILE


def test_whole_graph_runs_with_fake_models(fixtures, tmp_base):
    cfg = load_config(None, {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False})
    t0 = time.perf_counter()
    res = run_build([str(fixtures / "tiny.jsonl"), str(fixtures / "bad.jsonl"), str(fixtures / "pairs.csv")],
                    tmp_base, cfg, factory=FakeModels())
    seconds = time.perf_counter() - t0
    c = res.manifest["counts"]
    assert c["rows_read"] == c["rows_accepted"] + c["rows_rejected"] and c["rows_rejected"] > 0
    assert 0 < c["published"] <= c["passed_both"] <= c["distinct_questions"]
    # the manifest names the models that ran, from the factory (nothing loaded to find them)
    assert res.manifest["models"] == FakeModels().identities()

    qa = pq.read_table(res.path / QA_FILE).to_pylist()
    assert [r["rank"] for r in qa] == list(range(1, len(qa) + 1))
    assert len(qa) == c["published"] == res.manifest["index"]["ntotal"]
    france = next(r for r in qa if r["question_key"] == "what is the capital of france")
    assert france["rank"] == 1 and "Paris" in france["answer"]  # the majority answer, not "Lyon."
    assert all(r["qtype"] in ("objective", "subjective") for r in qa)

    questions = pq.read_table(res.path / QUESTIONS_FILE).to_pylist()
    assert len(questions) == c["distinct_questions"]
    dropped = {r["question_key"]: r["reason"] for r in questions if r["reason"]}
    assert dropped and set(dropped.values()) <= {"low_gec", "low_intent", "low_gec+low_intent", "below_top_k"}
    assert pq.read_table(res.path / REJECTED_FILE).num_rows == c["rows_rejected"]
    assert json.loads((res.path / "manifest.json").read_text())["quality"]["critical_failures"] == []
    assert seconds < 60, seconds


def test_paraphrases_become_one_entry_with_pooled_asks_answers_and_aliases(tmp_path, tmp_base):
    """With the fake judge (content words overlap): three forms of one question, one of them typo'd (a doubled
    word fails the fake GEC) and asked most, become one entry; 'lost' and 'broken' stay apart."""
    from fake_models import HashEmbedder

    from indexes.retrievers import AnswerRetriever

    rows = ([("how do I reset reset my password?", "Use the reset link.")] * 5
            + [("How do I reset my password?", "Use the reset link.")] * 2
            + [("How do I reset my password?", "Use the reset link on the sign-in page.")]
            + [("How to reset my password?", "Click 'Forgot password'.")] * 2
            + [("My phone is lost, what now?", "Lock it remotely.")] * 2
            + [("My phone is broken, what now?", "Take it to a repair shop.")] * 2)
    logs = tmp_path / "logs.jsonl"
    logs.write_text("".join(json.dumps({"question": q, "answer": a}) + "\n" for q, a in rows), encoding="utf-8")
    cfg = load_config(None, {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False})
    res = run_build([str(logs)], tmp_base, cfg, factory=FakeModels())
    qa = pq.read_table(res.path / QA_FILE).to_pylist()
    assert len(qa) == 3 and res.manifest["counts"]["merged_questions"] == 2
    top = qa[0]
    assert top["question"] == "How do I reset my password?" and top["frequency"] == 10
    assert [(a["question"], a["count"]) for a in top["aliases"]] == [
        ("How do I reset my password?", 3), ("how do I reset reset my password?", 5), ("How to reset my password?", 2)]
    assert top["total_answers"] == 10 and top["distinct_answers"] == 3  # answers pooled over the forms
    assert {r["question"] for r in qa[1:]} == {"My phone is lost, what now?", "My phone is broken, what now?"}
    questions = {r["question"]: r for r in pq.read_table(res.path / QUESTIONS_FILE).to_pylist()}
    typo = questions["how do I reset reset my password?"]
    assert typo["qid"] == top["qid"] and typo["reason"] == "low_gec" and typo["merged_into_reason"]
    assert questions["How to reset my password?"]["reason"] == "merged"
    assert questions["How do I reset my password?"]["kept"] and questions["How do I reset my password?"]["qid"] == top["qid"]
    # an alias is matched exactly, before any nearest-question search
    ans = AnswerRetriever(tmp_base, embedder=HashEmbedder()).get("how to reset my password")
    assert ans.found and ans.qid == top["qid"] and ans.score == 1.0
    report = (res.path / "report.html").read_text(encoding="utf-8")
    assert "Paraphrase merges" in report and "How to reset my password? (2)" in report
