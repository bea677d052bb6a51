"""Validation assigns each question's language and rejects the languages the build does not keep."""

import json

import apache_beam as beam
import pytest
from apache_beam.testing.test_pipeline import TestPipeline
from apache_beam.testing.util import assert_that, equal_to

from pipelines.stages.read import file_format, parse_file
from pipelines.stages.validate import LanguageGate, ValidateRows, validate_row
from schemas.config import InputConfig, LimitsConfig, config_from_dict
from schemas.errors import ConfigError
from schemas.records import AcceptedRow, RawRow, Reject

TestPipeline.__test__ = False
LIM = LimitsConfig()
LINES = [  # (question, detected language)
    ("Comment réinitialiser mon mot de passe ?", "fr"),
    ("¿Dónde está la estación de tren?", "es"),
    ("Как сбросить пароль?", "ru"),
    ("비밀번호를 어떻게 재설정하나요?", "ko"),
    ("日本の首都はどこですか？", "ja"),
    ("How do I reset my password?", "en"),
    ("reset pin", "en"),
    ("长城有多长", "zh"),
    ("長城有多長", "zh"),
    ("How do I say 你好 in a long English sentence here", "mixed"),
    ("12345", "other"),
]


@pytest.fixture
def mixed_rows(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps({"question": q, "answer": "An answer."}, ensure_ascii=False) + "\n"
                            for q, _ in LINES), encoding="utf-8")
    rows = list(parse_file(str(path), file_format(str(path)), InputConfig(), LIM))
    assert all(isinstance(r, RawRow) for r in rows)
    return rows


def test_mixed_file_keeps_en_zh_and_rejects_other_languages(mixed_rows):
    out = [validate_row(r, LIM) for r in mixed_rows]
    for (question, lang), o in zip(LINES, out):
        if lang in ("en", "zh", "mixed", "other"):
            assert isinstance(o, AcceptedRow) and o.lang == lang, (question, o)
        else:
            assert isinstance(o, Reject), (question, o)
            assert (o.stage, o.reason) == ("validate", "unsupported_language")
            assert o.detail.startswith(f"{lang} (detected, p=") and o.detail.endswith("input.languages: en, zh, mixed")
            assert question in o.raw
    # one question in traditional and simplified characters: one key, each surface form as logged
    simp, trad = out[7], out[8]
    assert trad.key == simp.key == "长城有多长" and (simp.question, trad.question) == ("长城有多长", "長城有多長")


def test_keeping_every_language_lets_rows_go_on_as_before(mixed_rows):
    for languages in ((), ("all",)):
        gate = LanguageGate(languages)
        out = [validate_row(r, LIM, gate) for r in mixed_rows]
        assert all(isinstance(o, AcceptedRow) for o in out)
        # languages the scorers do not support go on as 'other' (scored like English, as before)
        assert [o.lang for o in out] == [lang if lang in ("en", "zh", "mixed") else "other" for _, lang in LINES]


def test_listed_languages_are_kept_and_the_rest_rejected(mixed_rows):
    gate = LanguageGate(("en", "fr"))
    out = {q: validate_row(r, LIM, gate) for (q, _), r in zip(LINES, mixed_rows)}
    assert out["Comment réinitialiser mon mot de passe ?"].lang == "other"
    assert out["How do I reset my password?"].lang == "en"
    assert out["12345"].lang == "other"  # no letters: no language to refuse
    for q in ("长城有多长", "Как сбросить пароль?", "How do I say 你好 in a long English sentence here"):
        assert out[q].reason == "unsupported_language" and out[q].detail.endswith("input.languages: en, fr")


def test_validate_rows_in_beam_with_the_input_config(mixed_rows):
    inputs = InputConfig(languages=("en", "zh", "ru"))
    with TestPipeline() as p:
        res = p | beam.Create(mixed_rows) | ValidateRows(LIM, inputs)
        assert_that(res.accepted | "Lang" >> beam.Map(lambda r: r.lang),
                    equal_to(["other", "en", "en", "zh", "zh", "other"]), label="accepted")
        assert_that(res.rejected | "Why" >> beam.Map(lambda r: (r.reason, r.detail.split(" ")[0])),
                    equal_to([("unsupported_language", x) for x in ("fr", "es", "ko", "ja", "mixed")]),
                    label="rejected")


@pytest.mark.parametrize("data, message", [
    ({"input": {"languages": ["en", "english"]}}, "'english' is not an ISO 639-1 code"),
    ({"input": {"languages": ["all", "en"]}}, "all keeps every language"),
    ({"input": {"language_detector": "fasttext"}}, "must be langid or hf:/path"),
    ({"input": {"language_detector": "hf:/no/such/dir"}}, "does not exist"),
])
def test_language_config_is_checked(data, message):
    with pytest.raises(ConfigError, match=message):
        config_from_dict(data)


def test_language_config_values():
    assert config_from_dict(None).input.languages == ("en", "zh", "mixed")
    assert config_from_dict({"input": {"languages": "all"}}).input.languages == ("all",)
    assert config_from_dict({"input": {"languages": []}}).input.languages == ()
    assert config_from_dict({"input": {"language_detector": "hf:/tmp"}}).input.language_detector == "hf:/tmp"
