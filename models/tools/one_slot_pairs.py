"""Chinese question pairs that differ in one term: the negatives a pair model must learn and public pair sets
rarely hold, and their counterweight, the same question with one word said another way.

Public Chinese pair sets (LCQMC, BQ, ATEC) mostly part questions on another topic that share words. What a base
merges wrongly is the other kind: the same words with one thing changed (another year, the other sex, the
opposite action, another school level, another product), which a pooled-vector judge cannot see. This module
writes such pairs from the training questions themselves: a question holding a term of :data:`SWAPS` is paired
with itself with that term replaced by another of its group, labelled "two questions". Trained on those alone, a
model learns "one word changed: two questions" and parts paraphrases that differ in one word too; so a question
holding a term of :data:`SYNONYMS` is also paired with itself saying it another way, labelled "one question".

The groups were written for this purpose, from common Chinese usage: every member of a :data:`SWAPS` group asks
something another member does not (antonyms, members of one slot), every member of a :data:`SYNONYMS` group the
same. Numbers and negation are not here: the build's vetoes part those without a model. Deterministic: which
term of a question is swapped, and for what, is decided by a hash of the question, and the sample by a seeded
generator over a sorted list.
"""

from __future__ import annotations

import hashlib
import random

# groups whose members are mutually exclusive answers to "which one?": swapping one for another changes the question
SWAPS: tuple[tuple[str, ...], ...] = (
    # people
    ("男生", "女生"), ("男人", "女人"), ("男孩", "女孩"), ("男朋友", "女朋友"), ("男性", "女性"), ("老公", "老婆"),
    ("丈夫", "妻子"), ("爸爸", "妈妈"), ("父亲", "母亲"), ("儿子", "女儿"), ("哥哥", "弟弟", "姐姐", "妹妹"),
    ("爷爷", "奶奶"), ("外公", "外婆"), ("叔叔", "阿姨"), ("老师", "学生"), ("医生", "病人"), ("买家", "卖家"),
    ("房东", "租客"), ("大人", "小孩"), ("老人", "年轻人"),
    # time
    ("今年", "去年", "明年"), ("今天", "昨天", "明天"), ("上午", "下午"), ("早上", "晚上"), ("白天", "夜里"),
    ("上周", "下周"), ("上个月", "下个月"), ("春天", "夏天", "秋天", "冬天"), ("春节", "中秋节", "国庆节", "端午节"),
    ("以前", "以后"), ("之前", "之后"), ("开学", "放假"), ("周末", "工作日"),
    # place and direction
    ("上面", "下面"), ("左边", "右边"), ("前面", "后面"), ("里面", "外面"), ("东边", "西边"), ("南方", "北方"),
    ("国内", "国外"), ("城市", "农村"), ("入口", "出口"), ("楼上", "楼下"), ("北京", "上海", "广州", "深圳"),
    ("中国", "美国", "日本", "韩国", "英国"),
    # actions and their opposites
    ("开通", "关闭"), ("打开", "关掉"), ("登录", "退出"), ("注册", "注销"), ("充值", "提现"), ("存钱", "取钱"),
    ("借款", "还款"), ("借钱", "还钱"), ("买入", "卖出"), ("购买", "出售"), ("收款", "付款"), ("收入", "支出"),
    ("增加", "减少"), ("提高", "降低"), ("上升", "下降"), ("上涨", "下跌"), ("加入", "退出"), ("上传", "下载"),
    ("安装", "卸载"), ("发送", "接收"), ("绑定", "解绑"), ("冻结", "解冻"), ("开机", "关机"), ("添加", "删除"),
    ("记住", "忘记"), ("喜欢", "讨厌"), ("成功", "失败"), ("同意", "拒绝"), ("赢", "输"), ("支持", "反对"),
    ("结婚", "离婚"), ("入学", "毕业"), ("上班", "下班"), ("起床", "睡觉"), ("进口", "出口"), ("升级", "降级"),
    ("关注", "取关"), ("开始", "结束"), ("出发", "到达"), ("减肥", "增肥"), ("戒烟", "吸烟"),
    # qualities
    ("最大", "最小"), ("最高", "最低"), ("最多", "最少"), ("最好", "最差"), ("最快", "最慢"), ("最长", "最短"),
    ("最早", "最晚"), ("好看", "难看"), ("好吃", "难吃"), ("容易", "困难"), ("简单", "复杂"), ("便宜", "昂贵"),
    ("变胖", "变瘦"), ("长胖", "变瘦"), ("冷水", "热水"), ("寒冷", "炎热"), ("干燥", "潮湿"), ("深色", "浅色"),
    ("长发", "短发"), ("早睡", "晚睡"), ("真的", "假的"), ("正确", "错误"), ("优点", "缺点"), ("好处", "坏处"),
    ("近视", "远视"), ("内向", "外向"), ("主动", "被动"), ("公立", "私立"), ("高血压", "低血压"), ("便秘", "腹泻"),
    ("白色", "黑色", "红色", "蓝色", "绿色", "黄色"), ("白天鹅", "黑天鹅"), ("新手", "老手"),
    # kinds of one slot
    ("小学", "初中", "高中", "大学"), ("本科", "专科", "研究生"), ("小学生", "中学生", "大学生"),
    ("猫", "狗"), ("苹果手机", "安卓手机"), ("微信", "支付宝"), ("淘宝", "京东"), ("花呗", "借呗"),
    ("信用卡", "储蓄卡"), ("电脑", "手机"), ("英语", "数学", "语文"), ("英文", "中文"), ("火车", "飞机"),
    ("早餐", "午餐", "晚餐"), ("米饭", "面条"), ("牛肉", "猪肉", "羊肉", "鸡肉"), ("感冒", "发烧"),
    ("怀孕", "流产"), ("孕妇", "产妇"), ("婴儿", "老人"), ("夏装", "冬装"), ("黄金", "白银"),
    # what is asked
    ("如何", "为什么"), ("在哪里", "什么时候"), ("多少钱", "多长时间"),
)
# groups whose members ask the same in a question: swapping one for another keeps the question
SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("如何", "怎样", "怎么样才能"), ("为什么", "为啥", "为何"), ("什么时候", "何时", "啥时候"), ("哪里", "哪儿", "什么地方"),
    ("多少钱", "什么价格"), ("多久", "多长时间"), ("可以", "能"), ("能不能", "可不可以"), ("是不是", "是否"),
    ("手机号", "手机号码"), ("老公", "丈夫"), ("老婆", "妻子"), ("爸爸", "父亲"), ("妈妈", "母亲"), ("关闭", "关掉"),
    ("退款", "退钱"), ("电脑", "计算机"), ("孩子", "小孩子"), ("什么意思", "啥意思"), ("现在", "目前"),
    ("马上", "立刻"), ("觉得", "认为"), ("需要", "得"), ("一般", "通常"), ("大概", "大约"), ("还款", "还钱"),
    ("借款", "借钱"), ("充值", "充钱"), ("提现", "取现"), ("提高", "提升"), ("怎么办", "怎么处理", "如何处理"),
    ("好不好", "好吗"), ("厉害", "牛"), ("漂亮", "好看"), ("便宜", "实惠"), ("开通", "开启"), ("登录", "登陆"),
    ("账号", "账户"), ("微信号", "微信账号"), ("注意什么", "需要注意什么"), ("有什么用", "有什么作用"),
    ("怎么回事", "是怎么回事"), ("最好", "最佳"), ("困难", "难"), ("出售", "卖掉"), ("购买", "买"),
)


