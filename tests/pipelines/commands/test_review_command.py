"""``qabase review``: list a file's decisions against a base; append a checked decision."""

import json
from pathlib import Path

import pytest

from pipelines import cli
from pipelines.commands.review import list_decisions

ROOT = Path(__file__).resolve().parents[3]


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


# --- what `review add` writes always reads back; whatever fails, one error line, exit 2, the file as it was -------

# the characters str.splitlines breaks a line at, those YAML refuses or folds, and a few ordinary ones
AWKWARD = sorted(set("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\x00\x1f\x7f\x80\x9f\ufeff\ufffe\uffff\t\"\\'#-:{}[]")
                 | {"\U0001f600", "é", "长"})


@pytest.mark.parametrize("name", ["review.jsonl", "review.yaml"])
def test_add_writes_a_line_that_reads_back_whatever_characters_it_holds(tmp_path, capsys, name):
    from schemas.review import load_review

    path = tmp_path / name
    for ch in AWKWARD:
        assert cli.main(["review", "add", str(path), "--action", "answer", "--question", f"q{ch}q",
                         "--answer", f"a{ch}a", "--note", f"n{ch}n"]) == 0, repr(ch)
    capsys.readouterr()
    decisions = load_review(path).decisions
    assert [(d.question, d.answer, d.note) for d in decisions] == [(f"q{c}q", f"a{c}a", f"n{c}n") for c in AWKWARD]
    assert [d.line for d in decisions] == list(range(1, len(AWKWARD) + 1))
    assert len(path.read_bytes().split(b"\n")) == len(AWKWARD) + 1


NOT_UTF8 = "\udcff"  # what Python makes of a byte 0xff in a command-line argument


@pytest.mark.parametrize("option", ["--question", "--answer", "--note"])
def test_add_refuses_an_argument_that_is_not_utf8_and_writes_nothing(tmp_path, capsys, option):
    path = tmp_path / "review.jsonl"
    args = {"--question": "q", "--answer": "a", "--note": "n", option: f"x{NOT_UTF8}"}
    argv = ["review", "add", str(path), "--action", "answer"] + [x for kv in args.items() for x in kv]
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"error: review: review.jsonl line 1: '{option[2:]}' holds a lone surrogate (\\udcff at character 1), which "
        f"no UTF-8 text holds (a JSON \\ud800 escape, or text that was not UTF-8)"] and not captured.out
    assert not path.exists()
    path.write_bytes(b'{"action": "keep", "question": "k"}')
    assert cli.main(argv) == 2 and "line 2: " in capsys.readouterr().err
    assert path.read_bytes() == b'{"action": "keep", "question": "k"}'


