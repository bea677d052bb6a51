"""models.timesensitive.cues: the sure cue families, each with the hard negatives it must leave alone, through the
``rules`` detector (no model: fast). Items written for these tests (not the tune set's)."""

import pytest

from models.timesensitive.cues import REASONS, sure_cue
from models.timesensitive.rules import RuleTimeSensitivity
from schemas.judgement import verdicts

# family: (time-sensitive questions it must flag, stable questions it must leave to the head)
FAMILIES = {
    "weather": (
        [("zh", "苏州明天天气"), ("zh", "青岛周末会下雨吗"), ("zh", "昆明现在多少度"), ("zh", "长沙今天热吗"),
         ("en", "weather in austin tomorrow"), ("en", "is it going to snow in chicago tonight")],
        [("zh", "天气预报怎么查"), ("zh", "雨天开车注意什么"), ("zh", "为什么会下雪"), ("zh", "冰的熔点是多少度"),
         ("en", "why does it rain more in spring"), ("en", "what is the difference between weather and climate")]),
    "price": (
        [("zh", "一桶花生油多少钱"), ("zh", "荔枝一斤多少"), ("zh", "故宫门票票价"),
         ("en", "price of a dozen eggs at costco"), ("en", "how much is a spotify family plan")],
        [("zh", "古代一两黄金多少钱"), ("zh", "八十年代的冰棍多少钱"), ("zh", "人体有多少块肌肉"),
         ("en", "how much did the empire state building cost to build"), ("en", "what is price elasticity")]),
    "rate": (
        [("zh", "泰铢兑人民币汇率"), ("zh", "1000韩元等于多少人民币"), ("zh", "茅台股价今天"),
         ("en", "gbp to usd today"), ("en", "apple stock price")],
        [("zh", "汇率是怎么形成的"), ("zh", "一英镑等于多少便士"),
         ("en", "what is an exchange rate"), ("en", "who invented bitcoin")]),
    "age": (
        [("zh", "孙俪今年多大了"), ("zh", "黄渤多少岁了"), ("zh", "姚明现在多大年纪"),
         ("en", "how old is denzel washington"), ("en", "is clint eastwood still alive")],
        [("zh", "孙俪的出生日期"), ("zh", "乌龟能活多少岁"), ("zh", "你今年几岁"), ("zh", "法定退休年龄是多少"),
         ("en", "when was denzel washington born"), ("en", "how old was lincoln when he died"),
         ("en", "how old is the earth")]),
    "officeholder": (
        [("zh", "现任深圳市长是谁"), ("zh", "巴萨现在的主教练"), ("zh", "法国总统是谁"),
         ("en", "who is the current mayor of london"), ("en", "who owns the new york post")],
        [("zh", "深圳第一任市长是谁"), ("zh", "北京大学首任校长是谁"), ("zh", "林肯是第几任美国总统"),
         ("en", "who was the first mayor of london"), ("en", "who was prime minister in 1960")]),
    "live_status": (
        [("zh", "小杨哥今天直播吗"), ("zh", "长相思还在播吗"), ("zh", "凡人修仙传更新到多少集了"),
         ("en", "is shroud live right now"), ("en", "did the crown end")],
        [("zh", "怎么在快手开直播"), ("zh", "二战是哪一年结束的"),
         ("en", "how to go live on tiktok"), ("en", "when did world war 1 end")]),
    "code": (
        [("zh", "原神最新兑换码"), ("zh", "火影忍者手游礼包码"),
         ("en", "fortnite promo codes"), ("en", "anime defenders codes")],
        [("zh", "兑换码怎么兑换"), ("zh", "兑换码是什么意思"),
         ("en", "what area code is 415"), ("en", "how to redeem a code on steam"), ("en", "gta 5 cheat codes")]),
    "years_since": (
        [("zh", "复旦大学建校多少年了"), ("zh", "京东成立几年了"), ("zh", "深圳特区成立多少周年"),
         ("en", "how many years since the berlin wall fell"), ("en", "how long ago was woodstock")],
        [("zh", "复旦大学哪一年建校"), ("zh", "汉朝存在了多少年"), ("zh", "结婚多少周年叫什么婚"),
         ("en", "when was the berlin wall built"), ("en", "how long ago did dinosaurs die out")]),
    "gossip": (
        [("zh", "迪丽热巴有男朋友吗"), ("zh", "何炅和谢娜还在一起吗"), ("zh", "张杰和谢娜离婚了吗"),
         ("en", "who is dua lipa dating"), ("en", "are jennifer garner and john miller still together")],
        [("zh", "男朋友不回消息怎么办"), ("zh", "梦见前男友复合了"),
         ("en", "how to tell if someone is dating you"), ("en", "my boyfriend is married what should i do")]),
    "this_year": (
        [("zh", "今年国庆放几天"), ("zh", "今年考研分数线多少"), ("zh", "中考成绩什么时候出"),
         ("en", "when is the bar exam this year"), ("en", "when do sat scores come out")],
        [("zh", "中考一般在几月"), ("zh", "去年高考分数线"),
         ("en", "what month is the act usually held"), ("en", "how often is the bar exam given")]),
    "latest": (
        [("zh", "巴以局势最新进展"), ("zh", "和平精英最新版本"), ("en", "latest news on the election")],
        [("zh", "最新版本怎么下载"), ("en", "how to update to the latest version of chrome")]),
    "lottery": (
        [("zh", "双色球开奖结果"), ("zh", "福彩3D今天开奖号码"), ("en", "mega millions winning numbers")],
        [("zh", "大乐透怎么玩"), ("en", "what are the odds of winning the powerball")]),
    "date_now": (
        [("zh", "今天星期几"), ("zh", "现在几点"), ("en", "what's the date today")],
        [("zh", "星期一用英语怎么说"), ("en", "what day was july 4 1776")]),
}


