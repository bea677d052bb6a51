"""The personal-data recognisers and the redactor (schemas.privacy)."""

import pickle
import re

import pytest

from schemas.privacy.redactor import Redactor
from schemas.privacy.checks import cn_id15_valid, cn_id18_valid, id_check_char, luhn_valid
from schemas.text import normalize_key

R = Redactor.of()


def test_checksums():
    assert luhn_valid("4111111111111111") and not luhn_valid("4111111111111112")
    assert id_check_char("11010519491231002") == "X"
    assert cn_id18_valid("11010519491231002X") and cn_id18_valid("11010519491231002x")
    assert not cn_id18_valid("110105194912310021")  # wrong check digit
    assert not cn_id18_valid("110105194902300027")  # 30 February
    assert cn_id15_valid("110105491231002") and not cn_id15_valid("110105491331002")


@pytest.mark.parametrize("text, expected", [
    ("我的手机号是13812345678，为什么收不到验证码？", "我的手机号是<PHONE>，为什么收不到验证码？"),
    ("电话13812345678", "电话<PHONE>"),
    ("手机：+86 138-1234-5678", "手机：<PHONE>"),
    ("联系0086 13912345678谢谢", "联系<PHONE>谢谢"),
    ("客服电话（010）8765-4321转123", "客服电话<PHONE>"),
    ("座机021-62345678", "座机<PHONE>"),
    ("call me at +1 (415) 555-0132 or 415-555-0132", "call me at <PHONE> or <PHONE>"),
    ("UK office +44 20 7946 0958.", "UK office <PHONE>."),
    ("电话+852 9123 4567", "电话<PHONE>"),
    ("身份证11010519491231002X被冻结了", "身份证<ID_NUMBER>被冻结了"),
    ("my ID is 110105 19491231 002X", "my ID is <ID_NUMBER>"),
    ("老身份证号110105491231002", "老身份证号<ID_NUMBER>"),
    ("card 4111 1111 1111 1111 declined", "card <CARD> declined"),
    ("卡号6222021234567890128冻结", "卡号<CARD>冻结"),
    ("email john.doe+x@example.co.uk pls", "email <EMAIL> pls"),
    ("邮箱ａｂｃ＠ｑｑ．ｃｏｍ登不上", "邮箱<EMAIL>登不上"),
    ("服务器IP是192.168.1.10吗", "服务器IP是<IP>吗"),
    ("blocked from fe80::1ff:fe23:4567:890a today", "blocked from <IP> today"),
    ("护照号码E12345678过期", "护照号码<PASSPORT>过期"),
    ("my passport number is 912345678", "my passport number is <PASSPORT>"),
    ("open https://x.com/reset?token=abcdef123456 now", "open <URL> now"),
    ("see https://a.b/c?u=jo%40x.com", "see <URL>"),
    ("手机号１３８１２３４５６７８", "手机号<PHONE>"),
])
def test_finds_personal_data(text, expected):
    assert R.redact_text(text) == expected


@pytest.mark.parametrize("text", [
    "长城长21196千米", "2023年", "iPhone 15", "$1,299", "版本1.2.3.4", "订单号2023112512345678",
    "时间12:30:45", "ISBN 978-7-111-54742-6", "运单号SF1234567890123", "12345678901", "110105194912310021",
    "4111111111111112", "Python 3.11.4", "5 x 10 x 20 cm", "on 2024-03-15", "https://example.com/page?id=12",
    "版本号v10.0.19045", "尺寸1920x1080", "价格￥3999", "passport renewal takes 6 weeks", "邮编100084",
])
def test_leaves_lookalikes(text):
    assert R.redact_text(text) == text


def test_one_key_for_many_numbers():
    keys = {normalize_key(R.redact_text(f"我的手机号是1{d}812345678，为什么收不到验证码？")) for d in range(3, 10)}
    assert keys == {"我的手机号是<phone>,为什么收不到验证码"} or len(keys) == 1
    (key,) = keys
    assert "<phone>" in key  # placeholders survive the key: < and > are symbols, not punctuation; case folds


def test_placeholders_are_not_matched_again():
    own = Redactor.of(custom=(("EMPLOYEE_ID", r"E\d{6}"), ("WORD", r"[A-Za-z]{5,}")))
    once = own.redact("工号E123456, phone 13812345678")
    assert once.text == "工号<EMPLOYEE_ID>, <WORD> <PHONE>"
    assert once.counts == {"EMPLOYEE_ID": 1, "WORD": 1, "PHONE": 1}
    assert own.redact_text(once.text) == once.text
    assert not own.matches(normalize_key(once.text))


