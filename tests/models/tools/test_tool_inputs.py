"""The model tools' inputs (qabase score / calibrate / judge): only a regular UTF-8 file is read; anything else is
one readable error naming it (before: a FIFO named x.jsonl hung the tool, a Latin-1 file printed a traceback)."""

import os

import pytest

from schemas.errors import QabaseError
from schemas.jsonl import iter_jsonl, read_text_input


@pytest.mark.parametrize("reader", ["score", "calibrate", "judge_all"])
def test_a_fifo_or_a_device_is_refused_not_read(tmp_path, reader):
    import importlib

    read = {"score": "read_texts", "calibrate": "read_rows", "judge_all": "read_pairs"}[reader]
    fn = getattr(importlib.import_module(f"models.tools.{reader}"), read)
    fifo = tmp_path / "questions.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(QabaseError, match="is a FIFO .named pipe., not a regular file"):
        fn(fifo)  # before: open() on a FIFO with no writer blocks forever
    with pytest.raises(QabaseError, match="/dev/zero is a character device, not a regular file"):
        fn(__import__("pathlib").Path("/dev/zero"))
    with pytest.raises(QabaseError, match="no such file"):
        fn(tmp_path / "missing.txt")


def test_text_that_is_not_utf8_names_the_byte_and_line(tmp_path):
    path = tmp_path / "q.txt"
    path.write_bytes("first\ncaf\xe9\n".encode("latin-1"))
    with pytest.raises(QabaseError, match=r"is not UTF-8 text \(byte 9, line 2\)"):
        read_text_input(path)
    with pytest.raises(QabaseError, match="not UTF-8"):
        list(iter_jsonl(path))