def _flagged(lang: str, question: str) -> str:
    [judged] = RuleTimeSensitivity().judgements([question], [lang])
    return judged.reason if judged.sure else ""


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_family_flags_its_questions_surely(family):
    flags, _ = FAMILIES[family]
    assert family in REASONS
    assert [(q, _flagged(lang, q)) for lang, q in flags] == [(q, family) for _, q in flags]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_each_family_leaves_its_hard_negatives_alone(family):
    _, stable = FAMILIES[family]
    assert [(q, sure_cue(q, lang)) for lang, q in stable] == [(q, "") for _, q in stable]


def test_matched_pairs_fall_on_either_side():
    """The question's wording decides, not its topic: a fixed fact and its ever-changing twin."""
    pairs = [("zh", "腾讯哪一年成立", "腾讯成立多少年了"), ("zh", "王菲的出生日期", "王菲今年多大"),
             ("zh", "杭州第一任市长是谁", "杭州现任市长是谁"),
             ("en", "what year was microsoft founded", "how many years since microsoft was founded"),
             ("en", "who was the first ceo of google", "who is the ceo of google")]
    for lang, fixed, changing in pairs:
        assert sure_cue(fixed, lang) == "" and sure_cue(changing, lang), (fixed, changing)


def test_a_sure_cue_flags_at_any_threshold_and_the_rest_stays_scored():
    rules = RuleTimeSensitivity()
    qs, langs = ["上海今天天气", "What's the newest Zelda game?"], ["zh", "en"]
    judged = rules.judgements(qs, langs)
    assert judged[0].sure and judged[0].details == {"cue": "weather"} and not judged[1].sure
    assert verdicts(rules, judged, langs, 1.0) == [(0.95, "weather"), (0.7, "")]  # only the sure cue survives 1.0
    assert [why for _, why in verdicts(rules, judged, langs)] == ["weather", "latest"]


def test_a_mixed_question_is_read_in_both_languages():
    assert sure_cue("iPhone 17 Pro多少钱", "mixed") == "price"
    assert sure_cue("bitcoin现在多少", "mixed") == "rate"  # the English pattern, in a Chinese question
    assert sure_cue("Taylor Swift今年多大", "mixed") == "age"
