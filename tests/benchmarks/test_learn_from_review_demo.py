"""benchmarks/learn_from_review_demo.py: its skip without data, what it counts as changed, and the demo file."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import learn_from_review_demo as demo  # noqa: E402


def test_without_the_data_it_says_skipped(tmp_path, capsys):
    assert demo.main(["--data", str(tmp_path / "absent"), "--work", str(tmp_path / "work")]) == 0
    assert capsys.readouterr().out.startswith("skipped")
    assert not (tmp_path / "work").exists()


def test_changed_entries_counts_what_left_joined_and_was_flagged():
    def q(kept, reason="", ts=False):
        return {"question": "?", "kept": kept, "reason": reason, "time_sensitive": ts}

    before = {"a": q(True), "b": q(False, "no_valid_answer"), "c": q(True), "d": q(True)}
    after = {"a": q(False, "no_valid_answer"), "b": q(True), "c": q(True, ts=True), "d": q(True), "e": q(True)}
    change = demo.changed_entries(before, after, {"a": {"non_answer": 1}})
    assert (change["left"], change["joined"], change["time_sensitive_set"]) == (1, 1, 1)
    assert change["left_reasons"] == {"no_valid_answer": 1} and change["left_labelled"] == {"non-answer": 1}
    assert change["joined_from"] == {"no_valid_answer": 1} and change["joined_labelled"] == {"unlabelled": 1}


def test_the_demo_review_file_is_fifty_decisions_the_build_reads():
    from models.tools.review_labels import says_non_answer
    from schemas.review import load_review

    decisions = load_review(demo.REVIEW).decisions
    assert len(decisions) == 50
    excluded = [d for d in decisions if d.action == "exclude"]
    assert len(excluded) == 40 and all(says_non_answer(d) for d in excluded)
    assert {d.action for d in decisions} == {"exclude", "answer", "time_sensitive", "merge", "split"}
