"""Issue 32, reading hostile input: one record never aborts the build, no input hangs it, no value changes
silently. Each test fails on the code before the fix (what it did then is said at each)."""

import bz2
import csv
import json
import lzma
import os
import subprocess
import sys
import threading

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipelines.logfiles.formats import MAX_NESTING, nesting_over
from pipelines.stages.read import expand_inputs, file_format, parse_file
from schemas.config import InputConfig, LimitsConfig
from schemas.errors import InputError
from schemas.records import RawRow, Reject

CFG, LIM = InputConfig(), LimitsConfig()
DEEP = 490  # what the probe sent: deep enough that pickling the row overflowed the stack in Beam


def _record(i: int) -> dict:
    return {"question": f"How do I reset the password of account {i}?", "answer": f"Use the reset link {i}."}


def _line(i: int) -> str:
    return json.dumps(_record(i)) + "\n"


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def _parsed(path, fmt=None) -> tuple[list[RawRow], list[Reject]]:
    items = list(parse_file(str(path), fmt or file_format(str(path)), CFG, LIM))
    return [i for i in items if isinstance(i, RawRow)], [i for i in items if isinstance(i, Reject)]


def _reasons(rejects) -> list[tuple[str, int]]:
    return [(r.reason, r.position) for r in rejects]


# --- 1. one deep record aborted the whole build ----------------------------------------------------------------

@pytest.mark.parametrize("levels,reason", [(DEEP, "too_deep"), (MAX_NESTING + 1, "too_deep"), (5000, "too_deep")])
def test_a_deeply_nested_jsonl_record_is_one_too_deep_reject(tmp_path, levels, reason):
    # before: 490 levels became a row whose answer Beam could not pickle (RecursionError aborted the build);
    # 5000 levels was a malformed_json reject 'nested too deeply'
    path = tmp_path / "deep.jsonl"
    path.write_text(_line(1) + '{"question": "Deep?", "answer": ' + _deep(levels) + "}\n" + _line(3))
    rows, rejects = _parsed(path)
    assert [r.position for r in rows] == [1, 3]
    assert _reasons(rejects) == [(reason, 2)]


def test_a_record_just_inside_the_nesting_limit_is_a_row(tmp_path):
    path = tmp_path / "ok.jsonl"
    path.write_text('{"question": "Nested?", "answer": "yes", "meta": ' + _deep(MAX_NESTING - 1) + "}\n")
    rows, rejects = _parsed(path)
    assert len(rows) == 1 and rejects == []


def test_deep_elements_of_a_json_array_are_rejects_and_the_rest_of_the_array_is_read(tmp_path):
    # before: 5000 levels ended the array (the rest unread); 490 levels were a row Beam could not pickle
    path = tmp_path / "deep.json"
    path.write_text("[" + json.dumps(_record(1)) + ',\n{"question": "Deep?", "answer": ' + _deep(5000) + "},\n"
                    + '{"question": "Deep too?", "answer": ' + _deep(DEEP) + ', "s": "]]}"},\n'
                    + json.dumps(_record(4)) + "]\n")
    rows, rejects = _parsed(path)
    assert [r.position for r in rows] == [1, 4]
    assert _reasons(rejects) == [("too_deep", 2), ("too_deep", 3)]


def test_a_deep_chat_record_is_one_reject(tmp_path):
    path = tmp_path / "chat.jsonl"
    chat = {"messages": [{"role": "user", "content": "Hi?"}, {"role": "assistant", "content": "x"}]}
    deep = json.dumps(chat).replace('"x"', _deep(DEEP))
    path.write_text(deep + "\n" + json.dumps(chat) + "\n")
    rows, rejects = _parsed(path)
    assert [r.position for r in rows] == [2] and _reasons(rejects) == [("too_deep", 1)]


def test_a_deep_parquet_column_is_one_reject_per_row(tmp_path):
    typ = pa.string()
    for _ in range(MAX_NESTING + 5):
        typ = pa.list_(typ)
    value = "x"
    for _ in range(MAX_NESTING + 5):
        value = [value]
    table = pa.table({"question": ["Deep?", "Flat?"], "answer": ["a", "b"], "meta": pa.array([value, None], typ)})
    pq.write_table(table, tmp_path / "deep.parquet")
    rows, rejects = _parsed(tmp_path / "deep.parquet")
    assert [r.position for r in rows] == [2] and _reasons(rejects) == [("too_deep", 1)]


