"""The personal-data sets (benchmarks/pii_set.py, pii_tricky.txt): the generated set is what its generator writes,
every label points at its value, and the evaluation reads both."""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import pii_eval  # noqa: E402
import pii_set  # noqa: E402


def test_the_generated_set_is_deterministic_and_large_enough(tmp_path):
    assert pii_set.main(["--out", str(tmp_path / "set.jsonl")]) == 0
    assert (tmp_path / "set.jsonl").read_bytes() == (ROOT / "benchmarks" / "pii_labelled.jsonl").read_bytes()
    rows = [json.loads(line) for line in (tmp_path / "set.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sum(len(r["spans"]) for r in rows) >= 1000 and sum(len(r["decoys"]) for r in rows) >= 1000
    assert {r["lang"] for r in rows} == {"en", "zh"}


def test_hand_written_items_parse():
    rows = pii_eval.load(ROOT / "benchmarks" / "pii_tricky.txt")
    assert len(rows) >= 100
    row = pii_eval.parse_marked("电话[[PHONE|13812345678]]和{{year|2023年}}")
    assert row["text"] == "电话13812345678和2023年"
    assert row["spans"] == [[2, 13, "PHONE"]] and row["decoys"] == [[14, 19, "year"]]


def test_the_evaluation_counts_exact_spans():
    from schemas.privacy.redactor import Redactor

    rows = [pii_eval.parse_marked("电话[[PHONE|13812345678]]，订单{{order|2023112512345678}}"),
            pii_eval.parse_marked("mail [[EMAIL|a@b.com]] and [[PHONE|07911 123456]]")]
    res = pii_eval.evaluate(rows, Redactor.of())
    assert res["hit"]["PHONE"] == 1 and res["gold"]["PHONE"] == 2 and res["hit"]["EMAIL"] == 1
    assert res["spared"]["order"] == 1


def test_the_obfuscated_set_is_deterministic_large_enough_and_labelled_right(tmp_path):
    import pii_obfuscated_set

    from schemas.privacy.checks import cn_id18_valid, luhn_valid

    assert pii_obfuscated_set.main(["--out", str(tmp_path / "set.jsonl")]) == 0
    assert (tmp_path / "set.jsonl").read_bytes() == (ROOT / "benchmarks" / "pii_obfuscated.jsonl").read_bytes()
    rows = [json.loads(line) for line in (tmp_path / "set.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sum(len(r["spans"]) for r in rows) >= 300 and sum(len(r["decoys"]) for r in rows) >= 300
    assert {r["lang"] for r in rows} == {"en", "zh"}
    assert len({r["form"] for r in rows if r["spans"]}) == len(pii_obfuscated_set.FORMS)
    for r in rows:
        for s, e, kind in r["spans"]:
            value = r["text"][s:e]
            assert value == value.strip() and not pii_obfuscated_set.INVISIBLE.count(value[0])
            digits = "".join(c for c in value if c.isdigit() or c in "Xx")
            if kind == "ID_NUMBER":
                assert cn_id18_valid(digits), value
            if kind == "CARD":
                assert luhn_valid(digits), value


def test_escapes_in_hand_written_items():
    row = pii_eval.parse_marked("手机[[PHONE|138\\u200b1234\\u200b5678]]")
    assert row["text"] == "手机138\u200b1234\u200b5678" and row["spans"] == [[2, 15, "PHONE"]]
    assert len(pii_eval.load(ROOT / "benchmarks" / "pii_obfuscated_tricky.txt")) >= 60


def test_the_obfuscated_evaluation_measures_a_given_checkout(capsys):
    import pii_obfuscated_eval

    assert pii_obfuscated_eval.main([str(ROOT / "benchmarks" / "pii_obfuscated_tricky.txt"), "--code", str(ROOT)]) == 0
    out = capsys.readouterr().out
    assert f"schemas from {ROOT / 'schemas'}" in out and "| PHONE |" in out


def test_the_triggers_only_save_time():
    # every recogniser's trigger is a necessary condition: without them (every text searched by every pattern) the
    # generated sets and the hand-written items give the same findings
    import copy

    from schemas.privacy.redactor import Redactor

    screened = Redactor.of()
    unscreened = []
    for r in screened.recognizers:
        r = copy.copy(r)
        r.trigger = None
        unscreened.append(r)
    unscreened = Redactor(tuple(unscreened))
    assert unscreened._screen is None
    bench = ROOT / "benchmarks"
    rows = [*pii_eval.load(bench / "pii_labelled.jsonl"), *pii_eval.load(bench / "pii_obfuscated.jsonl"),
            *pii_eval.load(bench / "pii_tricky.txt"), *pii_eval.load(bench / "pii_obfuscated_tricky.txt")]
    for r in rows:
        assert screened.findings(r["text"]) == unscreened.findings(r["text"]), r["text"]
