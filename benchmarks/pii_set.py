"""A labelled set for personal-data redaction (issue 32): chatbot-style sentences in Chinese and English holding
personal data (labelled spans, exact type) and lookalikes that are not (years, prices, sizes, order and tracking
numbers, dates, versions, ISBNs, measurements, 11-digit numbers not starting 1[3-9], 18-digit numbers with a
wrong check digit, card-length numbers failing Luhn, ...), each lookalike labelled as a decoy span.

    python benchmarks/pii_set.py            # writes benchmarks/pii_labelled.jsonl (seed 32, deterministic)
    python benchmarks/pii_eval.py           # recall and precision per kind

One JSON object per line: ``text``, ``lang``, ``spans`` ([start, end, kind] of personal data), ``decoys``
([start, end, what] of lookalikes that must survive), ``template`` (which sentence it was made from).
The sentence templates are written by hand; the values are drawn from the generators below.
"""

from __future__ import annotations

import json
import random
import re
import string
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from schemas.privacy.checks import id_check_char, luhn_valid  # noqa: E402

OUT = ROOT / "benchmarks" / "pii_labelled.jsonl"
SEED = 32
PER_KIND = {"PHONE": 420, "EMAIL": 200, "ID_NUMBER": 200, "CARD": 180, "IP": 120, "PASSPORT": 80, "URL": 80}
DECOYS = 1300
FULL_WIDTH = str.maketrans({c: chr(ord(c) + 0xFEE0) for c in string.digits + "@.-+"})

# --- values -------------------------------------------------------------------------------------------------------

MOBILE_PREFIXES = ["130", "131", "132", "133", "135", "136", "137", "138", "139", "145", "147", "150", "151", "152",
                   "155", "156", "157", "158", "159", "166", "170", "173", "176", "177", "178", "180", "181", "182",
                   "183", "185", "186", "187", "188", "189", "191", "193", "195", "198", "199"]
AREA_CODES = ["010", "020", "021", "022", "023", "024", "025", "027", "028", "029", "0571", "0755", "0512", "0731",
              "0531", "0591", "0871", "0991"]
REGIONS = ["110101", "110105", "310104", "310115", "440305", "440106", "510107", "330106", "420102", "320102",
           "370202", "610113", "500103", "230103", "350203", "530102"]


def _digits(rng, n):
    return "".join(rng.choice(string.digits) for _ in range(n))


def mobile(rng):
    number = rng.choice(MOBILE_PREFIXES) + _digits(rng, 8)
    style = rng.randrange(9)
    if style == 1:
        return f"{number[:3]} {number[3:7]} {number[7:]}"
    if style == 2:
        return f"{number[:3]}-{number[3:7]}-{number[7:]}"
    if style == 3:
        return "+86 " + number
    if style == 4:
        return f"+86-{number[:3]}-{number[3:7]}-{number[7:]}"
    if style == 5:
        return "(+86)" + number
    if style == 6:
        return number.translate(FULL_WIDTH)
    return number


def landline(rng):
    return written_landline(rng, "2345678", lambda area, local: f"{area}-{local[:-4]}-{local[-4:]}")


def written_landline(rng, first_digits: str, grouped) -> str:
    """A landline whose local number starts with one of ``first_digits``, written one of six ways; ``grouped(area,
    local)`` writes the area code and the local number's two groups apart."""
    area = rng.choice(AREA_CODES)
    local = rng.choice(first_digits) + _digits(rng, 7 if len(area) == 3 else rng.choice((6, 7)))
    style = rng.randrange(6)
    if style == 1:
        return f"({area}){local}"
    if style == 2:
        return f"{area} {local[:-4]} {local[-4:]}"
    if style == 3:
        return f"{area}-{local}转{rng.randint(100, 8999)}"
    if style == 4:
        return grouped(area, local)
    return f"{area}-{local}"