def test_the_depth_check_needs_no_recursion():
    value: list = []
    for _ in range(100_000):
        value = [value]
    assert nesting_over(value) and not nesting_over([[{"a": [1]}]])


def test_a_deep_record_does_not_abort_a_beam_read(tmp_path):
    """The probe's failure itself: the rows of a file with a 490-level record cross Beam and its pickler."""
    from apache_beam.testing.test_pipeline import TestPipeline
    from apache_beam.testing.util import assert_that, equal_to
    import apache_beam as beam

    from pipelines.stages.read import ReadLogs

    (tmp_path / "deep.jsonl").write_text(_line(1) + '{"question": "Deep?", "answer": ' + _deep(DEEP) + "}\n")
    with TestPipeline() as p:
        out = p | ReadLogs(expand_inputs([str(tmp_path)]), CFG, LIM)
        assert_that(out.rows | beam.Map(lambda r: r.position), equal_to([1]), label="Rows")
        assert_that(out.rejected | "Reasons" >> beam.Map(lambda r: r.reason), equal_to(["too_deep"]),
                    label="Rejects")


# --- 5. duplicate keys: the last value won, silently -----------------------------------------------------------

def test_a_duplicate_json_key_is_a_duplicate_key_reject(tmp_path):
    # before: {"question": "a", "question": "b"} became a row asking "b"
    path = tmp_path / "dup.jsonl"
    path.write_text(_line(1) + '{"question": "a?", "answer": "x", "question": "b?"}\n'
                    + '{"question": "c?", "answer": "y", "meta": {"k": 1, "k": 2}}\n' + _line(4))
    rows, rejects = _parsed(path)
    assert [r.position for r in rows] == [1, 4]
    assert _reasons(rejects) == [("duplicate_key", 2), ("duplicate_key", 3)]
    assert "'question' appears twice" in rejects[0].detail


def test_a_duplicate_key_in_a_json_array_element_is_its_reject_and_the_rest_is_read(tmp_path):
    path = tmp_path / "dup.json"
    path.write_text(json.dumps([_record(1), {"question": "a?", "answer": "x"}, _record(3)]).replace(
        '"answer": "x"', '"answer": "x", "answer": "y"'))
    rows, rejects = _parsed(path)
    assert [r.position for r in rows] == [1, 3] and _reasons(rejects) == [("duplicate_key", 2)]


def test_a_chat_message_with_a_duplicate_role_is_a_reject(tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text('{"messages": [{"role": "user", "content": "Hi?", "role": "assistant"}, '
                    '{"role": "assistant", "content": "Hello"}]}\n')
    rows, rejects = _parsed(path)
    assert rows == [] and _reasons(rejects) == [("duplicate_key", 1)]


def test_a_csv_header_naming_a_column_twice_rejects_every_row(tmp_path):
    # before: each row's second 'question' value silently replaced the first
    path = tmp_path / "dup.csv"
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["question", "answer", "question"])
        writer.writerow(["How do I log in?", "Click login.", "Something else?"])
        writer.writerow(["How do I log out?", "Click logout.", "Other?"])
    rows, rejects = _parsed(path)
    assert rows == []
    assert _reasons(rejects) == [("csv_duplicate_header", 0), ("csv_duplicate_header", 1),
                                 ("csv_duplicate_header", 2)]
    assert "column 'question' twice" in rejects[0].detail and rejects[1].detail.startswith("no row is read")


def test_a_parquet_file_with_two_columns_of_one_name_is_one_reject(tmp_path):
    table = pa.table([pa.array(["a?"]), pa.array(["x"]), pa.array(["b?"])], names=["question", "answer", "question"])
    pq.write_table(table, tmp_path / "dup.parquet")
    rows, rejects = _parsed(tmp_path / "dup.parquet")
    assert rows == [] and _reasons(rejects) == [("duplicate_key", 0)]
    assert "two columns named 'question'" in rejects[0].detail


# --- 2. inputs that never end hung the build -------------------------------------------------------------------

