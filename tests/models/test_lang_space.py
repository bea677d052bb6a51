"""Every two-language model and judge reads a text with the same side: Chinese for 'zh' and 'mixed', English for the
rest ('other', and a language a log declares, such as 'fr')."""

import pytest

from models.intent import classifier, prototype
from models.nonanswer import echo, plain
from models.nonanswer.embedding import space as nonanswer_space
from models.paraphrase.pair_classifier import space as paraphrase_space
from models.timesensitive.embedding import space as timesensitive_space
from models.timesensitive.hf import HfTimeSensitivity
from schemas.text import lang_space, reads_as_chinese

LANGS = {"zh": "zh", "mixed": "zh", "en": "en", "other": "en", "fr": "en", "ja": "en"}
SIDES = {"intent classifier": classifier._space, "intent prototypes": prototype.PrototypeIntentScorer.space,
         "non-answer heads": nonanswer_space, "time-sensitivity heads": timesensitive_space,
         "time-sensitivity hf": HfTimeSensitivity.space, "paraphrase judge": paraphrase_space,
         "non-answer plain": plain._key, "non-answer echo": echo._key}


def test_the_shared_rule():
    assert {lang: lang_space(lang) for lang in LANGS} == LANGS
    assert [lang for lang in LANGS if reads_as_chinese(lang)] == ["zh", "mixed"]


@pytest.mark.parametrize("judge", SIDES)
def test_each_judge_reads_a_language_with_the_side_the_others_do(judge):
    assert {lang: SIDES[judge](lang) for lang in LANGS} == LANGS