def international(rng):
    return rng.choice([
        lambda: f"+44 20 {_digits(rng, 4)} {_digits(rng, 4)}",
        lambda: f"+44 7{_digits(rng, 3)} {_digits(rng, 6)}",
        lambda: f"+1 ({rng.randint(201, 989)}) {rng.randint(200, 999)}-{_digits(rng, 4)}",
        lambda: f"+1-{rng.randint(201, 989)}-{rng.randint(200, 999)}-{_digits(rng, 4)}",
        lambda: f"+49 30 {_digits(rng, 8)}",
        lambda: f"+81 3-{_digits(rng, 4)}-{_digits(rng, 4)}",
        lambda: f"+852 {rng.choice('5689')}{_digits(rng, 3)} {_digits(rng, 4)}",
        lambda: f"+65 {rng.choice('89')}{_digits(rng, 3)} {_digits(rng, 4)}",
        lambda: f"+33 1 {_digits(rng, 2)} {_digits(rng, 2)} {_digits(rng, 2)} {_digits(rng, 2)}",
        lambda: f"+61 4{_digits(rng, 2)} {_digits(rng, 3)} {_digits(rng, 3)}",
        lambda: f"+886 9{_digits(rng, 2)}-{_digits(rng, 3)}-{_digits(rng, 3)}",
    ])()


def us_phone(rng):
    a, b, c = rng.randint(201, 989), rng.randint(200, 999), _digits(rng, 4)
    return rng.choice([f"({a}) {b}-{c}", f"{a}-{b}-{c}", f"{a}.{b}.{c}", f"1-800-{b}-{c}"])


def phone(rng):
    pick = rng.random()
    if pick < 0.5:
        return mobile(rng)
    if pick < 0.7:
        return landline(rng)
    if pick < 0.88:
        return international(rng)
    return us_phone(rng)


def _birth(rng, lo=1950, hi=2006):
    y, m = rng.randint(lo, hi), rng.randint(1, 12)
    return y, m, rng.randint(1, 28)


def id18(rng):
    y, m, d = _birth(rng)
    first = f"{rng.choice(REGIONS)}{y}{m:02d}{d:02d}{_digits(rng, 3)}"
    number = first + id_check_char(first)
    style = rng.randrange(6)
    if style == 1:
        return f"{number[:6]} {number[6:14]} {number[14:]}"
    if style == 2 and number.endswith("X"):
        return number[:-1] + "x"
    return number


def id15(rng):
    y, m, d = _birth(rng, 1940, 1984)
    return f"{rng.choice(REGIONS)}{y % 100:02d}{m:02d}{d:02d}{_digits(rng, 3)}"


def _luhn_complete(prefix, length, rng):
    body = prefix + _digits(rng, length - len(prefix) - 1)
    for check in string.digits:
        if luhn_valid(body + check):
            return body + check
    raise AssertionError


def card(rng):
    prefix, length = rng.choice([("4", 16), ("4", 16), ("51", 16), ("53", 16), ("55", 16), ("62", 16), ("62", 19),
                                 ("6222", 19), ("37", 15), ("34", 15), ("35", 16), ("6011", 16)])
    number = _luhn_complete(prefix, length, rng)
    style = rng.randrange(5)
    if style in (1, 2) and length == 16:
        sep = " " if style == 1 else "-"
        return sep.join(number[i:i + 4] for i in range(0, 16, 4))
    if style == 3 and length == 15:
        return f"{number[:4]} {number[4:10]} {number[10:]}"
    if style == 4 and length == 19:
        return " ".join(number[i:i + 4] for i in range(0, 19, 4))
    return number


def email(rng):
    first = rng.choice(["zhang", "li", "wang", "chen", "liu", "yang", "john", "mary", "alex", "sarah", "kevin",
                        "emma", "tom", "lucy", "david", "anna", "mike", "jenny"])
    local = rng.choice([first, f"{first}.{rng.choice(['wei', 'smith', 'lee', 'brown', 'ming', 'jones'])}",
                        f"{first}{rng.randint(1, 9999)}", f"{first}_{rng.randint(80, 99)}", _digits(rng, rng.randint(6, 10)),
                        f"{first}+{rng.choice(['shop', 'news', 'test'])}"])
    domain = rng.choice(["qq.com", "163.com", "126.com", "gmail.com", "outlook.com", "hotmail.com", "foxmail.com",
                         "sina.com", "yahoo.co.jp", "company.cn", "mail.example.org", "uni.edu.cn", "icloud.com"])
    value = f"{local}@{domain}"
    return value.translate(FULL_WIDTH) if rng.random() < 0.05 else value


def ipv4(rng):
    return rng.choice([
        lambda: f"192.168.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
        lambda: f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
        lambda: f"172.{rng.randint(16, 31)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
        lambda: f"{rng.randint(1, 223)}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}",
    ])()