def _partners(groups) -> dict[str, tuple[str, ...]]:
    out: dict[str, set[str]] = {}
    for group in groups:
        for term in group:
            out.setdefault(term, set()).update(t for t in group if t != term)
    return {t: tuple(sorted(p)) for t, p in out.items()}


_SWAP_PARTNERS, _SYNONYM_PARTNERS = _partners(SWAPS), _partners(SYNONYMS)


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def terms_in(question: str, partners: dict[str, tuple[str, ...]]) -> list[tuple[int, str]]:
    """The terms of ``partners`` in ``question`` as (position, term), longest first where two overlap
    (小学生 before 小学)."""
    taken: list[tuple[int, int]] = []
    found = []
    for term in sorted(partners, key=lambda t: (-len(t), t)):
        at = question.find(term)
        while at >= 0:
            if all(at + len(term) <= s or at >= e for s, e in taken):
                taken.append((at, at + len(term)))
                found.append((at, term))
                break
            at = question.find(term, at + 1)
    return sorted(found)


def swapped(question: str, partners: dict[str, tuple[str, ...]] = _SWAP_PARTNERS) -> tuple[str, str] | None:
    """``(question with one term of ``partners`` replaced, the term)``, or None when it holds none. The term and
    its replacement are chosen by the question's hash."""
    found = terms_in(question, partners)
    if not found:
        return None
    h = _digest(question)
    at, term = found[h % len(found)]
    others = partners[term]
    return question[:at] + others[(h // 7) % len(others)] + question[at + len(term):], term


def one_slot_negatives(questions, n: int, seed: int = 0, per_term: int = 300) -> list[tuple[str, str, int]]:
    """Up to ``n`` pairs (question, question with one term swapped for another of its slot, 0) from
    ``questions``, at most ``per_term`` for any one term so the common ones (花呗 in customer-service sets) do not
    fill the sample."""
    return _pairs(questions, _SWAP_PARTNERS, 0, n, seed, per_term)


def one_slot_paraphrases(questions, n: int, seed: int = 0, per_term: int = 300) -> list[tuple[str, str, int]]:
    """Up to ``n`` pairs (question, question with one term said another way, 1), as :func:`one_slot_negatives`."""
    return _pairs(questions, _SYNONYM_PARTNERS, 1, n, seed, per_term)


def _pairs(questions, partners, label: int, n: int, seed: int, per_term: int) -> list[tuple[str, str, int]]:
    by_term: dict[str, list[tuple[str, str, int]]] = {}
    for q in sorted(set(questions)):
        got = swapped(q, partners)
        if got is not None and got[0] != q:
            by_term.setdefault(got[1], []).append((q, got[0], label))
    rng = random.Random(seed)
    pool = []
    for term in sorted(by_term):
        pairs = by_term[term]
        pool.extend(pairs if len(pairs) <= per_term else rng.sample(pairs, per_term))
    return pool if len(pool) <= n else rng.sample(pool, n)
