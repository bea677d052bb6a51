"""The word lists of the ``rules`` backend: words that ask *something* but name nothing asked about.

A question made only of these words ("多少钱", "要门票吗", "how long does it take?", "is it safe?") has no
subject: in a QA base it matches every question about prices, tickets or durations and answers none. A word
missing from these lists counts as content, so a list too short only misses questions (it never flags one
that names its topic): the lists are kept to words that never name a topic by themselves. Attribute nouns
(门票, 价格, side effects) are here because they ask about a property *of* something that must be named.
"""

from __future__ import annotations

# ---- Chinese --------------------------------------------------------------------------------------

# pointing words: with no named referent before them, the question points into a conversation
ZH_DEICTIC = ("这个", "那个", "这些", "那些", "这种", "那种", "这样", "那样", "这里", "那里", "这儿", "那儿", "这边",
              "那边", "上面", "上述", "以上", "前面", "刚才", "刚刚", "他们", "她们", "它们", "这", "那", "它", "他", "她",
              "其", "此")
# classifiers after 这/那 (这首歌, 那部电影) or a numeral (一箱, 两个): the noun they count is still unnamed
ZH_CLASSIFIERS = "个首部道款家本种句段篇张条件位只台辆瓶箱盒包次份双套门题集期斤"
ZH_NUMERALS = "一二两三四五六七八九十几半每"
# units a bare "how many" asks in (多少度, 几天能到, 多少岁); after a plain numeral they may be the topic (一年有多少天)
ZH_ASKED_UNITS = "天岁度"
# question words, particles, copulas and the everyday verbs a bare predicate is made of
ZH_FUNCTION = (
    "为什么", "为啥", "怎么办", "怎么样", "怎么", "怎样", "咋办", "咋样", "咋", "如何", "什么", "啥", "哪里", "哪儿", "哪个",
    "哪些", "哪", "谁", "多少", "几点", "几时", "多久", "多长", "多大", "多高", "多远", "多重", "多", "几",
    "吗", "呢", "吧", "啊", "呀", "嘛", "么", "了", "的", "得", "地", "过", "着", "不", "没", "没有", "是", "是不是",
    "有", "有没有", "在", "要", "要不要", "需要", "需不需要", "能", "能不能", "可以", "可不可以", "会", "会不会",
    "应该", "该", "想", "还", "再", "也", "都", "就", "又", "更", "最", "很", "太", "挺", "比较", "一点", "一下",
    "一些", "有点", "真的", "到底", "究竟", "请问", "请", "帮我", "帮", "给我", "给", "我", "我们", "你", "您", "咱",
    "和", "跟", "与", "或者", "还是", "如果", "那么", "然后", "还有", "以后", "之后", "时候", "的话", "里", "上", "下",
    "对吗", "对不对", "行吗",
)
# everyday verbs and evaluative predicates: what is asked, never what it is asked about
ZH_PREDICATES = (
    "使用", "退款", "退货", "预约", "预定", "预订", "报名", "办卡", "收费", "付款", "开门",
    "关门", "营业", "开放", "关掉", "打开", "翻译", "总结", "解释", "说说", "讲讲", "详细", "具体", "简单",
    "继续", "接着", "举个例子", "举例", "例子", "换一个", "再来", "展开", "好吃", "好用", "好玩", "好看", "好听",
    "便宜", "贵不贵", "安全", "危险", "靠谱", "值得", "值不值", "划算", "难", "容易", "方便", "严重", "正常",
    "开始", "结束", "有效", "有用", "免费", "合适", "正规", "能用", "管用", "行不行", "好不好", "怎么读", "什么意思", "意思", "解决",
    "处理",
)
# single characters that ask only beside other asking words ("能吃吗", "怎么去", "哪个好"): two of them side by side
# are a topic word (小说, 高中, 上下), so each counts only between safe asking words or the ends (rules._scan)
ZH_RISKY_SINGLES = frozenset("用做弄搞办去走来到买卖吃喝带拿穿读念写说讲叫看玩退开关换疼痛快慢远近大小高长重新旧真假贵"
                             "难好对行上下中里点")
# attribute nouns: a property of something that has to be named (X的门票, X的副作用)
ZH_ATTRIBUTES = (
    "门票", "票", "价格", "价钱", "费用", "多少钱", "时间", "营业时间", "开放时间", "地址", "位置", "电话", "号码",
    "名字", "名称", "作者", "作用", "用途", "用法", "用量", "功效", "效果", "副作用", "区别", "差别", "不同", "关系",
    "原因", "优惠", "折扣", "保质期", "有效期", "尺寸", "大小", "重量", "年龄", "身高", "内容", "情况", "问题", "结果",
    "答案", "意义", "停车", "停车场", "规则", "要求", "条件", "流程", "步骤", "方法", "办法", "评价", "口碑", "质量",
    "配置", "参数", "热量", "卡路里", "老婆", "老公", "学生票", "儿童票", "重要",
)
# who something is for: asking only where the thing is left out ("孕妇能吃吗"), the topic where it is the subject
# ("孩子发烧怎么办" has content anyway; "学生需要什么" keeps 学生): rules._audience
ZH_AUDIENCE = ("孕妇", "小孩", "孩子", "宝宝", "儿童", "老人", "学生")
ZH_AUDIENCE_THEN = ("能", "可以", "可不可以", "能不能", "适合", "要")
# a follow-up turn: 那…呢, 还有呢, 然后呢 (what about ...?)
ZH_FOLLOW_UP_OPENERS = ("那如果", "那要是", "那么", "如果是", "要是", "还有", "然后", "那")

# ---- English --------------------------------------------------------------------------------------

EN_DEICTIC = frozenset("this that these those it its they them their he him his she her there here above "
                       "former latter".split())
EN_FUNCTION = frozenset("""
a an the of for to in on at by with from about into per and or but if so than then as not no yes ok okay please pls
what whats what's how hows how's who whos who's whom whose which when where wheres where's why
is isn't are aren't was wasn't were weren't be been being am do don't does doesn't did didn't done doing
can can't cannot could couldn't will won't would wouldn't should shouldn't shall may might must
have haven't has hasn't had having need needs get gets got
i i'm me my mine you you're your yours we us our one ones it's that's there's they're
someone something anything everything some any all much many more most else other another enough
just really also still again too now ever even actually exactly
""".split())
EN_PREDICATES = frozenset("""
use used using work works worked working mean means meant take takes took cost costs make makes made go goes going
buy bought open opens opened close closes closed start starts started begin begins end ends pay paid bring
eat eaten drink fix solve translate summarize summarise rewrite explain pronounce say said tell told give
show know call called sing sings sang sung write wrote written deliver delivers cancel refund happen happened
help try reserve stay keep come comes look looks sound sounds continue turn off switch
safe free good bad better best worse worst worth hard easy difficult true right correct wrong legit real normal
possible available expensive cheap healthy long far old tall big small often soon late early new simple simpler
shorter longer fine ok sure okay allowed necessary required serious scam fake think
""".split())
EN_ATTRIBUTES = frozenset("""
price prices cost fee fees ticket tickets reservation reservations booking address hours opening time times
difference differences side effect effects calories name age height weight size meaning example examples
detail details info information review reviews rating parking refund number language word words version""".split())
# who something is for: asking only after "for" ("is it safe for kids"), the topic elsewhere ("are kids expensive")
EN_AUDIENCE = frozenset("kids children child baby babies adults pregnant women men students seniors dogs cats".split())
# openers of a follow-up turn: "what about London?", "and the second one?", "how about tomorrow"
EN_FOLLOW_UP = ("what about", "how about", "and")