def test_kinds_choose_recognisers():
    only_email = Redactor.of(kinds=("EMAIL",))
    assert only_email.redact_text("a@b.com 13812345678") == "<EMAIL> 13812345678"
    assert not Redactor.of(kinds=()).active


def test_overlaps_go_to_the_longest():
    # an e-mail inside a URL's query: one URL; an ID number that also passes Luhn stays an ID number
    assert R.redact_text("https://x.com/?to=jo@x.com") == "<URL>"
    assert R.redact("身份证11010519491231002X").counts == {"ID_NUMBER": 1}


def test_cut_preview_tail():
    assert R.redact_preview('{"question": "电话1381234…') == '{"question": "电话<CUT>…'
    assert R.redact_preview("ok 13812345678") == "ok <PHONE>"


def test_pickles():
    again = pickle.loads(pickle.dumps(Redactor.of(custom=(("X", r"X\d+"),))))
    assert again.redact_text("X12, 13812345678") == "<X>, <PHONE>"


def test_privacy_config_makes_the_redactor():
    from schemas.config import config_from_dict

    cfg = config_from_dict({"privacy": {"kinds": ["EMAIL"], "patterns": [{"name": "EMPLOYEE_ID", "pattern": r"E\d{6}"}]}})
    assert cfg.privacy.redactor().redact_text("E123456 a@b.com 13812345678") == "<EMPLOYEE_ID> <EMAIL> 13812345678"
    assert not config_from_dict({"privacy": {"redact": False}}).privacy.redactor().active
    assert cfg.config_hash() != config_from_dict({}).config_hash()


@pytest.mark.parametrize("privacy, message", [
    ({"patterns": [{"name": "EMPLOYEE_ID", "pattern": r"E(\d{6}"}]}, "privacy.patterns[0].pattern is not a valid"),
    ({"patterns": [{"name": "employee", "pattern": "E"}]}, "privacy.patterns[0].name must be upper case"),
    ({"patterns": [{"name": "X"}]}, "privacy.patterns[0] needs name, pattern"),
    ({"patterns": [{"name": "X", "pattern": "a*"}]}, "matches the empty string"),
    ({"kinds": ["SSN"]}, "privacy.kinds: 'SSN' is not a kind"),
])
def test_bad_privacy_config_is_one_error(privacy, message):
    from schemas.config import config_from_dict
    from schemas.errors import ConfigError

    with pytest.raises(ConfigError, match=re.escape(message)):
        config_from_dict({"privacy": privacy})


def test_a_bad_pattern_stops_the_build_with_one_error_line(tmp_path, capsys):
    from pipelines import build_base

    config = tmp_path / "bad.yaml"
    config.write_text('privacy:\n  patterns:\n    - {name: EMPLOYEE_ID, pattern: "E(\\\\d{6}"}\n', encoding="utf-8")
    logs = tmp_path / "logs.jsonl"
    logs.write_text('{"question": "q?", "answer": "a"}\n', encoding="utf-8")
    assert build_base.main(["--input", str(logs), "--output", str(tmp_path / "base"), "--config", str(config),
                            "-q"]) == 2
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: config: privacy.patterns[0].pattern"), lines
    assert not (tmp_path / "base").exists()


def test_models_that_judge_wording_read_a_stand_in_for_each_placeholder():
    from schemas.privacy.redactor import Redactor, with_stand_ins

    red = Redactor.of()
    redacted = red.redact_text("我的手机号是13812345678，邮箱a.li@example.cn，为什么收不到验证码？")
    assert redacted == "我的手机号是<PHONE>，邮箱<EMAIL>，为什么收不到验证码？"
    read = with_stand_ins(redacted)
    assert "<" not in read and read.count("12345") == 2
    assert not red.findings(read)  # the stand-in is no one's value: nothing to find in it
    assert with_stand_ins("use <br> or <code>x</code>, not <EMPLOYEE_ID>") == "use <br> or <code>x</code>, not 12345"