def ipv6(rng):
    groups = [f"{rng.randint(0, 0xFFFF):x}" for _ in range(8)]
    style = rng.randrange(3)
    if style == 0:
        return ":".join(groups)
    if style == 1:
        return "fe80::" + ":".join(groups[:4])
    return "2001:db8::" + groups[0]


def ip(rng):
    return ipv4(rng) if rng.random() < 0.7 else ipv6(rng)


def passport(rng):
    return rng.choice([
        lambda: rng.choice("EG") + _digits(rng, 8),
        lambda: "E" + rng.choice("ABCDEFGH") + _digits(rng, 7),
        lambda: _digits(rng, 9),
        lambda: rng.choice(["K", "P", "C"]) + _digits(rng, 7),
    ])()


def url(rng):
    host = rng.choice(["https://app.example.com", "http://m.shop.cn", "https://login.bank.com.cn", "https://id.example.org",
                       "https://www.example.net", "www.mall.com"])
    token = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(12, 32)))
    return rng.choice([
        lambda: f"{host}/reset?token={token}",
        lambda: f"{host}/verify?email={email(rng).replace('@', '%40')}&code={_digits(rng, 6)}",
        lambda: f"{host}/login?session_id={token}",
        lambda: f"{host}/api/v1/user?access_token={token}&uid={_digits(rng, 8)}",
        lambda: f"{host}/activate?user={email(rng)}",
        lambda: f"{host}/pay/callback?sign={token}&order={_digits(rng, 12)}",
        lambda: f"{host}/share#ticket={token}",
    ])()


VALUES = {"PHONE": phone, "EMAIL": email, "ID_NUMBER": id18, "CARD": card, "IP": ip, "PASSPORT": passport, "URL": url}

# --- lookalikes -----------------------------------------------------------------------------------------------------


def _not_luhn(number):
    return number if not luhn_valid(number) else number[:-1] + str((int(number[-1]) + 1) % 10)


def bad_card(rng):
    number = _not_luhn(rng.choice("456") + _digits(rng, rng.choice((15, 15, 18))))
    return " ".join(number[i:i + 4] for i in range(0, len(number), 4)) if rng.random() < 0.4 else number


def bad_id(rng):
    y, m, d = _birth(rng)
    first = f"{rng.choice(REGIONS)}{y}{m:02d}{d:02d}{_digits(rng, 3)}"
    good = id_check_char(first)
    return first + rng.choice([c for c in "0123456789X" if c != good])


