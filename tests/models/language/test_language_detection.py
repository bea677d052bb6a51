"""Language detection (models.language): the script first, then py3langid or a local HF classifier."""

import json

import pytest

from models.language.base import decide
from models.language.detector import DEFAULT, detector_identity, load_detector, shared_detector
from models.language.base import ScriptFirstDetector
from schemas.errors import ModelLoadError

MIXED = [  # (expected, question)
    ("fr", "Comment réinitialiser mon mot de passe ?"),
    ("fr", "Quelle est la capitale de la France ?"),
    ("es", "¿Dónde está la estación de tren?"),
    ("es", "¿Cuánto cuesta el billete?"),
    ("ru", "Как сбросить пароль?"),
    ("ru", "Сколько стоит билет?"),
    ("ko", "비밀번호를 어떻게 재설정하나요?"),
    ("ja", "日本の首都はどこですか？"),
    ("en", "How do I reset my password?"),
    ("en", "reset pin"),  # short and ambiguous: English
    ("en", "best pizza place"),
    ("zh", "长城有多长"),
    ("zh", "長城有多長"),
    ("zh", "Python怎么安装"),
    ("mixed", "How do I say 你好 in a long English sentence here"),
    ("other", "12345 ???"),
]


@pytest.fixture(scope="module")
def detector():
    return load_detector(DEFAULT)


def test_default_detector_names_each_language(detector):
    got = detector.detect([q for _, q in MIXED])
    assert [lang for lang, _ in got] == [lang for lang, _ in MIXED]
    assert all(0.0 <= score <= 1.0 for _, score in got)
    assert detector.model_id == detector_identity(DEFAULT) and detector.model_id.startswith("script+py3langid-")


def test_detection_is_per_text_and_deterministic(detector):
    texts = [q for _, q in MIXED]
    together = detector.detect(texts)
    assert together == [detector.detect([t])[0] for t in texts] == detector.detect(list(reversed(texts)))[::-1]
    assert [detector.detect_one(t) for t in texts] == together
    assert shared_detector(DEFAULT) is shared_detector(DEFAULT)


def test_gibberish_stays_english_for_the_scorers_to_drop(detector):
    assert [lang for lang, _ in detector.detect(["kryf cpgc", "mtt xdus", "asdkjh qwe zxcv"])] == ["en"] * 3


def test_decide_defaults_short_latin_text_to_english():
    # Latin text: another language needs p >= 0.3 (0.5 without accents) and 10x English's probability
    assert decide({"fr": 0.9, "en": 0.01}, latin=True) == ("fr", 0.9)
    assert decide({"fr": 0.4, "en": 0.01}, latin=True, ascii_only=True)[0] == "en"
    assert decide({"fr": 0.4, "en": 0.01}, latin=True, ascii_only=False)[0] == "fr"
    assert decide({"da": 0.2, "en": 0.1}, latin=True) == ("en", 0.1)
    assert decide({"ca": 0.6, "en": 0.1}, latin=True)[0] == "en"
    assert decide({}, latin=True) == ("en", 0.0)
    # another alphabet is never English; ties go to the smaller code
    assert decide({"en": 0.6, "ru": 0.3, "uk": 0.1}, latin=False) == ("ru", 0.3)
    assert decide({"uk": 0.5, "ru": 0.5}, latin=False) == ("ru", 0.5)
    assert decide({"en": 1.0}, latin=False) == ("other", 0.0)


def test_unknown_detector_spec_fails():
    with pytest.raises(ModelLoadError, match="unknown detector"):
        load_detector("fasttext")
    with pytest.raises(ModelLoadError, match="not a Hugging Face model directory"):
        load_detector("hf:/no/such/dir")


def _tiny_language_classifier(path, tiny_bert, labels, favourite):
    """A tiny random BERT classifier whose head always prefers ``labels[favourite]`` (zero weights, one bias)."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    tok = BertTokenizerFast.from_pretrained(str(tiny_bert))
    cfg = BertConfig(vocab_size=tok.vocab_size, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                     intermediate_size=32, max_position_embeddings=64, num_labels=len(labels),
                     id2label=dict(enumerate(labels)), label2id={x: i for i, x in enumerate(labels)})
    torch.manual_seed(0)
    model = BertForSequenceClassification(cfg)
    with torch.no_grad():
        model.classifier.weight.zero_()
        model.classifier.bias.zero_()
        model.classifier.bias[favourite] = 8.0
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return path


def test_hf_classifier_directory(tmp_path, tiny_bert):
    labels = ["en", "fr-FR", "Russian", "zh_TW", "zh-CN"]
    path = _tiny_language_classifier(tmp_path / "lang-fr", tiny_bert, labels, favourite=1)
    det = load_detector(f"hf:{path}")
    assert isinstance(det, ScriptFirstDetector)
    assert det.model.codes == ["en", "fr", "ru", "zh", "zh"]
    assert det.model_id == detector_identity(f"hf:{path}") and det.model_id.startswith("script+lang-hf:lang-fr@")
    probs = det.model.probabilities(["how do i reset my password ?"])[0]
    assert set(probs) == {"en", "fr", "ru", "zh"} and abs(sum(probs.values()) - 1.0) < 1e-9
    got = det.detect(["how do i reset my password ?", "Как сбросить пароль?", "长城有多长", "日本の首都はどこですか"])
    # the model's answer for Latin and Cyrillic text; the script's for Han and kana, whatever the model says
    assert [lang for lang, _ in got] == ["fr", "fr", "zh", "ja"]
    assert got[0][1] > 0.99
    assert det.detect(["how do i reset my password ?"]) == det.detect(["how do i reset my password ?"])

    english = load_detector(f"hf:{_tiny_language_classifier(tmp_path / 'lang-en', tiny_bert, labels, favourite=0)}")
    got = english.detect(["how do i reset my password ?", "Как сбросить пароль?"])
    # Cyrillic text never becomes English: the best other language (zh_TW and zh-CN add up)
    assert [lang for lang, _ in got] == ["en", "zh"]


@pytest.mark.shared_data
def test_english_requests_stay_english(shared_data, detector):
    """CLINC150 (train + val + out-of-scope, 18,200 lowercased English utterances, many of 2-4 words)."""
    data = json.loads((shared_data / "clinc150" / "clinc150_train_val.json").read_text(encoding="utf-8"))
    texts = [u for split in ("train", "val", "oos_train", "oos_val") for u, _ in data[split]]
    got = detector.detect(texts)
    share = sum(lang == "en" for lang, _ in got) / len(texts)
    assert share >= 0.999, share  # measured 0.99978 (4 of 18,200: "merci beaucoup", "bye bye!", ...)
