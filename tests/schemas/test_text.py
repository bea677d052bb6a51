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