DECOY_VALUES = {
    "year": lambda rng: rng.choice([f"{rng.randint(1949, 2030)}年", f"{rng.randint(1900, 2030)}", f"{rng.randint(1980, 2029)}-{rng.randint(2025, 2035)}"]),
    "price": lambda rng: rng.choice([f"${rng.randint(1, 9)},{rng.randint(0, 999):03d}", f"¥{rng.randint(99, 99999)}",
                                     f"{rng.randint(1, 99)},{rng.randint(0, 999):03d}元", f"￥{rng.randint(1, 999)}.{rng.randint(0, 99):02d}",
                                     f"{rng.randint(1, 999)}.{rng.randint(0, 99):02d} USD", f"{rng.randint(2, 40)}万元"]),
    "measure": lambda rng: rng.choice([f"{rng.randint(1000, 99999)}千米", f"{rng.randint(1, 999)}.{rng.randint(1, 9)}公斤",
                                       f"{rng.choice([1280, 1920, 2560, 3840])}x{rng.choice([720, 1080, 1440, 2160])}",
                                       f"{rng.choice([64, 128, 256, 512])}GB", f"{rng.randint(5, 300)} x {rng.randint(5, 300)} x {rng.randint(5, 300)} mm",
                                       f"{rng.randint(1, 40)}.{rng.randint(0, 9)}英寸", f"{rng.randint(100, 9000)} mAh",
                                       f"{rng.randint(10000, 9000000)} square kilometres"]),
    "date": lambda rng: rng.choice([f"{rng.randint(2000, 2030)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
                                    f"{rng.randint(2000, 2030)}/{rng.randint(1, 12)}/{rng.randint(1, 28)}",
                                    f"{rng.randint(2000, 2030)}年{rng.randint(1, 12)}月{rng.randint(1, 28)}日",
                                    f"{rng.randint(1, 12):02d}/{rng.randint(1, 28):02d}/{rng.randint(2000, 2030)}",
                                    f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}",
                                    f"{rng.randint(2000, 2030)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}"]),
    "version": lambda rng: rng.choice([f"v{rng.randint(1, 20)}.{rng.randint(0, 30)}.{rng.randint(0, 99)}",
                                       f"10.0.{rng.randint(10000, 22631)}.{rng.randint(100, 4000)}",
                                       f"{rng.randint(100, 130)}.0.{rng.randint(1000, 6999)}.{rng.randint(10, 299)}",
                                       f"{rng.randint(1, 9)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}.{rng.randint(0, 9)}",
                                       f"3.{rng.randint(6, 13)}.{rng.randint(0, 15)}", f"{rng.randint(14, 18)}.{rng.randint(0, 7)}.{rng.randint(0, 3)}"]),
    "isbn": lambda rng: rng.choice(["978-7-111-54742-6", "978-0-306-40615-7", "9787020002207", "978-7-5327-5468-3",
                                    "0-306-40615-2", "978-1-4028-9462-6", "9780262033848", "978-7-115-42802-8"]),
    "order": lambda rng: rng.choice([f"{rng.randint(2019, 2026)}{rng.randint(1, 12):02d}{rng.randint(1, 28):02d}{_digits(rng, rng.choice((6, 8, 10)))}",
                                     f"E{_digits(rng, 16)}", f"{rng.choice('789')}{_digits(rng, rng.choice((11, 13, 17)))}",
                                     f"DD{_digits(rng, 12)}"]),
    "tracking": lambda rng: rng.choice([f"SF{_digits(rng, 13)}", f"YT{_digits(rng, 13)}", f"JD{_digits(rng, 13)}",
                                        f"1Z{rng.choice(['999AA1', '12345E', 'A1B2C3'])}{_digits(rng, 10)}",
                                        f"75{_digits(rng, 12)}", f"ZTO{_digits(rng, 12)}", f"LP{_digits(rng, 14)}"]),
    "eleven_digits": lambda rng: rng.choice(["10", "11", "12", "20", "25", "31", "50", "86"]) + _digits(rng, 9),
    "bad_id": bad_id,
    "bad_card": bad_card,
    "code": lambda rng: rng.choice([f"{_digits(rng, 6)}", f"{rng.randint(100000, 999999)}", f"{_digits(rng, 4)}"]),
    "postcode": lambda rng: rng.choice(["100084", "200030", "518057", "310027", "SW1A 1AA", "94103", "10001-1234"]),
    "model": lambda rng: rng.choice(["iPhone 15", "iPhone 15 Pro Max", "SM-G9980", "RTX 4090", "Mate 60 Pro", "MacBook Air M2",
                                     "A2849", "Model 3", "ThinkPad X1 Carbon Gen 11", "Redmi K70"]),
    "amount": lambda rng: rng.choice([f"{rng.randint(1, 999)},{rng.randint(0, 999):03d},{rng.randint(0, 999):03d}",
                                      f"{rng.randint(1, 99)}.{rng.randint(0, 99)}%", f"{rng.randint(-30, 45)}°C",
                                      f"{rng.randint(1, 9)}.{_digits(rng, 8)}", f"{rng.randint(100, 999)}亿"]),
    "plain_url": lambda rng: rng.choice(["https://www.example.com/help", "https://support.apple.com/zh-cn/HT201232",
                                         "http://m.jd.com/product/100012043978.html", "https://docs.python.org/3/library/re.html",
                                         "https://example.org/search?q=phone+cases&page=2", "www.gov.cn/zhengce/index.htm"]),
}

# --- sentence templates, written by hand (one slot {X} each; a few hold a lookalike {D} beside it) --------------

