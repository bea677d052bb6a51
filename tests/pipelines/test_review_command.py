"""``qabase review``: list a file's decisions against a base; append a checked decision."""

import json

from pipelines import cli
from pipelines.review_command import list_decisions


def _write(path, *items):
    path.write_text("".join(json.dumps(x) + "\n" for x in items), encoding="utf-8")
    return path


def test_list_against_a_base_built_without_the_file_says_pending_and_stale(shared_fake_base, tmp_path, capsys):
    base, _ = shared_fake_base
    review = _write(tmp_path / "r.jsonl", {"action": "exclude", "question": "what is the capital of france"},
                    {"action": "keep", "question": "never asked"})
    assert cli.main(["review", "list", str(review), "--base", str(base)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "2 decision(s)" in out[0] and "built with another review file or none" in out[0]
    assert "pending" in out[1] and "exclude" in out[1]
    assert "stale" in out[2] and "no question 'never asked' in the base" in out[2]
    assert cli.main(["review", "list", str(review), "--base", str(base), "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["status"] for r in rows] == ["pending", "stale"]
    facts, _ = list_decisions(review, str(base))
    assert not facts["built_with"] and facts["version"] == base.joinpath("latest").resolve().name


def test_list_fails_with_one_line_on_a_bad_file_or_base(shared_fake_base, tmp_path, capsys):
    base, _ = shared_fake_base
    bad = _write(tmp_path / "bad.jsonl", {"action": "answer", "question": "a"})
    assert cli.main(["review", "list", str(bad), "--base", str(base)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: review: bad.jsonl line 1: answer needs 'answer'"]
    good = _write(tmp_path / "good.jsonl", {"action": "keep", "question": "a"})
    assert cli.main(["review", "list", str(good), "--base", str(tmp_path / "nothing")]) != 0
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_add_appends_one_checked_line(tmp_path, capsys):
    path = tmp_path / "review.jsonl"
    assert cli.main(["review", "add", str(path), "--action", "merge", "--question", "How can I open an account?",
                     "--into", "How do I open an account?", "--note", "same thing"]) == 0
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n"), encoding="utf-8")  # a last line without newline
    assert cli.main(["review", "add", str(path), "--action", "time_sensitive", "--question", "gold price?",
                     "--value", "false"]) == 0
    capsys.readouterr()
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    assert lines == [{"action": "merge", "question": "How can I open an account?", "into": "How do I open an account?",
                      "note": "same thing"},
                     {"action": "time_sensitive", "question": "gold price?", "value": False}]
    before = path.read_bytes()
    assert cli.main(["review", "add", str(path), "--action", "answer", "--question", "a"]) == 2
    assert capsys.readouterr().err.strip() == "error: review: review.jsonl line 3: answer needs 'answer'"
    assert cli.main(["review", "add", str(path), "--action", "keep", "--question", "a", "--into", "b"]) == 2
    assert "keep takes no 'into'" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_add_to_a_yaml_file_appends_a_list_item(tmp_path, capsys):
    from schemas.review import load_review

    path = tmp_path / "review.yaml"
    path.write_text("- {action: keep, question: hello}\n", encoding="utf-8")
    assert cli.main(["review", "add", str(path), "--action", "exclude", "--question", "bye", "--note", "n"]) == 0
    decisions = load_review(path).decisions
    assert [(d.line, d.action, d.question, d.note) for d in decisions] == [(1, "keep", "hello", ""),
                                                                          (2, "exclude", "bye", "n")]
