"""Sure cues: narrow patterns whose questions are time-sensitive whatever a head says (``Judgement.sure``).

The broad cue families of models.timesensitive.rules are evidence for the head (one feature each); these are
the phrasings a careful reader recognises at once as stale-prone, written narrow enough to flag at any
threshold: today's weather, what goods cost, exchange and stock rates, a living person's age, who holds an
office now, whether a stream or show is on or over, redemption codes, how many years since something (it
changes every year), who a celebrity is dating, and this year's exams and holidays.

Each family has its own guards, and three shared ones cancel a match: a question about the word rather than
the fact ("汇率是什么意思", "what is a promo code", "how to redeem a code"), a past or fixed reading ("哪一年成立",
"第一任市长", "who was the first president"; not for the families whose question is itself phrased in the past,
"did they divorce", "did the show end", "how long ago") and a rule of thumb ("高考一般在几月", "usually").
Matched pairs that must stay apart: 哪一年成立 (fixed) / 成立多少年了 (not); 出生日期 (fixed) / 今年多大 (not);
第一任市长 (fixed) / 现任市长 (not). Tuned on benchmarks/timesensitive_real_tune.tsv only
(docs/measurements/time-sensitive-questions.md).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from schemas.judgement import short_question
from schemas.text import reads_as_chinese as _is_zh

CUES_VERSION = "cues2"  # part of the detectors' identities: a change to a pattern re-judges cached questions


class SureCue(NamedTuple):
    reason: str
    en: re.Pattern
    zh: re.Pattern
    en_guard: re.Pattern | None  # the family's own exceptions
    zh_guard: re.Pattern | None
    past_cancels: bool  # a past or fixed reading cancels it (not for "did they divorce", "how long ago")


def _en(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.I)


def _zh(pattern: str) -> re.Pattern:
    return re.compile(pattern, re.I)


_OFFICES_ZH = (r"总统|总理|首相|主席|书记|市长|省长|州长|校长|院长|部长|CEO|董事长|总裁|主教练|主帅|教练|队长|行长|局长|"
               r"县长|区长|秘书长|国王|女王|教皇|领导人|发言人|掌门人|负责人")
_OFFICES_EN = (r"president|prime minister|pm|premier|chancellor|ceo|cfo|cto|chairman|chairwoman|chair|head coach|coach|"
               r"manager|mayor|governor|senator|speaker|secretary(?: of \w+)?|attorney general|chief justice|king|"
               r"queen|"
               r"pope|monarch|owner|head|leader|captain|director|commissioner|ambassador|champion|james bond")
_CURRENCY_ZH = r"人民币|美元|美金|日元|欧元|港币|港元|英镑|韩元|泰铢|卢布|澳元|加元|新台币|越南盾|新加坡元"
_CURRENCY_EN = r"usd|eur|gbp|jpy|cad|aud|cny|rmb|inr|mxn|chf|krw|hkd|sgd|btc|eth"
_MONEY_EN = r"dollars?|euros?|pounds?|yen|pesos?|rupees?|yuan|won|usd|eur|gbp|jpy|cad|aud|cny|rmb|inr|mxn"

CUES = (
    SureCue(
        "weather",
        _en(r"\b(?:weather|forecast|will it (?:rain|snow|storm)|is it (?:raining|snowing|(?:going to|gonna) "
            r"(?:rain|snow)|hot|"
            r"cold|windy|sunny|humid|foggy)|how (?:hot|cold|warm) is it|air quality|aqi|umbrella|hurricane|typhoon|"
            r"tornado warning|heat ?wave|temperature (?:in|today|tomorrow|now|outside|tonight|this))\b"),
        _zh(r"天气|气温|(?:会|要)?下(?:雨|雪)(?:吗|么|没|了吗)|会下(?:雨|雪)|下不下(?:雨|雪)|有雨吗|降温|台风|暴雨|雾霾|空气质量|带伞|冷不冷|热不热|寒潮|"
            r"(?:今天|明天|后天|今晚|明早|现在|这周|本周|周末|这几天|外面)[^，。？?]{0,6}(?:多少度|几度|零下|(?:热|冷|凉快|暖和)(?:吗|不))"),
        _en(r"\b(?:climate|form|formed|named|category means|season (?:is|starts|start))\b"),
        _zh(r"气候|形成|危害|影响|原因|成因|防护|预防|怎么办"),
        True),
    SureCue(
        "code",
        _en(r"\b(?:promo|redeem|redemption|discount|coupon|voucher|referral|gift card|reward|bonus) codes?\b|"
            r"^[\w' .:-]{2,40} codes?(?: (?:today|now|right now|that work|working|active|\d{4}))?\s*\??$"),
        _zh(r"兑换码|礼包码|激活码|cdk(?:ey)?|口令|优惠码|红包码|邀请码|券码|福利码"),
        _en(r"\b(?:area|zip|postal|post|country|dialing|dialling|morse|source|dress|qr|error|status|cheat|ascii|"
            r"unicode|binary|bar|hs|swift|iban|routing|sort|tax|colou?r|hex|html|css|python|java|javascript|sql|"
            r"machine|genetic|penal|civil|building|honou?r|secret|da vinci|access|airport|iata|icao|naics|icd|cpt|"
            r"emoji|wifi|wi-fi|zip) codes?\b|\bcode of\b|\b(?:how|where) (?:to|do i|can i|do you) (?:redeem|use|enter|"
            r"get|find|type|put)\b|\bwrite\b"),
        _zh(r"怎么(?:用|兑换|输入|使用|获得|填)|在哪(?:里)?(?:输入|填|兑换|使用)|失效|过期|无效"),
        False),
    SureCue(
        "rate",
        _en(r"\bexchange rates?\b|\b(?:" + _CURRENCY_EN + r")\s*(?:to|in|vs\.?|/)\s*(?:" + _MONEY_EN + r")\b|"
            r"\b\d[\d,.]*\s*(?:" + _MONEY_EN + r")\s+(?:to|in)\s+(?:" + _MONEY_EN + r")\b|"
            r"\b(?:dollars?|euros?|pounds?|yen|pesos?|rupees?|yuan)\s+(?:to|vs\.?)\s+(?:" + _MONEY_EN + r")\b|"
            r"\b(?:stock|share) (?:price|quote|today|now)\b|\bbitcoin\b|\bbtc\b|\bethereum\b|"
            r"\bcrypto (?:prices?|market)\b|"
            r"\bmortgage rates?\b|\binterest rates? (?:today|now|right now)\b|\bfed(?:eral funds)? rate\b|"
            r"\b(?:s&p|dow jones|nasdaq)\b|\bnet worth\b|\bmarket cap\b"),
        _zh(r"汇率|(?:" + _CURRENCY_ZH + r")(?:兑|对|换|兑换|等于|是|能换|可以换)(?:多少)?(?:" + _CURRENCY_ZH + r"|块钱|块)|"
            r"多少(?:人民币|美元|美金|日元)|股价|大盘|上证|深证|创业板|恒生指数|指数涨|涨了吗|跌了吗|比特币|以太坊|币价|"
            r"(?:房贷|存款|贷款)?利率(?:是)?(?:多少|现在)|现在[^，。？?]{0,4}利率|LPR|基金净值|身价|市值"),
        _en(r"\b(?:invented|created|who made|how (?:does|do) \w+ work)\b"),
        _zh(r"怎么(?:决定|形成|来的|计算|换算)|谁发明|发明"),
        True),
    SureCue(
        "price",
        _en(r"\b(?:prices?|costs?|fees?|fares?|tuition)\b|\bhow much (?:is|are|for)\b(?=.*\b(?:tickets?|subscriptions?|"
            r"memberships?|plan|gallon|dozen|pack|carton|case|bottle|box|bag|can|meal|pass|admission|ride|"
            r"pound of)\b)"),
        _zh(r"多少钱|什么价|啥价|价格|价钱|售价|报价|价位|票价|油价|金价|房价|菜价|几块钱|多少块钱|卖多少|(?:一|每)(?:斤|公斤|升|吨)(?:多少|几)"),
        _en(r"\b(?:elasticity|opportunity cost|cost function|fixed costs?|marginal cost|sunk cost|price (?:index|"
            r"discrimination|ceiling|floor|war|point)|cost accounting|cost of capital|at all costs|at any cost)\b"),
        _zh(r"价格弹性|价格歧视|价格战|价值|性价比|砍价|讲价|议价"),
        True),
    SureCue(
        "age",
        _en(r"\bhow old (?:is|are)\b|^[\w .'-]{3,40}?(?:'s)? age(?: now| today| \d{4})?\s*\??$|"
            r"\b(?:still alive|alive today|alive now|alive or dead|dead or alive)\b|"
            r"^is [\w .'-]{3,40} (?:dead|alive)\b"),
        _zh(r"(?:今年|现在|目前|如今)(?:有)?(?:多大|几岁|多少岁|多大年纪|高寿|贵庚|年龄)|"
            r"(?:多大|几岁|多少岁|多大年纪|高寿)了(?:吗|呀|啊)?$|年龄多大|年龄是多少|还活着(?:吗|么)?|还在世(?:吗|么)?|去世了吗|"
            r"^[^\s，。？?]{2,8}?(?:的)?(?:几岁|多少岁|年龄|岁数)[?？]?$"),
        _en(r"^how old (?:is|are) (?:you|u|ya)\b|\b(?:universe|earth|the sun|the moon|solar system|milky way|"
            r"grand canyon|dinosaurs?|pyramids?|stonehenge|humans?|humanity|oldest|mankind|the bible)\b|"
            r"\b(?:ice|stone|bronze|iron|golden|middle|dark|space|information|retirement|drinking|voting|legal|"
            r"gestational|bone|dog|cat|mental|school|minimum|average|median|new|under|of) age\b"),
        _zh(r"^(?:你|您|我)|算|可以|能|才|就|会|要|应该|适合|的时候|以上|以下|之前|之后|活了|退休|法定|入学|上学|最佳|"
            r"平均|标准|生育|领证|参军|驾照|献血|换算|对照|猫|狗|宝宝|孩子|小孩|婴儿|树"),
        True),
    SureCue(
        "officeholder",
        _en(r"\bwho(?:'s| is| are)(?: the)?(?: current| new| present| acting| reigning)?(?: [\w.&'-]+){0,3}? "
            r"(?:" + _OFFICES_EN + r")\b|\bwho (?:runs|leads|owns|coaches|manages|governs|chairs)\b|"
            r"\bwho(?:'s| is) the current\b|\b(?:current|reigning|incumbent) (?:\w+ ){0,2}(?:" + _OFFICES_EN + r")\b"),
        _zh(r"(?:现任|现在的?|目前的?|当前的?|如今的?|新一任|新任)[^，。？?]{0,12}(?:" + _OFFICES_ZH + r")|"
            r"(?:" + _OFFICES_ZH + r")(?:现在)?(?:是谁|叫什么|是哪位)"),
        _en(r"\b(?:king|queen) of (?:pop|rock|soul|the jungle|kings|hearts|the hill|england's? title)\b|"
            r"\bhead of (?:hair|lettuce)\b"),
        _zh(r"第几任|时期|创始人|创办人"),
        True),
    SureCue(
        "live_status",
        _en(r"^(?:is|are|did|has|have)\s.{1,40}?\b(?:live|streaming|on air|still on|still running|still airing|"
            r"still streaming|on tonight|on today|down|ended|end|over|finished|cancell?ed|renewed|airing|"
            r"still open|still in business|still around|still available)\b|"
            r"\bwhat time (?:does|is|do) .{1,40}\b(?:start|on|air|begin|stream)\b.*\b(?:tonight|today|now)\b"),
        _zh(r"(?:今天|今晚|明天|现在|正在|还在|今日|几点)(?:有)?(?:在)?(?:直播|开播)|(?:直播|开播)了?(?:吗|没|么)|"
            r"还(?:在)?播(?:吗|么|没)?|播完了|完结了|大结局了|停播了|更新到(?:第)?(?:多少|几)|播到(?:第)?(?:几|多少|哪)|"
            r"开始了(?:吗|没)|结束了(?:吗|没)|下播了|停更|更新了(?:吗|没)|上线了(?:吗|没)"),
        _en(r"\b(?:world|universe|time|life|war of \d+)\b"),
        _zh(r"^(?:你|我)"),
        False),
    SureCue(
        "years_since",
        _en(r"\bhow (?:many years|long) (?:has it been |is it )?(?:since|ago)\b|\bhow many years (?:has|have|ago)\b|"
            r"\bhow long (?:has|have) .{1,40} been (?:around|in business|open|operating|in operation|married|together|"
            r"running|on the air|in office|independent)\b|\byears since\b|\bhow old is (?:the )?[\w ]{2,30}"
            r"(?:university|college|tower|bridge|company|church|school|city|building|harvard|yale|oxford)\b"),
        _zh(r"(?:多少|几)(?:周年|年)(?:了|啦)|(?:多少|几)周年|(?:成立|建校|建国|建党|建成|创立|创办|建立|回归|胜利|开业|上市|出道|"
            r"改革开放|通车|开通)(?:了)?(?:有)?(?:多少|几)年|(?:距今|至今|到现在|到今年|离现在|过去|已经)(?:已经)?(?:有)?"
            r"(?:多少|几)年"),
        _en(r"\b(?:dinosaurs?|big bang|universe|ice age|million|billion|earth|pyramids?|humans?|jesus|bible|"
            r"ancient|rome|bc)\b"),
        _zh(r"叫什么|什么婚|是.{0,2}婚|恐龙|宇宙|地球|万年|亿年|后|才"),
        False),
    SureCue(
        "gossip",
        _en(r"\bwho(?:'s| is| are) .{1,40}? (?:dating|seeing|married to|engaged to|going out with)\b|"
            r"^(?:is|are) .{1,50}? (?:dating|married|divorced|engaged|single|pregnant|still together|still married|"
            r"seeing anyone|in a relationship|together|splitting|getting divorced|broken up)\b|"
            r"^did .{1,50}? (?:divorce|split|break up|get married|get engaged|get back together|have a baby)\b|"
            r"\bwho is .{1,40}'s (?:girlfriend|boyfriend|wife|husband|partner|fiancee?)\b|\brelationship status\b"),
        _zh(r"(?:离婚|分手|复合|结婚|官宣|订婚|怀孕|恋爱|出轨|在一起|离了|二胎|生孩子)了(?:吗|没|么|没有)|"
            r"(?:有|现在的|目前的|最近的|新|现任)(?:男朋友|女朋友|男友|女友|对象|老公|老婆|妻子|丈夫|恋人)|还在一起|"
            r"恋情(?:曝光|公开|实锤|是真的)|和谁(?:在一起|谈恋爱|结婚)|绯闻|是不是单身|单身吗"),
        _en(r"\b(?:my|i|me|should|signs?|tips|quotes?|poem|songs?|lyrics|ever)\b|^how\b"),
        _zh(r"^(?:我|你)|我的|怎么办|怎么哄|如何|为什么|梦见|梦到|星座|属相|作文|该不该|要不要|应该"),
        False),
    SureCue(
        "this_year",
        _en(r"\b(?:this|next) (?:year|semester|term|season|spring|summer|fall|autumn|winter|week|weekend|month)\b|"
            r"\btonight\b|\b(?:when|what date|what day)\b.{0,30}\b(?:scores?|results?|decisions?|grades?)\b.{0,20}"
            r"\b(?:come out|released?|out|posted|available|drop)\b|\b(?:when is|when are|what date is|dates? for|"
            r"test dates?|registration deadline|score release)\b.{0,20}\b(?:sat|act|lsat|mcat|gre|gmat|bar exam|"
            r"gcse|a-?levels?|ap exams?|ielts|toefl|cpa exam|psat)\b|\b(?:sat|act|lsat|mcat|gre|gmat|gcse|psat|"
            r"ielts|toefl|ap) (?:test |exam )?(?:dates?|registration|deadline|score release|results?|scores?)\b|"
            r"\bwhen is the next\b"),
        _zh(r"(?:今年|明年|本年度?)(?:的)?[^，。？?]{0,10}(?:高考|中考|考研|国考|省考|四六级|四级|六级|教资|教师资格|公务员|"
            r"专升本|会考|学考|考试|分数线|录取线|国家线|一本线|二本线|本科线|报名|成绩|放假|假期|调休|开学|春节|元宵|"
            r"清明|端午|中秋|国庆|元旦|寒假|暑假|几号|哪天|几月几|什么时候|时间|日期|安排|放几天)|"
            r"(?:高考|中考|考研|国考|省考|四六级|四级|六级|教资|公务员|专升本)(?:的)?(?:分数线|成绩|国家线)?"
            r"(?:什么时候|几号|哪天)(?:出|公布|查|考|报名|开始)|(?:分数线|录取线|国家线|一本线|二本线|本科线)(?:是)?"
            r"(?:多少|出来|公布)|查分|出成绩"),
        _en(r"\b(?:usually|typically|normally|generally|every year|each year|how often|always)\b"),
        _zh(r"一般|通常|往年|历年|每年|规律|去年|前年"),
        False),
    SureCue(
        "latest",
        _en(r"\blatest (?:news|update|updates|score|scores|results?|version|episode|chapter|patch)\b|"
            r"\bnews (?:today|this week)\b"),
        _zh(r"最新(?:消息|进展|动态|情况|版本|一期|一集|章节|政策|通知|新闻|战况|比分)|最近(?:怎么样了|有什么新闻)"),
        _en(r"\bhow (?:to|do i) (?:get|install|update|download)\b"),
        _zh(r"怎么(?:更新|下载|安装|升级)"),
        True),
    SureCue(
        "lottery",
        _en(r"\b(?:winning numbers|lottery results?|powerball numbers|mega millions numbers|jackpot (?:now|today|"
            r"tonight)|draw results)\b"),
        _zh(r"开奖(?:结果|号码|了吗|了没)|中奖号码|(?:双色球|大乐透|福彩3D|排列三|七星彩|快乐8)(?:今天|今晚|昨晚|最新|开奖|号码)"),
        _en(r"\b(?:odds|how (?:to|does|do)|rules|history)\b"),
        _zh(r"怎么玩|规则|概率|几率|技巧|历史"),
        True),
    SureCue(
        "date_now",
        _en(r"\bwhat(?:'s| is) (?:the date|today'?s date|the time)\b|\bwhat day is (?:it|today)\b|"
            r"\bwhat time is it\b|\bwhat year is it\b"),
        _zh(r"(?:今天|明天|昨天|后天)(?:是)?(?:几号|星期几|周几|礼拜几|农历几|几月几)|现在几点|今年是(?:哪|什么|几)|今天是什么日子"),
        _en(r"\b(?:on|in) (?:the )?(?:\d{4}|history)\b"),
        None,
        False),
)
REASONS = tuple(c.reason for c in CUES)

# a question about the word, not the fact: what it means, how to use or compute it, why
_WORD_EN = _en(r"^(?:what (?:is|are) (?:an?|the (?:difference|meaning|definition|origin))\b|what does\b.*\b(?:mean|"
               r"stand for)\b|define\b|meaning of\b|definition of\b|(?:the )?difference between\b|"
               r"how (?:to|do (?:i|you|"
               r"we)|can (?:i|you)|does)\b|why\b|explain\b)|\b(?:in excel|formula|calculate|calculator|meaning|"
               r"definition|synonyms?|in spanish|in french|translate|translation)\b")
_WORD_ZH = _zh(r"是什么(?!时候|日子)|什么是|什么叫|什么意思|啥意思|是啥(?!时候)|的意思|的区别|区别是|怎么算|公式|原理|为什么|"
               r"怎么(?:用|查|看|开通|兑换|输入|填|领取|设置|做|玩|说|写|读|办|计算)|如何(?:查|看|用|开通|兑换|计算|设置|办理)|"
               r"英语|英文|翻译|作文|诗句|成语|歌词")
# a past or fixed reading: a first or former holder, a founding year, a birth date, a dynasty, a year long past
_PAST_EN = _en(r"\b(?:was|were|did|had|first|founded|invented|former|originally|historically|ancient|"
               r"used to|back in|during|in (?:1[0-9]|200|201)\d|\d+(?:st|nd|rd|th))\b|\bborn\b|\bbirthday\b")
_PAST_ZH = _zh(r"历史上|古代|当年|曾经|以前|那时|当时|的时候|年代|花了|第[一二三四五六七八九十百千0-9]+(?:任|届|位|代)|首任|首位|首届|历任|前任|"
               r"开国|哪一?年|哪个朝代|朝代|(?:唐|宋|元|明|清|汉|秦|隋|周)朝|民国|三国|战国|春秋|去世(?!了吗)|逝世|"
               r"活了|出生|生日|生于|发明")


# a fixed reading, narrow enough to weigh against a head's flag: a definition or how-to, a rule of thumb, a birth
# date, a founding year, a first holder, odds ("what is an exchange rate", "how to update to the latest version",
# "高考一般在几月", "生日是哪天", "哪一年成立", "第一任市长", "中奖概率")
_FIXED_EN = _en(r"^(?:what (?:is|are) (?:an?|the (?:difference|meaning|definition))\b|what does\b.*\bmean\b|define\b|"
                r"(?:the )?difference between\b|how (?:to|do (?:i|you)|can (?:i|you))\b)|\b(?:birthday|born|usually|"
                r"typically|normally|generally|every year|each year|odds|in excel|formula)\b")
_FIXED_ZH = _zh(r"是什么意思|什么意思|啥意思|什么是|什么叫|的区别|区别是|怎么(?:用|开通|兑换|输入|设置|更新|下载|安装|升级|玩|"
                r"计算|算|查)|如何(?:开通|兑换|设置|更新|下载|安装|计算|查)|公式|一般|通常|每年|往年|历年|出生日期|生日|"
                r"哪一?年(?:成立|建校|建立|创立|创办|出生|建成|发明|去世|开始|结束|发生)|第[一二三四五六七八九十0-9]+任|首任|"
                r"概率|几率|规则")


def reads_fixed(question: str, lang: str) -> bool:
    """The question reads as fixed (:data:`_FIXED_EN` / :data:`_FIXED_ZH`): the head's score is halved for it."""
    text = question.strip()
    if _is_zh(lang) and _FIXED_ZH.search(text):
        return True
    return lang != "zh" and bool(_FIXED_EN.search(text))