PII_TEMPLATES = {
    "PHONE": {
        "zh": ["我的手机号是{X}，为什么收不到验证码？", "手机{X}一直收不到短信验证码怎么办", "请帮我查一下{X}这个号码是不是欠费停机了",
               "你好，我换号了，新号码{X}，怎么改绑？", "客服电话是不是{X}？", "刚才{X}给我打电话说是快递理赔，是真的吗",
               "麻烦回电{X}，谢谢", "我妈的号码{X}被冻结了", "注册时填错了手机号，填成了{X}，能改吗", "联系人：王先生，电话：{X}",
               "{X}这个号一直打骚扰电话，怎么举报", "座机{X}打不通是怎么回事", "我在{D}买的，留的电话是{X}",
               "请把发票寄到公司，收件电话{X}", "为啥我用{X}登录提示账号不存在？", "紧急联系人电话写{X}可以吗"],
        "en": ["My phone number is {X}, why am I not getting the code?", "Call me back at {X} please",
               "I changed my number to {X}, how do I update it?", "Is {X} your official support line?",
               "Someone from {X} called saying I won a prize, is that a scam?", "You can reach me on {X} after 6pm.",
               "The verification text never arrives on {X}", "why does it say {X} is already registered",
               "pls update my contact number: {X}", "Got a missed call from {X} claiming to be the bank",
               "My order from {D} lists {X} as the delivery phone — is that right?", "text me at {X} when it ships"],
        "bot": ["我们会尽快致电您的手机{X}，请保持畅通。", "We will call you back at {X} within 24 hours.",
                "已为您登记回访号码：{X}。", "Please confirm that {X} is the number on your account."],
    },
    "EMAIL": {
        "zh": ["我的邮箱是{X}，为什么登不上去？", "找回密码的邮件发到{X}了吗", "{X}收不到激活邮件", "请把发票发到{X}",
               "我用{X}注册的，忘记密码了", "邮箱{X}被盗了怎么办", "绑定的邮箱写错了，应该是{X}", "联系邮箱：{X}"],
        "en": ["My email is {X}, why can't I log in?", "Please send the invoice to {X}", "I never got the reset link at {X}",
               "Can you change my login email to {X}?", "{X} says the account is locked", "contact me: {X}",
               "I signed up with {X} in {D} but can't find the account", "Is {X} a legit address or phishing?"],
        "bot": ["重置链接已发送至{X}，请查收。", "We've sent a confirmation email to {X}."],
    },
    "ID_NUMBER": {
        "zh": ["我的身份证号{X}被冻结了怎么办", "身份证{X}显示已被他人注册", "实名认证填的是{X}，为什么审核不通过",
               "我银行卡被冻了，身份证号是{X}", "帮我查下{X}名下有几张卡", "证件号码：{X}", "用{X}办的卡能注销吗",
               "身份证号码{X}，{D}办的，过期了吗"],
        "en": ["My ID number is {X} and the bank froze my card", "Chinese ID {X} fails verification, why?",
               "I entered {X} as my resident ID, is that right?", "Account under ID {X} is locked"],
        "bot": ["您登记的身份证号码为{X}，请核对。"],
    },
    "CARD": {
        "zh": ["我的银行卡{X}被冻结了", "卡号{X}为什么扣了两次钱", "信用卡{X}刷不了", "退款退到{X}这张卡了吗",
               "这张卡{X}能绑定支付宝吗", "尾号不对，完整卡号是{X}", "用{X}付的{D}，订单没显示"],
        "en": ["My card {X} was declined", "Why was {X} charged twice?", "Please refund to card number {X}",
               "credit card {X} got blocked after I paid {D}", "Can I add {X} to Apple Pay?"],
        "bot": ["退款将原路退回至您的卡{X}。"],
    },
    "IP": {
        "zh": ["我的IP是{X}，为什么被封了", "服务器{X}连不上", "路由器后台地址{X}打不开", "登录记录里有个陌生IP {X}",
               "{X}这个地址一直在攻击我们"],
        "en": ["My IP {X} got banned, why?", "Can't reach the server at {X}", "Unknown login from {X} — was I hacked?",
               "whitelist {X} please", "the router admin page at {X} won't load"],
        "bot": ["检测到来自{X}的异常登录，已为您冻结账号。"],
    },
    "PASSPORT": {
        "zh": ["护照号{X}，签证办理进度怎么查", "我的护照号码是{X}，订票时填错了", "护照{X}丢了怎么办", "机票上的护照号写的{X}对吗"],
        "en": ["My passport number is {X}, can I still check in?", "passport no. {X} expired, what now?",
               "I typed passport {X} on the booking", "Passport: {X}"],
        "bot": [],
    },
    "URL": {
        "zh": ["点{X}这个链接提示过期了", "收到一个链接{X}，安全吗", "重置密码的链接{X}打不开", "我复制了{X}但是没反应"],
        "en": ["The link {X} says it expired", "Is {X} a phishing link?", "clicking {X} gives a 404",
               "your email had {X} but nothing happens"],
        "bot": ["请点击{X}完成验证。"],
    },
}

