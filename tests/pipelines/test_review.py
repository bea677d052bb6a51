"""The review file applied by the build (fake models): each action's effect against the same build without it,
stale and conflicting decisions reported, a bad line refused before anything is written, an incremental build
equal to a full rebuild with the same file, and a changed file alone making a new version."""

import json
import shutil

import pyarrow.parquet as pq
import pytest
from conftest import FAST_BUILD
from fakes.models import FakeModels

from models.config_check import load_config
from pipelines.build import run_build
from pipelines.summary import summary_text
from schemas.errors import ConfigError

# (question, asks, answers in turn): the fake judges keep a question with a question mark or a question word
LOGS = [
    ("How do I open an account?", 6, ["Fill in the form at any branch.", "Use the app's sign-up page."]),
    ("How can I open an account?", 1, ["Use the app's sign-up page."]),
    ("What is the capital of France?", 6, ["Paris is the capital of France.", "Paris."]),
    ("How do I reset my password?", 5, ["Click Forgot password on the sign-in page."]),
    ("What is the gold price today?", 4, ["About 2,000 dollars an ounce."]),
    ("Which is better, tea or coffee?", 3, ["Tea is calmer.", "Coffee gives energy."]),
    ("hello", 3, ["Hi! How can I help?"]),
    ("When does the store open?", 2, ["At nine."]),
    ("What time is it now?", 2, ["I cannot provide real-time information."]),
    ("Where is the nearest branch?", 1, ["Main Street 1."]),
]
REVIEW = [
    {"action": "exclude", "question": "how do i reset my password", "note": "internal procedure"},
    {"action": "answer", "question": "WHAT IS THE CAPITAL OF FRANCE", "answer": "Paris.", "note": "checked"},
    {"action": "keep", "question": "Hello!"},
    {"action": "time_sensitive", "question": "What is the gold price today?", "value": False},
    {"action": "time_sensitive", "question": "Which is better, tea or coffee?", "value": True},
    {"action": "merge", "question": "Where is the nearest branch?", "into": "What is the capital of France?"},
    {"action": "split", "question": "How can I open an account?", "from": "How do I open an account?"},
    {"action": "merge", "question": "How can I open an account?", "into": "How do I open an account?"},
    {"action": "exclude", "question": "a question nobody asked"},
    {"action": "answer", "question": "what time is it now", "answer": "See the clock on your screen."},
]
TOP_K = 6


