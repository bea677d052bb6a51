"""Answers that say their question goes stale (models.timesensitive.answers): the words, in both languages, and
the broad time words left out."""

import pytest

from models.timesensitive.answers import answer_tell


@pytest.mark.parametrize("lang, answer, words", [
    ("zh", "金价实时波动，今天约为每克450元", "实时"),
    ("zh", "具体安排以最新公布的通知为准", "最新"),
    ("zh", "今年的考试定在6月7日", "今年"),
    ("zh", "截至去年底，会员共有120人", "截至"),
    ("zh", "票价会随季节调整", "随季节调整"),
    ("zh", "分数线每年都有所不同", "每年都有所不同"),
    ("en", "It has 120 members as of this year.", "as of this year"),
    ("en", "Fares are subject to change.", "subject to change"),
    ("en", "The latest version is 3.12.", "latest"),
    ("en", "As of 2024, the rate was 5%.", "As of 2024"),
    ("mixed", "iPhone的价格实时变动", "实时"),
])
def test_an_answer_that_says_it_goes_stale_is_told(lang, answer, words):
    assert answer_tell(answer, lang) == words


@pytest.mark.parametrize("lang, answer", [
    ("zh", "目前科学上没有确凿的证据证明灵魂的存在"),  # the state of knowledge, not a figure going stale
    ("zh", "北京是中国的首都"),
    ("zh", "现在可以用微信支付"),
    ("en", "Currently there is no cure for the common cold."),
    ("en", "Madrid is the capital of Spain."),
    ("en", "The relay's latency is low."),  # "latest" only as a word
])
def test_broad_time_words_and_fixed_facts_tell_nothing(lang, answer):
    assert answer_tell(answer, lang) == ""