def reads_past(question: str, lang: str) -> bool:
    """The sure cues' past or fixed reading ("九十年代…多少钱", "who was the first mayor"): the rules halve a broad
    family's score for it."""
    text = question.strip()
    if _is_zh(lang) and _PAST_ZH.search(text):
        return True
    return lang != "zh" and bool(_PAST_EN.search(text))


# Han next to Latin letters or digits: no \b falls between them (both are word characters), so the English
# patterns read a mixed question with a space put there ("bitcoin现在多少" -> "bitcoin 现在多少")
_SCRIPT_SEAM = re.compile(r"(?<=[\u4e00-\u9fff])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[\u4e00-\u9fff])")


def sure_cue(question: str, lang: str) -> str:
    """The first family whose narrow pattern the question holds and no guard cancels, or "". A mixed question
    is read as Chinese, then as English; "" for a text longer than a question (schemas.judgement.short_question)."""
    if not short_question(question):
        return ""
    text = question.strip()
    readings = [("zh", text)] if _is_zh(lang) else [("en", text)]
    if lang == "mixed":
        readings.append(("en", _SCRIPT_SEAM.sub(" ", text)))
    for side, t in readings:
        if (_WORD_ZH if side == "zh" else _WORD_EN).search(t):
            return ""
    for cue in CUES:
        for side, t in readings:
            pattern, guard, past = ((cue.zh, cue.zh_guard, _PAST_ZH) if side == "zh"
                                    else (cue.en, cue.en_guard, _PAST_EN))
            if pattern.search(t) and not (guard is not None and guard.search(t)) \
                    and not (cue.past_cancels and past.search(t)):
                return cue.reason
    return ""