def test_a_redacted_chinese_question_keeps_its_grammar_score():
    # before: the zh n-gram scorer read "<PHONE>" as ungrammatical (0.36 against 0.97), and every redacted
    # Chinese question left the base as low_gec
    from models.gec.base import GecJudge

    class Shape:  # a scorer that sees what it is given: 1.0 for plain words and digits, 0 for angle brackets
        model_id = "shape"

        def score(self, texts):
            return [(0.0 if "<" in t else 1.0, {}) for t in texts]

    judged = GecJudge(Shape(), Shape()).judgements(["我的手机号是<PHONE>，为什么？", "Mail <EMAIL> now"], ["zh", "en"])
    assert [j.score for j in judged] == [1.0, 1.0]


# --- values written to slip past: invisible characters, dots and mixed separators, spelled-out e-mails -------------

ZW = "\u200b"  # zero-width space

# the six values a probe of the published base found (each split or spelled so that the patterns missed it), and
# landlines whose local number starts with 0 or 1
PROBES = [
    (f"我的手机号是138{ZW}1234{ZW}5678，收不到验证码", "我的手机号是<PHONE>，收不到验证码"),
    (f"身份证110105{ZW}19491231{ZW}002X被冻结了", "身份证<ID_NUMBER>被冻结了"),
    (f"card 4111{ZW}1111{ZW}1111{ZW}1111 declined", "card <CARD> declined"),
    (f"email john{ZW}.doe@exa{ZW}mple.com pls", "email <EMAIL> pls"),
    ("call 137.7777.8888 now", "call <PHONE> now"),
    ("mail name [at] example [dot] com please", "mail <EMAIL> please"),
    ("座机0755-01234567", "座机<PHONE>"),
    ("电话010-12345678转801", "电话<PHONE>"),
    ("北京010-1234 5678", "北京<PHONE>"),
    ("fax (0755)0123.4567", "fax <PHONE>"),
]


@pytest.mark.parametrize("text, expected", PROBES + [
    # mobiles, landlines, ID numbers, cards and international numbers grouped by any separators, mixed
    ("手机138-1234 5678", "手机<PHONE>"), ("手机138 1234-5678", "手机<PHONE>"), ("手机+86 137.7777.8888", "手机<PHONE>"),
    ("手机138\u00a01234\u00a05678", "手机<PHONE>"), ("手机138–1234–5678", "手机<PHONE>"),
    (f"手机1{ZW}3{ZW}8{ZW}1{ZW}2{ZW}3{ZW}4{ZW}5{ZW}6{ZW}7{ZW}8", "手机<PHONE>"),
    ("座机021.6234.5678", "座机<PHONE>"), (f"座机021{ZW}62345678", "座机<PHONE>"),
    ("ID 110105-19491231-002X", "ID <ID_NUMBER>"), ("ID 1101 0519 4912 3100 2X", "ID <ID_NUMBER>"),
    ("卡号4111 1111-1111 1111", "卡号<CARD>"), ("卡号4111.1111.1111.1111", "卡号<CARD>"),
    (f"ring +44{ZW}20{ZW}7946{ZW}0958", "ring <PHONE>"), ("ring +44 20.7946-0958", "ring <PHONE>"),
    (f"服务器IP是192.168{ZW}.1.10吗", "服务器IP是<IP>吗"),
    # e-mails spelled out where the result can only be an address
    ("mail name(at)example(dot)com", "mail <EMAIL>"), ("mail name {at} example.com", "mail <EMAIL>"),
    ("mail name AT example DOT com", "mail <EMAIL>"), ("mail name at example dot com", "mail <EMAIL>"),
    ("mail name AT example.com", "mail <EMAIL>"), ("write to tom at gmail.com", "write to <EMAIL>"),
    ("邮箱：zhangsan［at］qq．com", "邮箱：<EMAIL>"), ("邮箱zhangsan【at】163.com", "邮箱<EMAIL>"),
    ("邮箱zhangsan（at）qq（dot）com", "邮箱<EMAIL>"), ("邮箱是xiaoming艾特163点com", "邮箱是<EMAIL>"),
    ("QQ邮箱123456789#qq.com（#换成@）", "QQ邮箱<EMAIL>（#换成@）"), ("mail kevin@gmail[.]com", "mail <EMAIL>"),
    ("mail name<at>example.com", "mail <EMAIL>"), ("reach me: john @ gmail.com", "reach me: <EMAIL>"),
    ("contact me at john dot smith at gmail dot com", "contact me at <EMAIL>"),
    ("my email is first dot last at company dot com", "my email is <EMAIL>"),
    # a list's items (a dot after the item's number is no decimal point), a number then a time
    ("联系方式：1.13812345678（张）2.13912345678（李）", "联系方式：1.<PHONE>（张）2.<PHONE>（李）"),
    ("我的手机13812345678 2点以后打", "我的手机<PHONE> 2点以后打"),
    # invisible characters outside a value stay where they were
    (f"电话{ZW}13812345678{ZW}。", f"电话{ZW}<PHONE>{ZW}。"),
])
def test_finds_values_written_to_slip_past(text, expected):
    assert R.redact_text(text) == expected
    assert R.redact_text(expected) == expected  # redacting twice changes nothing


