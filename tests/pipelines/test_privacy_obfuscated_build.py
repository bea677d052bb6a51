"""Personal data written to slip past redaction, through a whole build (fake models, the gate on): values split by
zero-width characters, grouped by dots, spelled-out e-mails and landlines whose local number starts with 0 or 1
are found in every question and answer, and none of them, as written or as its bare digits, is anywhere the
build wrote."""

import json

import pytest
from conftest import everything_written
from fakes.models import FakeModels

from models.config_check import load_config
from pipelines.build import run_build

ZW = "\u200b"
# (as written in the log, what it must never be found as once written: the value without its disguise)
VALUES = [
    (f"138{ZW}1234{ZW}5678", "13812345678"),  # a mobile split by zero-width spaces
    (f"110105{ZW}19491231{ZW}002X", "11010519491231002X"),  # a resident ID number with a valid check digit
    (f"4111{ZW}1111{ZW}1111{ZW}1111", "4111111111111111"),  # a card number
    (f"li.na{ZW}@example.com", "li.na@example.com"),  # an e-mail with a zero-width space inside
    ("137.7777.8888", "13777778888"),  # dots as separators
    ("wang.wei [at] example [dot] com", "wang.wei"),  # a spelled-out e-mail
    ("0755-01234567", "075501234567"),  # landlines whose local number starts with 0 or 1
    ("010-12345678", "01012345678"),
]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("obfuscated-logs")
    rows = [{"question": f"我的联系方式是{v}，为什么收不到通知？", "answer": f"已记录{v}，请稍后重试。"} for v, _ in VALUES]
    rows += [{"question": f"Why can't I log in with {v}?", "answer": f"We will reach you at {v} soon."}
             for v, _ in VALUES]
    rows += [{"question": "What is the capital of France?", "answer": "Paris."}] * 3
    (folder / "logs.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                       encoding="utf-8")
    base = tmp_path_factory.mktemp("obfuscated-base") / "base"
    res = run_build([str(folder / "logs.jsonl")], base, load_config(None, {}), factory=FakeModels())
    return base, res


@pytest.mark.slow  # a whole build with the gate (fake models)
def test_no_disguised_value_is_written_anywhere(built):
    base, res = built
    written = everything_written(base)
    stripped = written.replace(ZW, "")
    assert [v for v, _ in VALUES if v in written] == []
    assert [bare for _, bare in VALUES if bare in stripped] == []
    redactions = res.manifest["counts"]["redactions"]
    assert redactions["PHONE"] >= 2 * 4 and redactions["EMAIL"] >= 2 * 2
    assert any(r["suite"] == "personal_data" and r["success"] for r in res.manifest["quality"]["results"])
