from schemas.text import detect_lang, normalize_key, question_id


def test_normalize_key_folds_case_width_space_and_trailing_punctuation():
    assert normalize_key("  What   is the Capital of FRANCE?? ") == "what is the capital of france"
    assert normalize_key("What is the capital of France？") == "what is the capital of france"
    assert normalize_key("中国的首都是哪里？") == normalize_key("中国的首都是哪里。") == "中国的首都是哪里"
    assert normalize_key("ＡＢＣ，") == "abc"  # NFKC folds full-width letters
    assert normalize_key("e.g. what?!") == "e.g. what"  # only trailing punctuation goes
    assert normalize_key("???") == ""


def test_detect_lang():
    assert detect_lang("How do I reset my password?") == "en"
    assert detect_lang("怎么重置密码？") == "zh"
    assert detect_lang("Python怎么安装") == "zh"
    assert detect_lang("How do I say 你好 in a long English sentence here") == "mixed"
    assert detect_lang("12345 ???") == "other"


def test_question_id_is_stable_and_distinct():
    assert question_id("a") == question_id("a")
    assert question_id("a") != question_id("b")
    assert question_id("a").startswith("q_")


def test_traditional_and_simplified_forms_share_a_key():
    from schemas.text import clean_surface

    assert normalize_key("長城有多長？") == normalize_key("长城有多长") == "长城有多长"
    assert normalize_key("為什麼我的卡被拒絕了") == normalize_key("为什么我的卡被拒绝了")
    assert normalize_key("頭髮") == normalize_key("头发")
    # character by character: a folded key folds to itself, and Latin text is untouched
    key = normalize_key("臺灣的乾隆皇帝著作後來怎麼樣")
    assert normalize_key(key) == key
    assert normalize_key("How long is the Great Wall?") == "how long is the great wall"
    # the surface form shown to people stays as logged
    assert clean_surface(" 長城有多長 ") == "長城有多長"


def test_script_language_decides_east_asian_text_without_a_model():
    from schemas.text import script_counts, script_language

    def lang(t):
        return script_language(script_counts(t))

    assert lang("长城有多长") == lang("長城有多長") == "zh"
    assert lang("Python怎么安装") == "zh"
    assert lang("How do I say 你好 in a long English sentence here") == "mixed"
    assert lang("日本の首都はどこですか") == "ja"
    assert lang("谁知道日语フルモード是什么意思") == "zh"  # Chinese quoting Japanese
    assert lang("비밀번호를 어떻게 재설정하나요?") == "ko"
    assert lang("12345 ???") == "other"
    assert lang("How do I reset my password?") is None  # a model must tell
    assert lang("Как сбросить пароль?") is None


def test_language_code_of_tags_and_labels():
    from schemas.text import language_code

    assert [language_code(t) for t in ("zh-CN", "zh_TW", "en-US", "FR", "fr-FR", "eng", "French", "ko")] == [
        "zh", "zh", "en", "fr", "fr", "en", "fr", "ko"]
    assert [language_code(t) for t in ("", "  ", "xx", "mixed", None, 3)] == [None] * 6


def test_display_width_counts_wide_characters_as_two_columns():
    from schemas.text import display_width

    assert display_width("") == 0
    assert display_width("abc") == 3
    assert display_width("长城") == 4
    assert display_width("ＡＢ") == 4  # full-width Latin letters are wide too
    assert display_width("a长b") == 4


def test_pad_to_width_aligns_a_column_holding_cjk_text():
    from schemas.text import pad_to_width

    assert pad_to_width("长城", 6) == "长城  "
    assert pad_to_width("ab", 6) == "ab    "
    assert pad_to_width("长城有多长", 6) == "长城有多长"  # wider than the column: as it is, never cut


def test_clip_to_width_cuts_at_columns_not_characters():
    from schemas.text import clip_to_width, display_width

    assert clip_to_width("short", 10) == "short"
    assert clip_to_width("长城有多长", 6) == "长城…"  # 2 + 2 columns, then the ellipsis: 5 of 6
    assert clip_to_width("abcdefgh", 6) == "abcde…"
    assert clip_to_width("abcdef", 6) == "abcde…"  # taking every column: cut, as the tables always did
    assert all(display_width(clip_to_width("长a城b有c多d长" * 3, w)) <= w for w in range(1, 30))
