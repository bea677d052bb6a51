"""Every two-language model and judge reads a text with the same side: Chinese for 'zh' and 'mixed', English for the
rest ('other', and a language a log declares, such as 'fr')."""

import pytest

from schemas.text import lang_space, reads_as_chinese

LANGS = {"zh": "zh", "mixed": "zh", "en": "en", "other": "en", "fr": "en", "ja": "en"}


def test_the_shared_rule():
    assert {lang: lang_space(lang) for lang in LANGS} == LANGS
    assert [lang for lang in LANGS if reads_as_chinese(lang)] == ["zh", "mixed"]


@pytest.mark.parametrize("where", [
    "models.intent.classifier._space", "models.intent.prototype.PrototypeIntentScorer.space",
    "models.nonanswer.embedding.space", "models.timesensitive.embedding.space",
    "models.timesensitive.hf.HfTimeSensitivity.space",
    "models.paraphrase.pair_classifier.space", "models.nonanswer.plain._key", "models.nonanswer.echo._key",
])
def test_each_judge_reads_a_language_with_the_side_the_others_do(where):
    import importlib

    module, _, name = where.rpartition(".")
    try:
        obj = importlib.import_module(module)
    except ModuleNotFoundError:  # a class attribute: the module is one part up
        module, _, cls = module.rpartition(".")
        obj = getattr(importlib.import_module(module), cls)
    side = getattr(obj, name)
    assert {lang: side(lang) for lang in LANGS} == LANGS