# lookalike templates: {D} is the lookalike; the sentence holds no personal data
DECOY_TEMPLATES = {
    "zh": ["长城有多长？据说是{D}", "{D}的春节是几号", "这款手机卖{D}贵吗", "屏幕分辨率{D}够用吗", "订单号{D}什么时候发货",
           "快递单号{D}查不到物流", "{D}之前买的能退吗", "最新版本{D}有什么新功能", "ISBN {D}是哪本书", "我的订单{D}显示已签收",
           "为什么{D}的账单这么高", "{D}到期的会员怎么续费", "系统升级到{D}后闪退", "体重{D}算超重吗", "验证码{D}输入后提示错误",
           "邮编{D}是哪里", "{D}和上一代有什么区别", "编号{D}的工单处理了吗", "充值{D}没到账", "运单{D}卡在中转站三天了",
           "流水号{D}查询失败", "{D}那天的航班取消了吗", "请问{D}是什么意思", "这个数字{D}是什么"],
    "en": ["How long is the Great Wall, {D}?", "Is {D} too expensive for a phone?", "order {D} hasn't shipped yet",
           "tracking number {D} shows no updates", "What changed in version {D}?", "Book with ISBN {D} — is it in stock?",
           "Why did the price jump to {D}?", "My subscription renews on {D}, can I cancel?", "The app crashes since {D}",
           "is {D} enough for gaming", "reference number {D} — any news?", "the code {D} doesn't work",
           "What happened in {D}?", "Does {D} support 5G?", "ticket {D} was closed without reply", "what's the zip {D} for",
           "I paid {D} but got nothing", "invoice {D} is wrong", "my account number is {D}? no wait that's the order",
           "Can you explain {D}?"],
}


def _fill(template: str, value: str, decoy: tuple[str, str] | None):
    """(text, value span, decoy span or None)."""
    text, spans = "", {}
    for part in re.split(r"(\{X\}|\{D\})", template):
        if part == "{X}":
            spans["X"] = (len(text), len(text) + len(value))
            text += value
        elif part == "{D}":
            assert decoy is not None
            spans["D"] = (len(text), len(text) + len(decoy[1]))
            text += decoy[1]
        else:
            text += part
    return text, spans.get("X"), spans.get("D")


def _decoy(rng, kinds=None):
    what = rng.choice(kinds or sorted(DECOY_VALUES))
    return what, DECOY_VALUES[what](rng)


def items(rng: random.Random) -> list[dict]:
    out = []
    for kind, n in PER_KIND.items():
        pool = [(lang, t) for lang in ("zh", "en", "bot") for t in PII_TEMPLATES[kind][lang]]
        for i in range(n):
            lang, template = pool[i % len(pool)] if i < len(pool) else rng.choice(pool)
            if kind == "ID_NUMBER" and rng.random() < 0.1 and ("身份证" in template or "ID" in template):
                value = id15(rng)
            else:
                value = VALUES[kind](rng)
            decoy = _decoy(rng, ["year", "price", "date", "model", "measure"]) if "{D}" in template else None
            text, span, dspan = _fill(template, value, decoy)
            out.append({"text": text, "lang": "zh" if re.search("[\u4e00-\u9fff]", template) else "en",
                        "spans": [[*span, kind]],
                "decoys": [[*dspan, decoy[0]]] if dspan else [], "template": f"{kind}:{lang}:{template}"})
    pool = [(lang, t) for lang in ("zh", "en") for t in DECOY_TEMPLATES[lang]]
    whats = sorted(DECOY_VALUES)
    for i in range(DECOYS):
        lang, template = rng.choice(pool)
        decoy = (whats[i % len(whats)], DECOY_VALUES[whats[i % len(whats)]](rng))
        text, _, dspan = _fill(template, "", decoy)
        out.append({"text": text, "lang": lang, "spans": [], "decoys": [[*dspan, decoy[0]]],
                    "template": f"decoy:{lang}:{template}"})
    return out


def main(argv: list[str] | None = None) -> int:
    return write_set(items, SEED, OUT, __doc__, argv)


def write_set(make_items, seed: int, default_out: Path, doc: str, argv: list[str] | None = None) -> int:
    """The command of a generated set: ``make_items(random.Random(seed))`` written as JSON lines to ``--out``."""
    import argparse

    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--out", default=str(default_out))
    out = Path(ap.parse_args(argv).out)
    rows = make_items(random.Random(seed))
    with out.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    spans = sum(len(r["spans"]) for r in rows)
    decoys = sum(len(r["decoys"]) for r in rows)
    print(f"{len(rows)} sentences, {spans} personal-data spans, {decoys} lookalikes -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