def _expand_within(patterns, seconds: float = 10):
    """expand_inputs in a thread that must finish within ``seconds`` (before the fix: a FIFO blocked on open)."""
    box: dict = {}

    def run():
        try:
            box["files"] = expand_inputs(patterns)
        except InputError as exc:
            box["error"] = str(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"expand_inputs({patterns}) still running after {seconds}s"
    return box


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_device_named_as_input_is_one_error(device):
    # before: listed with size 0, then hashed forever at 100% CPU
    box = _expand_within([device])
    assert box.get("error") == f"input: {device} is a character device, not a regular file: only log files are read"


def test_a_fifo_named_as_input_is_one_error(tmp_path):
    fifo = tmp_path / "logs.jsonl"
    os.mkfifo(fifo)
    box = _expand_within([str(fifo)])
    assert box.get("error") == f"input: {fifo} is a FIFO (named pipe), not a regular file: only log files are read"


def test_a_link_to_a_device_is_refused_like_the_device(tmp_path):
    (tmp_path / "zero.jsonl").symlink_to("/dev/zero")
    assert "is a character device" in _expand_within([str(tmp_path / "zero.jsonl")])["error"]


def test_a_fifo_in_a_folder_or_a_glob_is_skipped_with_a_warning(tmp_path, caplog):
    os.mkfifo(tmp_path / "pipe.jsonl")
    (tmp_path / "ok.jsonl").write_text(_line(1))
    for pattern in (str(tmp_path), str(tmp_path / "*.jsonl")):
        caplog.clear()
        box = _expand_within([pattern])
        assert [f["path"] for f in box["files"]] == [str(tmp_path / "ok.jsonl")]
        assert f"{tmp_path / 'pipe.jsonl'} is a FIFO (named pipe), not a regular file: skipped" in caplog.text
    assert "matches no regular file" in _expand_within([str(tmp_path / "pipe*")])["error"]


def test_a_build_given_a_fifo_ends_with_one_error_line(tmp_path):
    """The whole command, in a subprocess with a timeout: it never hangs."""
    os.mkfifo(tmp_path / "logs.jsonl")
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    done = subprocess.run([sys.executable, "-m", "pipelines.cli", "build", "--input", str(tmp_path / "logs.jsonl"),
                           "--output", str(tmp_path / "base")], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors == [f"error: input: {tmp_path / 'logs.jsonl'} is a FIFO (named pipe), not a regular file: only "
                      f"log files are read"]
    assert "Traceback" not in done.stderr


# --- 4. paths: glob characters in a real name, compressed names -----------------------------------------------

def test_an_existing_path_with_glob_characters_is_that_file(tmp_path):
    # before: 'x[1].jsonl' was taken as a glob (matching x1.jsonl) and said "no such file"
    path = tmp_path / "x[1].jsonl"
    path.write_text(_line(1))
    assert [f["path"] for f in expand_inputs([str(path)])] == [str(path)]
    folder = tmp_path / "logs[2024]"
    folder.mkdir()
    (folder / "a.jsonl").write_text(_line(2))
    assert [f["path"] for f in expand_inputs([str(folder)])] == [str(folder / "a.jsonl")]


def test_a_bare_glob_matches_in_the_working_folder(tmp_path, monkeypatch):
    # before: Beam matched '*.jsonl' (no folder in it) to nothing
    (tmp_path / "a.jsonl").write_text(_line(1))
    monkeypatch.chdir(tmp_path)
    assert [f["path"] for f in expand_inputs(["*.jsonl"])] == ["a.jsonl"]


@pytest.mark.parametrize("suffix,compress", [(".bz2", bz2.compress), (".xz", lzma.compress)])
def test_bzip2_and_xz_logs_are_read_by_their_name_and_content(tmp_path, suffix, compress):
    # before: "cannot tell the format of logs.jsonl.bz2", and a folder's .bz2 files were silently left out
    (tmp_path / f"logs.jsonl{suffix}").write_bytes(compress((_line(1) + _line(2)).encode()))
    (tmp_path / f"logs.csv{suffix}").write_bytes(compress(b"question,answer\nHow?,Thus.\n"))
    (tmp_path / f"logs.tsv{suffix}").write_bytes(compress(b"question\tanswer\nWhy?\tBecause.\n"))
    files = expand_inputs([str(tmp_path)])
    assert [(os.path.basename(f["path"]), f["format"]) for f in files] == [
        (f"logs.csv{suffix}", "csv"), (f"logs.jsonl{suffix}", "jsonl"), (f"logs.tsv{suffix}", "csv")]
    read = {os.path.basename(f["path"]): _parsed(f["path"], f["format"]) for f in files}
    assert [len(rows) for rows, rejects in read.values()] == [1, 2, 1]
    assert read[f"logs.tsv{suffix}"][0][0].answer == "Because."


def test_a_format_that_cannot_be_told_names_the_compressions(tmp_path):
    (tmp_path / "logs.bz2").write_bytes(bz2.compress(b"{}"))
    with pytest.raises(InputError, match=r"cannot tell the format .*\.bz2"):
        expand_inputs([str(tmp_path / "logs.bz2")])

