"""The whole build graph (read .. publish) with small fake models: every stage's wiring, in seconds."""

import datetime as dt
import json
import time

import pyarrow.parquet as pq
import pytest
from fakes.models import FakeModels

from models.config_check import load_config
from pipelines.build import run_build
from schemas.layout import QA_FILE, QUESTIONS_FILE, REJECTED_FILE


def test_whole_graph_runs_with_fake_models(fixtures, tmp_base):
    cfg = load_config(None, {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False})
    t0 = time.perf_counter()
    res = run_build([str(fixtures / "tiny.jsonl"), str(fixtures / "bad.jsonl"), str(fixtures / "pairs.csv")],
                    tmp_base, cfg, factory=FakeModels(), report=False)
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
    dropped = {r["question_key"]: tuple(r["reasons"]) for r in questions if r["reasons"]}
    assert dropped and set(dropped.values()) <= {("low_gec",), ("low_intent",), ("low_gec", "low_intent"),
                                                 ("below_top_k",)}
    assert pq.read_table(res.path / REJECTED_FILE).num_rows == c["rows_rejected"]
    assert json.loads((res.path / "manifest.json").read_text())["quality"]["critical_failures"] == []
    assert seconds < 60, seconds


def test_paraphrases_become_one_entry_with_pooled_asks_answers_and_aliases(tmp_path, tmp_base):
    """With the fake judge (content words overlap): three forms of one question, one of them typo'd (a doubled
    word fails the fake GEC) and asked most, become one entry; 'lost' and 'broken' stay apart."""
    from fakes.models import HashEmbedder

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
    res = run_build([str(logs)], tmp_base, cfg, factory=FakeModels(), gate=False)
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
    assert typo["qid"] == top["qid"] and typo["reasons"] == ["low_gec"] and typo["merged_into_reason"]
    assert questions["How to reset my password?"]["reasons"] == ["merged"]
    assert questions["How do I reset my password?"]["kept"] and questions["How do I reset my password?"]["qid"] == top["qid"]
    # an alias is matched exactly, before any nearest-question search
    ans = AnswerRetriever(tmp_base, embedder=HashEmbedder()).get("how to reset my password")
    assert ans.found and ans.qid == top["qid"] and ans.score == 1.0
    report = (res.path / "report.html").read_text(encoding="utf-8")
    assert "Paraphrase merges" in report and "How to reset my password? (2)" in report