def test_add_from_a_shell_with_a_byte_that_is_not_utf8_is_one_error_line(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "review.jsonl"
    run = subprocess.run([sys.executable, "-m", "pipelines.commands.review", "add", str(path), "--action", "exclude",
                          "--question", "hello", "--note", b"\xff"], capture_output=True, cwd=ROOT)
    assert run.returncode == 2 and not run.stdout
    assert run.stderr.decode("utf-8", "backslashreplace").splitlines() == [
        "error: review: review.jsonl line 1: 'note' holds a lone surrogate (\\udcff at character 0), which no UTF-8 "
        "text holds (a JSON \\ud800 escape, or text that was not UTF-8)"]
    assert not path.exists()


@pytest.mark.parametrize("name, before, option, value, message", [
    ("r.jsonl", b"", "--answer", "x" * 20_001, "r.jsonl line 1: answer is 20,001 characters; at most 20,000"),
    ("r.jsonl", b"", "--note", "x" * 2_001, "r.jsonl line 1: note is 2,001 characters; at most 2,000"),
    ("r.jsonl", b'{"action": "keep", "question": "k", "question": "j"}\n', "--note", "n",
     "r.jsonl line 1: key 'question' appears twice in one object (which value is meant cannot be told)"),
    ("r.yaml", b"[]\n", "--note", "n", "r.yaml line 2: not valid YAML"),
])
def test_add_writes_nothing_when_the_decision_or_the_file_with_it_is_refused(tmp_path, capsys, name, before, option,
                                                                              value, message):
    path = tmp_path / name
    if before:
        path.write_bytes(before)
    argv = ["review", "add", str(path), "--action", "answer", "--question", "q", "--answer", "a", option, value]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: review: {message}")
    assert path.read_bytes() == before if before else not path.exists()


def test_add_writes_nothing_that_would_not_read_back_as_the_decision(tmp_path, capsys, monkeypatch):
    from pipelines.commands import review

    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"action": "keep", "question": "k"}\n')
    # a writer that got a character wrong: the line parses, as another decision
    monkeypatch.setattr(review, "review_line", lambda d: json.dumps(d.record()).replace("why", "who"))
    assert cli.main(["review", "add", str(path), "--action", "exclude", "--question", "q", "--note", "why"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "error: review: r.jsonl line 2: the decision would not read back as written after the file's last line "
        "(nothing was written)"]
    assert path.read_bytes() == b'{"action": "keep", "question": "k"}\n'


def test_add_to_a_folder_that_does_not_exist_is_one_error_line(tmp_path, capsys):
    path = tmp_path / "missing" / "review.jsonl"
    assert cli.main(["review", "add", str(path), "--action", "exclude", "--question", "q"]) == 2
    assert capsys.readouterr().err.splitlines() == [f"error: review: {path}: cannot write it (No such file or "
                                                    f"directory)"]


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("name, text, message", [
    ("r.jsonl", '{"action": "exclude", "question": "a", "note": %s}' % _deep(100_000),
     "line 2: nested more than 32 levels deep"),
    ("r.jsonl", '{"action": "exclude", "question": "a", "by": %s}' % _deep(100_000),
     "line 2: nested more than 32 levels deep"),
    ("r.yaml", "- {action: exclude, question: a, by: %s}" % _deep(100_000), "line 2: nested more than 32 levels deep"),
    ("r.jsonl", '{"action": "exclude", "question": "a", "n": %s}' % ("9" * 100_001),
     "line 2: not valid JSON (Exceeds the limit (4300 digits)"),
    ("r.yaml", "- {action: exclude, question: a, n: %s}" % ("9" * 100_001),
     "line 2: not valid YAML (Exceeds the limit (4300 digits)"),
    ("r.jsonl", '{"action": "exclude", "question": "a", "question": "b"}', "line 2: key 'question' appears twice"),
    ("r.yaml", "- {action: exclude, question: a, question: b}", "line 2: key 'question' appears twice"),
    ("r.jsonl", '{"action": "answer", "question": "a", "answer": "\\ud800"}',
     "line 2: 'answer' holds a lone surrogate"),
    ("r.jsonl", '{"action": "answer", "question": "a", "answer": "%s"}' % ("x" * 20_001),
     "line 2: answer is 20,001 characters; at most 20,000"),
])
def test_list_refuses_a_file_the_build_would_with_one_error_line(tmp_path, capsys, name, text, message):
    good = '{"action": "keep", "question": "k"}'
    path = tmp_path / name
    path.write_text(f"{'- ' if name.endswith('.yaml') else ''}{good}\n{text}\n", encoding="utf-8")
    assert cli.main(["review", "list", str(path), "--base", str(tmp_path / "base")]) == 2
    captured = capsys.readouterr()
    err = captured.err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: review: {name} {message}") and not captured.out


def test_list_reports_a_question_merged_into_two_questions_as_conflicting(shared_fake_base, tmp_path, capsys):
    base, _ = shared_fake_base
    review = _write(tmp_path / "r.jsonl",
                    {"action": "merge", "question": "hello", "into": "What is the capital of France?"},
                    {"action": "merge", "question": "hello", "into": "How do I reset my password?"})
    assert cli.main(["review", "list", str(review), "--base", str(base), "--json"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(r["status"], r["detail"]) for r in rows] == [
        ("conflicting", "overridden by line 2 (a merge into another question)"), ("pending", "")]