@pytest.mark.parametrize("text, value, kind", [
    (f"我的手机号是138{ZW}1234{ZW}5678，收不到验证码", f"138{ZW}1234{ZW}5678", "PHONE"),
    (f"身份证110105{ZW}19491231{ZW}002X被冻结了", f"110105{ZW}19491231{ZW}002X", "ID_NUMBER"),
    (f"card 4111{ZW}1111{ZW}1111{ZW}1111 declined", f"4111{ZW}1111{ZW}1111{ZW}1111", "CARD"),
    (f"email john{ZW}.doe@exa{ZW}mple.com pls", f"john{ZW}.doe@exa{ZW}mple.com", "EMAIL"),
    (f"{ZW}x {ZW}邮箱ａ{ZW}ｂ＠ｑｑ．ｃｏｍ{ZW}。", f"ａ{ZW}ｂ＠ｑｑ．ｃｏｍ", "EMAIL"),
])
def test_a_finding_is_the_whole_value_in_the_original(text, value, kind):
    # the span is the original's: the value with the invisible characters inside it, nothing around it; the rest of
    # the text is kept as it was
    start = text.index(value)
    end = start + len(value)
    assert [(f.kind, f.start, f.end) for f in R.findings(text)] == [(kind, start, end)]
    assert R.redact_text(text) == text[:start] + f"<{kind}>" + text[end:]


def test_the_view_drops_invisible_characters_and_keeps_their_places():
    from schemas.privacy.recognizers import match_view

    plain = "ok 13812345678"
    assert match_view(plain) == (plain, None)  # ASCII: the text itself, no map
    assert match_view("手机１３８") == ("手机138", None)  # folded one for one: no map either
    view, origin = match_view(f"a{ZW}b\u00a0c{ZW}{ZW}ｄ")
    assert view == "ab cd" and origin == (0, 2, 3, 4, 7)


@pytest.mark.parametrize("text", [
    # versions, dates, prices, order and tracking numbers, model numbers, times, arithmetic, ISBNs, years,
    # percentages, sizes, coordinates
    "版本1.2.3.4", "v13.7.7777", "Chrome 137.0.7151.55", "2023.10.15", "2023-10-15", "15.10.2023", "价格¥1,388.00",
    "订单号2023.1015.1234.5678", "order 112-3456789-1234567", "快递SF1234 5678 9012", "型号SM-G9980", "13:45:30",
    "138 + 1234 = 1372", "3.14159265 × 2", "ISBN 978-7-111-54742-6", "978.7.5327.5468.3", "2024年", "13.8%",
    "1920x1080", "138.5 x 77.7 x 8.88 mm", "坐标139.69171234", "N 31.2304°, E 121.4737°",
    # near misses written the same ways: a decimal, one digit too many, no mobile prefix, a wrong check digit,
    # failing Luhn, too short a landline, a decimal before a mobile's digits
    "138.12345678", "138.1234.56789", f"120{ZW}1234{ZW}5678", f"110105{ZW}19491231{ZW}0021",
    "4111-1111 1111-1112", "010-123456", "0.13812345678",
    # "at" and "dot" as words
    "meet me at example.com", "I'm at home dot com", "I am at home dot com", "look at this dot com bubble",
    "my account at gmail.com is locked", "sign in at outlook.com", "he works at Google dot com",
    "available at Walmart dot com", "MEET JOHN AT EXAMPLE.COM", "AT&T at 5pm", "at least 3 dots", "C# at work",
    "the meeting at 10 dot 30", "polka dot dress at Zara",
])
def test_leaves_lookalikes_written_the_same_ways(text):
    assert R.redact_text(text) == text


def test_only_placeholders_of_a_kind_are_left_alone():
    assert R.redact_text("<PHONE> <phone> <EMPLOYEE_ID>") == "<PHONE> <phone> <EMPLOYEE_ID>"
    assert R.redact_text("mail john<at>example.com") == "mail <EMAIL>"  # <at> is no placeholder
