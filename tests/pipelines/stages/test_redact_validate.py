"""Redaction at validation: questions, answers and every reject's preview (issue 32)."""

from schemas.config import LimitsConfig, PrivacyConfig
from schemas.privacy.redactor import Redactor
from schemas.records import AcceptedRow, RawRow, Reject
from pipelines.stages.validate import LanguageGate, redact_reject, redaction_kinds, validate_row

GATE = LanguageGate(("all",))


def _row(question, answer, position=1):
    return RawRow(question=question, answer=answer, source="logs.jsonl", position=position)


def test_accepted_rows_are_redacted_before_they_are_keyed():
    a = validate_row(_row("我的手机号是13812345678，为什么收不到验证码？", "回拨021-62345678"), LimitsConfig(), GATE)
    b = validate_row(_row("我的手机号是13912345678，为什么收不到验证码？", "回拨010-87654321"), LimitsConfig(), GATE)
    assert isinstance(a, AcceptedRow) and a.key == b.key == "我的手机号是<phone>,为什么收不到验证码"
    assert a.question == "我的手机号是<PHONE>，为什么收不到验证码？" and a.answer == "回拨<PHONE>"
    assert redaction_kinds(a, ("PHONE",)) == ["PHONE", "PHONE"] and redaction_kinds(a, ("EMAIL",)) == []


def test_off_keeps_text_as_logged():
    row = validate_row(_row("mail a@b.com?", "ok"), LimitsConfig(), GATE, PrivacyConfig(redact=False).redactor())
    assert row.question == "mail a@b.com?"


def test_a_rejected_row_s_preview_is_redacted():
    out = validate_row(_row("my card 4111 1111 1111 1111 was declined?", ""), LimitsConfig(), GATE)
    assert isinstance(out, Reject) and out.reason == "empty_answer" and "<CARD>" in out.raw and "4111" not in out.raw


def test_a_read_reject_is_redacted_as_one_string():
    bad = Reject("read", "malformed_json", "logs.jsonl", 3, '{"question": "电话13812345678 邮箱jo@x.com', "")
    assert redact_reject(bad, Redactor.of()).raw == '{"question": "电话<PHONE> 邮箱<EMAIL>'
    cut = bad._replace(raw='{"question": "电话1381234…')
    assert redact_reject(cut, Redactor.of()).raw == '{"question": "电话<CUT>…'
    assert redact_reject(bad, Redactor(())) == bad


def test_the_worker_memo_gives_every_row_what_validating_it_alone_gives():
    from pipelines.stages.validate import TextMemo

    rows = [_row("我的手机号是13812345678，为什么收不到验证码？", "回拨021-62345678", 1),
            _row("my card 4111 1111 1111 1111 was declined?", "", 2),
            _row("What is the capital of France?", "Paris, call +1 415 555 2671.", 3),
            _row(None, "orphan answer", 4), _row("x" * 50, "y" * 30, 5), _row("   ", "blank question", 6)]
    limits = LimitsConfig(max_question_chars=40)
    memo = TextMemo(max_chars=120)  # small: the memo empties itself while the rows go through twice
    alone = [validate_row(r, limits, GATE) for r in rows]
    assert [validate_row(r, limits, GATE, memo=memo) for r in rows + rows] == alone + alone
    assert 0 < memo._chars <= 120