def _rows(day: int) -> list[dict]:
    """Day 1: the first half of each question's asks; day 2: the rest."""
    out = []
    for question, asks, answers in LOGS:
        for i in range(asks):
            if (i < (asks + 1) // 2) == (day == 1):
                out.append({"question": question, "answer": answers[i % len(answers)],
                            "timestamp": f"2026-11-0{day}T10:{len(out):02d}:00Z"})
    return out


def _write(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _cfg(review=None, **more):
    return load_config(None, {**FAST_BUILD, "filter.top_k": TOP_K, **({"review.file": str(review)} if review else {}),
                              **more})


def _build(inputs, base, cfg, **kw):
    return run_build([str(p) for p in inputs], base, cfg, factory=FakeModels(), **{"gate": False, "report": False, **kw})


def _qa(res) -> dict:
    return {r["question"]: r for r in pq.read_table(res.path / "qa.parquet").to_pylist()}


def _questions(res) -> dict:
    return {r["question"]: r for r in pq.read_table(res.path / "questions.parquet").to_pylist()}


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    work = tmp_path_factory.mktemp("review-logs")
    days = [_write(work / f"day{d}.jsonl", _rows(d)) for d in (1, 2)]
    review = _write(work / "review.jsonl", REVIEW)
    return work, days, review


@pytest.fixture(scope="module")
def builds(logs, tmp_path_factory):
    work, days, review = logs
    out = tmp_path_factory.mktemp("review-builds")
    plain = _build(days, out / "plain", _cfg())
    # the gate accepts it; the report shows it
    reviewed = _build(days, out / "full", _cfg(review), full_rebuild=True, gate=True, report=True)
    first = _build(days[:1], out / "incremental", _cfg(review))
    second = _build(days, out / "incremental", _cfg(review))
    return plain, reviewed, first, second, out


def test_without_review_the_judges_decide(builds):
    plain = _qa(builds[0])
    assert set(plain) == {"How do I open an account?", "What is the capital of France?", "How do I reset my password?",
                          "What is the gold price today?", "Which is better, tea or coffee?", "When does the store open?"}
    forms = {a["question"] for a in plain["How do I open an account?"]["aliases"]}
    assert forms == {"How do I open an account?", "How can I open an account?"}  # the fake judge merges them
    assert plain["What is the gold price today?"]["time_sensitive"]
    assert all(r["reviewed"] == [] and r["review_note"] == "" for r in plain.values())
    assert builds[0].manifest["review"] is None


def test_exclude_leaves_the_base_with_a_reviewer_reason_and_the_next_entry_takes_its_place(builds):
    qa, questions = _qa(builds[1]), _questions(builds[1])
    assert "How do I reset my password?" not in qa and len(qa) == TOP_K and "When does the store open?" not in qa
    row = questions["How do I reset my password?"]
    assert row["reasons"] == ["excluded_by_reviewer"] and not row["kept"] and row["qid"] is None


def test_keep_ranks_an_entry_a_filter_dropped(builds):
    qa, questions = _qa(builds[1]), _questions(builds[1])
    assert "hello" not in _qa(builds[0]) and _questions(builds[0])["hello"]["reasons"] == ["low_intent"]
    assert qa["hello"]["reviewed"] == ["keep"] and questions["hello"]["kept"] and questions["hello"]["reasons"] == []


def test_answer_serves_the_reviewers_text_and_keeps_the_logged_answers(builds):
    row = _qa(builds[1])["What is the capital of France?"]
    assert row["answer"] == "Paris." and row["method"] == "reviewed" and row["review_note"] == "checked"
    assert "answer" in row["reviewed"]
    logged = {a["text"] for a in row["answers"]}
    assert {"Paris is the capital of France.", "Main Street 1."} <= logged  # the merged form's answers pooled too


def test_an_answer_keeps_an_entry_whose_every_logged_answer_is_a_non_answer(builds):
    assert _questions(builds[0])["What time is it now?"]["reasons"] == ["no_valid_answer"]
    row = _qa(builds[1])["What time is it now?"]
    assert row["answer"] == "See the clock on your screen." and row["answers"][0]["non_answer"]
    assert builds[1].manifest["quality"]["critical_failures"] == []


def test_merge_joins_the_entry_with_its_asks_and_answers(builds):
    plain, row = _qa(builds[0])["What is the capital of France?"], _qa(builds[1])["What is the capital of France?"]
    assert {a["question"] for a in row["aliases"]} == {"What is the capital of France?", "Where is the nearest branch?"}
    assert row["frequency"] == plain["frequency"] + 1 and "merge" in row["reviewed"]
    merged = _questions(builds[1])["Where is the nearest branch?"]
    assert merged["reasons"] == ["merged"] and merged["qid"] == row["qid"]
    assert merged["merged_into_reason"].startswith("merged by a reviewer") and merged["merge_probability"] is None


def test_split_keeps_two_forms_apart_whatever_the_judge_says(builds):
    row = _qa(builds[1])["How do I open an account?"]
    assert [a["question"] for a in row["aliases"]] == ["How do I open an account?"] and row["frequency"] == 6
    apart = _questions(builds[1])["How can I open an account?"]
    assert apart["entry_key"] == "how can i open an account" and apart["reasons"] == ["below_top_k"]


def test_time_sensitive_overrides_the_judge_both_ways(builds):
    qa = _qa(builds[1])
    assert not qa["What is the gold price today?"]["time_sensitive"]
    tea = qa["Which is better, tea or coffee?"]
    assert tea["time_sensitive"] and tea["time_sensitive_reason"] == "reviewer" and tea["reviewed"] == ["time_sensitive"]


def test_stale_and_conflicting_decisions_are_reported(builds):
    res = builds[1]
    review = res.manifest["review"]
    assert review["decisions"] == len(REVIEW) and review["sha256"]
    assert (review["applied"], review["stale"], review["conflicting"]) == (8, 1, 1)
    by_line = {o["line"]: o for o in review["not_applied"]}
    assert by_line[9]["status"] == "stale" and "a question nobody asked" in by_line[9]["detail"]
    assert by_line[8]["status"] == "conflicting" and "line 7" in by_line[8]["detail"]
    text = summary_text(res)
    assert "review: 10 decision(s)" in text and "line 9 exclude 'a question nobody asked': stale" in text
    assert "line 8 merge" in text and "conflicting" in text
    figures = json.loads((res.path / "report.json").read_text(encoding="utf-8"))["review"]
    assert (figures["applied"], figures["stale"], figures["conflicting"], figures["excluded"]) == (8, 1, 1, 1)
    assert figures["actions_in_base"]["answer"] == 2 and len(figures["not_applied"]) == 2
    page = (res.path / "report.html").read_text(encoding="utf-8")
    assert 'id="review"' in page and "a question nobody asked" in page


def test_an_incremental_build_equals_a_full_rebuild_with_the_same_file(builds):
    _, full, first, second, _ = builds
    assert second.manifest["increment"]["mode"] == "incremental"
    assert "How do I reset my password?" not in _qa(first)  # applied on the first day's build too
    for name in ("qa.parquet", "questions.parquet"):
        a, b = pq.read_table(second.path / name), pq.read_table(full.path / name)
        assert a.num_rows == b.num_rows > 0 and a.equals(b), name
    assert second.manifest["review"] == full.manifest["review"]


def test_a_changed_review_file_alone_makes_a_new_version(builds, logs, tmp_path):
    _, _, _, second, out = builds
    work, days, review = logs
    base = tmp_path / "base"
    shutil.copytree(out / "incremental", base, symlinks=True)
    again = _build(days, base, _cfg(review))
    assert again.unchanged and again.version == second.version
    moved = tmp_path / "same.jsonl"  # the same decisions at another path: nothing new either
    moved.write_bytes(review.read_bytes())
    assert _build(days, base, _cfg(moved)).unchanged
    changed = _write(tmp_path / "changed.jsonl", REVIEW + [{"action": "exclude", "question": "hello"}])
    res = _build(days, base, _cfg(changed))
    assert not res.unchanged and res.version != second.version and res.manifest["increment"]["new_files"] == []
    assert "hello" not in _qa(res) and res.manifest["review"]["sha256"] != second.manifest["review"]["sha256"]
    # the later line wins over the keep, which is reported as conflicting
    assert any(o["line"] == 3 and o["status"] == "conflicting" for o in res.manifest["review"]["not_applied"])
    without = _build(days, base, _cfg())  # dropping the file is a change too
    assert not without.unchanged and without.manifest["review"] is None


def test_a_malformed_line_stops_the_build_before_anything_is_written(logs, tmp_path):
    _, days, _ = logs
    bad = _write(tmp_path / "review.jsonl", REVIEW[:2] + [{"action": "merge", "question": "hello"}])
    base = tmp_path / "base"
    with pytest.raises(ConfigError, match=r"review: review.jsonl line 3: merge needs 'into'"):
        _build(days, base, _cfg(bad))
    assert not base.exists()
    with pytest.raises(ConfigError, match="file not found"):
        _build(days, base, _cfg(tmp_path / "missing.jsonl"))
    assert not base.exists()


def test_the_build_command_prints_one_error_line_for_a_bad_review_file(logs, tmp_path, capsys):
    from pipelines import build_base

    _, days, _ = logs
    bad = tmp_path / "r.jsonl"
    bad.write_text('{"action": "exclude", "question": "hello"}\n{"action": "answer", "question": "hello"\n',
                   encoding="utf-8")
    code = build_base.main(["--input", str(days[0]), "--base", str(tmp_path / "base"), "--review", str(bad)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("error: review: r.jsonl line 2: not valid JSON")
    assert not (tmp_path / "base").exists()


def test_review_list_against_the_base_built_with_the_file_matches_the_manifest(builds, logs, capsys):
    from pipelines.commands.review import main

    _, _, review = logs
    res = builds[1]
    assert main(["list", str(review), "--base", str(res.path.parent.parent), "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["status"] for r in rows] == ["applied"] * 7 + ["conflicting", "stale", "applied"]
    assert [r for r in rows if r["status"] != "applied"] == res.manifest["review"]["not_applied"]


def test_the_reports_least_sure_merges_leave_out_a_reviewers_merges():
    from pipelines.release.report import merges

    # 0.9: above the judge's threshold (below it, the merge was the answers' overlap: its own list)
    questions = [{"question": "a", "frequency": 1, "merged_into_reason": "paraphrase of 'x'", "merge_probability": 0.9,
                  "qid": "q1"},
                 {"question": "b", "frequency": 1, "merged_into_reason": "merged by a reviewer into 'x'",
                  "merge_probability": None, "qid": "q1"}]
    out = merges(questions, [])
    assert out["merged_questions"] == 2 and [m["question"] for m in out["least_sure"]] == ["a"]


def test_the_gate_takes_a_reviewers_answer_and_flag_as_the_entrys(tmp_path):
    """A reviewer's answer on a subjective entry whose logged answers are all non-answers, flagged
    time-sensitive under policy keep: every check the gate computes holds (and fails without the decisions)."""
    import pyarrow as pa

    from pipelines.release.quality import _qa_frame

    row = {"answer": "Both are fine.", "answers": [{"answer_id": 1, "text": "I cannot say.", "count": 2,
                                                   "non_answer": True, "instruction_like": False}],
           "viewpoints": [], "qtype": "subjective", "total_answers": 2, "non_answers": 2, "frequency": 2,
           "aliases": [{"question": "tea or coffee?", "count": 2}], "question": "tea or coffee?", "method": "reviewed",
           "time_sensitive": True, "logs_period": None, "reliability": 1.0,
           "reliability_parts": {"agreement": 1.0, "support": 1.0, "answered": 1.0, "consistent": 1.0, "fresh": 1.0},
           "agreeing_answers": 0, "contradicted": False, "contradicting_answers": 0}
    checks = ["has_valid_answer", "viewpoints_present", "time_policy_respected"]
    for reviewed, expected in ((["answer", "time_sensitive"], True), ([], False)):
        path = tmp_path / f"qa{len(reviewed)}.parquet"
        pq.write_table(pa.Table.from_pylist([{**row, "reviewed": reviewed}]), path)
        frame = _qa_frame(path, time_policy="keep")
        assert {c: bool(frame[c][0]) for c in checks} == {c: expected for c in checks}
        assert frame["non_answers_excluded"][0] and frame["reliability_valid"][0] and frame["aliases_valid"][0]


def test_a_question_merged_into_two_questions_joins_the_later_one_only(logs, tmp_path):
    _, days, _ = logs
    review = _write(tmp_path / "review.jsonl", [
        {"action": "merge", "question": "Where is the nearest branch?", "into": "What is the capital of France?",
         "note": "first thought"},
        {"action": "merge", "question": "Where is the nearest branch?", "into": "When does the store open?",
         "note": "second thought"}])
    res = _build(days[:1], tmp_path / "base", _cfg(review))
    qa, questions = _qa(res), _questions(res)
    store, capital = qa["When does the store open?"], qa["What is the capital of France?"]
    assert {a["question"] for a in store["aliases"]} == {"When does the store open?", "Where is the nearest branch?"}
    assert store["reviewed"] == ["merge"] and store["review_note"] == "second thought"
    assert [a["question"] for a in capital["aliases"]] == ["What is the capital of France?"]
    assert capital["reviewed"] == [] and capital["review_note"] == ""
    assert questions["Where is the nearest branch?"]["entry_key"] == questions["When does the store open?"]["entry_key"]
    review_section = res.manifest["review"]
    assert (review_section["applied"], review_section["conflicting"]) == (1, 1)
    assert [(o["line"], o["detail"]) for o in review_section["not_applied"]] == [
        (1, "overridden by line 2 (a merge into another question)")]


@pytest.mark.parametrize("line, message", [
    ('{"action": "answer", "question": "hello", "answer": "hi \\ud800"}', "'answer' holds a lone surrogate"),
    ('{"action": "exclude", "question": "hello \\udfff"}', "'question' holds a lone surrogate"),
    ('{"action": "exclude", "question": "hello", "by": %s}' % ("[" * 100_000 + "]" * 100_000),
     "nested more than 32 levels deep"),
    ('{"action": "answer", "question": "hello", "answer": "%s"}' % ("x" * 20_001),
     "answer is 20,001 characters; at most 20,000"),
])
def test_the_build_refuses_what_it_would_fail_on_later_with_one_error_line(logs, tmp_path, capsys, line, message):
    from pipelines import build_base

    _, days, _ = logs
    bad = tmp_path / "r.jsonl"
    bad.write_text('{"action": "exclude", "question": "hello"}\n' + line + "\n", encoding="utf-8")
    code = build_base.main(["--input", str(days[0]), "--base", str(tmp_path / "base"), "--review", str(bad)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and err == [err[0]] and err[0].startswith(f"error: review: r.jsonl line 2: {message}")
    assert not (tmp_path / "base").exists()


def test_a_reviewers_time_sensitive_decision_outweighs_what_the_answers_say(tmp_path):
    """An entry whose answers say it goes stale ("as of this year") is flagged; a reviewer's time_sensitive false
    unflags it, and the answers' words do not flag it again."""
    logs = _write(tmp_path / "logs.jsonl", [
        {"question": "How many members does the chess club have?", "answer": "It has 120 members as of this year.",
         "timestamp": "2026-03-01T00:00:00Z"}] * 2)
    review = _write(tmp_path / "review.jsonl", [{"action": "time_sensitive",
                                                  "question": "How many members does the chess club have?",
                                                  "value": False}])
    flagged = _qa(_build([logs], tmp_path / "plain", _cfg()))["How many members does the chess club have?"]
    assert flagged["time_sensitive"] and flagged["time_sensitive_reason"] == "answer: as of this year"
    decided = _qa(_build([logs], tmp_path / "reviewed", _cfg(review)))["How many members does the chess club have?"]
    assert not decided["time_sensitive"] and decided["reviewed"] == ["time_sensitive"]