def _logs(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _rows(question, answers, day):
    return [{"question": question, "answer": a, "timestamp": f"2026-03-{day:02d}T10:00:00Z"} for a in answers]


def test_non_answers_never_vote_and_all_non_answers_leave_the_base(tmp_path, tmp_base):
    """With the real pattern rules as the detector: refusals are shown, counted and never win the vote (even
    when most given); a question answered only with non-answers is withheld (no_valid_answer), and
    AnswerRetriever says so instead of answering from a near question."""
    from fakes.models import HashEmbedder

    from indexes.retrievers import AnswerRetriever

    logs = _logs(tmp_path / "logs.jsonl",
                 _rows("What is the capital of France?", ["I'm sorry, but I can't help with that."] * 4
                       + ["Paris is the capital of France."] * 3, 1)
                 + _rows("What is the capital of Spain?", ["Madrid is the capital of Spain."] * 3, 2)
                 + _rows("Where is my parcel now?", ["I'm sorry, but I can't help with that."] * 3
                         + ["I don't know, please contact customer support."] * 2, 3))
    cfg = load_config(None, {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False})
    res = run_build([str(logs)], tmp_base, cfg, factory=FakeModels())
    qa = {r["question"]: r for r in pq.read_table(res.path / QA_FILE).to_pylist()}
    assert set(qa) == {"What is the capital of France?", "What is the capital of Spain?"}
    france = qa["What is the capital of France?"]
    assert "Paris" in france["answer"] and france["total_answers"] == 7 and france["non_answers"] == 4
    refusal = next(a for a in france["answers"] if a["text"].startswith("I'm sorry"))
    assert refusal["non_answer"] and refusal["non_answer_reason"] == "refusal" and refusal["non_answer_score"] >= 0.5
    assert not qa["What is the capital of Spain?"]["answers"][0]["non_answer"]
    # reliability: every valid row agrees (3 of 3), three rows back it, but 4 of the 7 judged rows were refusals
    assert france["agreeing_answers"] == 3 and not france["contradicted"]
    assert france["reliability_parts"] == {"agreement": 1.0, "support": 0.875, "answered": round(3 / 7, 6),
                                           "consistent": 1.0, "fresh": 1.0}
    assert france["reliability"] == round(0.875 * round(3 / 7, 6), 6) < qa["What is the capital of Spain?"]["reliability"]
    questions = {r["question"]: r for r in pq.read_table(res.path / QUESTIONS_FILE).to_pylist()}
    parcel = questions["Where is my parcel now?"]
    assert parcel["reasons"] == ["no_valid_answer"] and parcel["non_answer_share"] == 1.0 and parcel["qid"] is None
    assert questions["What is the capital of France?"]["non_answer_share"] == round(4 / 7, 6)
    c = res.manifest["counts"]
    assert c["no_valid_answer"] == 1 and c["published"] == 2
    assert res.manifest["quality"]["critical_failures"] == []
    ans = AnswerRetriever(tmp_base, embedder=HashEmbedder()).get("where is my parcel now")
    assert not ans.found and ans.withheld == "no_valid_answer" and ans.reliability is None
    got = AnswerRetriever(tmp_base, embedder=HashEmbedder()).get("What is the capital of France?")
    assert got.found and got.reliability == france["reliability"] and got.reliability_parts["answered"] < 1.0
    assert got.agreeing_answers == 3 and not got.contradicted
    assert ans.message == "AnswerRetriever found no valid information for where is my parcel now"
    report = (res.path / "report.html").read_text(encoding="utf-8")
    assert "Non-answers" in report and "Where is my parcel now?" in report


@pytest.mark.slow  # several whole builds (fake models)
def test_a_base_left_short_by_the_headroom_warns_and_more_headroom_fills_it(tmp_path, tmp_base):
    rows = (_rows("What is the capital of France?", ["Paris is the capital of France."] * 7, 1)
            + _rows("Where is my parcel now?", ["I'm sorry, but I can't help with that."] * 5, 3)
            + _rows("What is the capital of Spain?", ["Madrid is the capital of Spain."] * 3, 2))
    logs = _logs(tmp_path / "logs.jsonl", rows)
    base = {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False, "filter.top_k": 2}
    short = run_build([str(logs)], tmp_base, load_config(None, {**base, "non_answer.headroom": 0.0}),
                      factory=FakeModels(), report=False)
    assert short.manifest["counts"]["published"] == 1  # the parcel question had no valid answer, Spain never judged
    warned = [w for w in short.manifest["quality"]["warnings"] if w["suite"] == "fill"]
    assert warned and warned[0]["column"] == "headroom_sufficient"
    full = run_build([str(logs)], tmp_path / "base2", load_config(None, {**base, "non_answer.headroom": 0.5}),
                     factory=FakeModels(), report=False)
    assert full.manifest["counts"]["published"] == 2
    assert not [w for w in full.manifest["quality"]["warnings"] if w["suite"] == "fill"]


@pytest.mark.slow  # several whole builds (fake models)
def test_time_sensitive_entries_flagged_with_the_logs_period_or_dropped(tmp_path, tmp_base):
    from fakes.models import HashEmbedder

    from indexes.retrievers import AnswerRetriever

    logs = _logs(tmp_path / "logs.jsonl",
                 _rows("How much does the iPhone cost right now?", ["It starts at $799."] * 3, 4)
                 + _rows("How much does the iPhone cost right now?", ["It starts at $829."], 9)
                 + _rows("What is the capital of Spain?", ["Madrid is the capital of Spain."] * 3, 2)
                 # the question reads fixed; its answers say the figure goes stale
                 + _rows("How many members does the chess club have?", ["It has 120 members as of this year."] * 2, 3))
    base = {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False}
    res = run_build([str(logs)], tmp_base, load_config(None, base), factory=FakeModels(), gate=False)
    qa = {r["question"]: r for r in pq.read_table(res.path / QA_FILE).to_pylist()}
    price = qa["How much does the iPhone cost right now?"]
    assert price["time_sensitive"] and price["time_sensitive_reason"] == "price"
    # dates in the store; ISO strings where the retrievers answer
    assert price["logs_period"] == {"first": dt.date(2026, 3, 4), "last": dt.date(2026, 3, 9)}
    assert not qa["What is the capital of Spain?"]["time_sensitive"]
    club = qa["How many members does the chess club have?"]
    assert club["time_sensitive"] and club["time_sensitive_reason"] == "answer: as of this year"
    assert club["reliability_parts"]["fresh"] < 1
    questions = {r["question"]: r for r in pq.read_table(res.path / QUESTIONS_FILE).to_pylist()}
    assert not questions["How many members does the chess club have?"]["time_sensitive"]  # the question judge's
    unread = run_build([str(logs)], tmp_path / "unread", load_config(None, dict(base, **{"time_sensitive.answers": False})),
                       factory=FakeModels(), gate=False, report=False)
    assert not {r["question"]: r for r in pq.read_table(unread.path / QA_FILE).to_pylist()}[
        "How many members does the chess club have?"]["time_sensitive"]
    ans = AnswerRetriever(tmp_base, embedder=HashEmbedder()).get("How much does the iPhone cost right now?")
    assert ans.found and ans.time_sensitive and ans.logs_period == {"first": "2026-03-04", "last": "2026-03-09"}
    assert "Time-sensitive questions" in (res.path / "report.html").read_text(encoding="utf-8")

    dropped = run_build([str(logs)], tmp_path / "drop", load_config(None, dict(base, **{"time_sensitive.policy": "drop"})),
                        factory=FakeModels(), report=False)
    # under drop the entries were chosen before their answers were read: the answers' word flags nothing there
    assert sorted(r["question"] for r in pq.read_table(dropped.path / QA_FILE).to_pylist()) == [
        "How many members does the chess club have?", "What is the capital of Spain?"]
    assert not any(r["time_sensitive"] for r in pq.read_table(dropped.path / QA_FILE).to_pylist())
    questions = {r["question"]: r for r in pq.read_table(dropped.path / QUESTIONS_FILE).to_pylist()}
    assert questions["How much does the iPhone cost right now?"]["reasons"] == ["time_sensitive"]
    assert dropped.manifest["quality"]["critical_failures"] == []

    kept = run_build([str(logs)], tmp_path / "keep", load_config(None, dict(base, **{"time_sensitive.policy": "keep"})),
                     factory=FakeModels(), gate=False, report=False)
    rows = pq.read_table(kept.path / QA_FILE).to_pylist()
    assert len(rows) == 3 and not any(r["time_sensitive"] for r in rows)


@pytest.mark.slow  # several whole builds (fake models)
def test_scoring_only_what_the_top_k_needs_gives_the_base_that_scoring_everything_gives(tmp_path):
    """The frontier (pipelines.stages.frontier) scores entries in frequency order until top_k + headroom pass.
    Here the top-K boundary falls among eleven questions asked three times each, the most asked questions
    fail a filter (no question mark, a doubled word) or have only non-answers, and two forms merge into an
    entry that outranks both: the K-proportional build must publish exactly what scoring every question
    publishes, and score fewer questions."""
    rows = (_rows("tell me about the weather", ["It is sunny."] * 9, 1)  # low intent
            + _rows("What is is the capital of Peru?", ["Lima."] * 8, 2)  # low GEC
            + _rows("Where is my parcel now?", ["I'm sorry, but I can't help with that."] * 7, 3)  # no valid answer
            + _rows("How do I reset my password?", ["Use the reset link."] * 3, 4)
            + _rows("How to reset my password?", ["Use the reset link."] * 3, 5)  # merged: 6 asks together
            + _rows("What is the capital of France?", ["Paris."] * 4, 6))
    for i, topic in enumerate(["Spain", "Italy", "Chile", "Kenya", "Japan", "Nepal", "Egypt", "Ghana", "Tonga",
                               "Samoa", "Fiji"]):
        rows += _rows(f"What is the capital of {topic}?", [f"The capital of {topic} is its largest city."] * 3, 10 + i)
    rows += [r for i, thing in enumerate(["radio", "telephone", "bicycle", "camera", "piano", "compass", "rocket"])
             for r in _rows(f"Who invented the {thing}?", ["An engineer."], 30 + i)]
    logs = _logs(tmp_path / "logs.jsonl", rows)
    base = {"aggregation.cache": False, "models.cache": False, "quality.data_docs": False, "filter.top_k": 5,
            "non_answer.headroom": 0.2}
    lazy = run_build([str(logs)], tmp_path / "lazy", load_config(None, base), factory=FakeModels(), gate=False,
                     report=False)
    full = run_build([str(logs)], tmp_path / "full", load_config(None, {**base, "filter.score_all": True}),
                     factory=FakeModels(), gate=False, report=False)
    lazy_qa, full_qa = pq.read_table(lazy.path / QA_FILE), pq.read_table(full.path / QA_FILE)
    assert lazy_qa.num_rows == 5 and lazy_qa.equals(full_qa)
    # the boundary fell inside the tie: two of the eleven three-ask capitals are in, by the smallest key
    ranked = [r["question"] for r in lazy_qa.to_pylist()]
    assert ranked[:2] == ["How do I reset my password?", "What is the capital of France?"]
    assert ranked[2:] == ["What is the capital of Chile?", "What is the capital of Egypt?", "What is the capital of Fiji?"]
    c_lazy, c_full = lazy.manifest["counts"], full.manifest["counts"]
    assert c_full["questions_scored"] == c_full["distinct_questions"] == 24
    assert c_lazy["questions_scored"] < c_full["questions_scored"]
    lazy_q = {r["question_key"]: r for r in pq.read_table(lazy.path / QUESTIONS_FILE).to_pylist()}
    full_q = {r["question_key"]: r for r in pq.read_table(full.path / QUESTIONS_FILE).to_pylist()}
    assert set(lazy_q) == set(full_q)
    never = [k for k, r in lazy_q.items() if r["gec_score"] is None]
    assert len(never) == c_full["questions_scored"] - c_lazy["questions_scored"] > 0
    for key, r in lazy_q.items():
        if r["gec_score"] is None:  # never scored: below the top K in both builds
            assert r["reasons"] == ["below_top_k"] and not r["kept"] and full_q[key]["rank"] is None
        else:
            assert r == full_q[key]
