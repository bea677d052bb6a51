"""An answer that names only the aspects an answer would cover: "创可贴和创口贴的区别在于用途、使用方法、材料、形状和价格",
"狂犬病前兆包括非典型症状、神经系统症状和典型症状", "…对中国的影响主要体现在环境、经济和社会三个方面", "无法进入可能是由于网络、
设备、账户权限、地区限制等多种原因". A heading in a sentence's clothes: it says where the difference, the signs or the
causes lie, and never what they are (part of the ``meta`` family, models.nonanswer.plain.meta).

Chinese only: measured on a real Chinese chatbot's answers (docs/measurements/non-answers.md); no English real text
of this kind was at hand. "It depends on A and B" (取决于) is left out on purpose: whether that answers a yes-or-no
question is a reviewer's call, and "取决于个人需求和口味" was labelled an answer.
"""

from __future__ import annotations

import re

# what comes before the list: "the difference lies in", "includes", "shows in", "is caused by"
_LEAD = re.compile(r"(?:区别|不同|差异|差别|不同之处|关键)?(?:主要)?(?:在于|体现在|包括|涉及到?|分为)|(?:可能)?(?:是)?(?:由于|因为)")
# nouns that name an aspect, not a content: an item ending in one says where to look, not what is there
_ASPECTS = tuple(sorted(set((
    "用途 用法 方法 材料 材质 形状 价格 成分 原理 功能 作用 特点 特征 症状 原因 因素 方面 类型 种类 性质 结构 设计 外观 "
    "性能 质量 品牌 来源 历史 文化 背景 意义 影响 领域 知识 过程 条件 环境 技术 政策 经济 社会 政治 情况 状况 程度 大小 "
    "尺寸 颜色 口感 味道 效果 风格 内容 形式 目的 对象 范围 方式 规模 时间 地点 地区 权限 限制 设备 网络 配置 需求 人群 "
    "场景 工艺 口味 产地 年代 定位 理念 价值 规则 标准 要求 途径 渠道 表现 阶段 程序 步骤 流程 属性 含义 概念 定义 级别 "
    "等级 层次 角度 视角 观点 态度 立场 利益 关系 身份 地位 职责 职能 区域").split()), key=len, reverse=True))
_SEPARATOR = re.compile(r"[、，,]|以及|及|和|与|或者?|还有")
# "…等多种原因", "…三个方面": the list's close, no item of its own
_CLOSE = re.compile(r"(?:等(?:等)?(?:多种|多个|诸多|各种|一系列|多方面|几个|很多|许多)?|[一二两三四五六七八九十几多]+个)(?:的)?"
                    r"(?:因素|原因|方面|领域|知识|问题|内容|特点|区别)?[。.！!]?\s*$")
_OPENING = re.compile(r"^(?:以下|如下)?(?:几个|多个|多种|一些)?(?:方面|因素|原因)?[:：，,]?")
_SENTENCES = re.compile(r"[。！？!?；;]")
MAX_CHARS = 90  # a longer answer says more than its list
AT_LEAST = 0.75  # of the listed items, the share that are aspects


def only_aspects(answer: str) -> bool:
    """One sentence, no figure, whose last part is a list of two or more items after "lies in / includes / is
    caused by", at least three in four of them aspects (用途, 症状, 因素, …)."""
    text = answer.strip()
    if len(text) > MAX_CHARS or re.search(r"\d", text):
        return False
    if len([s for s in _SENTENCES.split(text) if s.strip()]) != 1:
        return False
    lead = _LEAD.search(text)
    if not lead:
        return False
    listed = _OPENING.sub("", _CLOSE.sub("", text[lead.end():]).strip(" 。.，,：:"))
    items = [i for i in (part.strip(" 的等") for part in _SEPARATOR.split(listed)) if i]
    if len(items) < 2:
        return False
    return sum(1 for i in items if i.endswith(_ASPECTS)) / len(items) >= AT_LEAST
