"""The text view: what a text says, whatever invisible or look-alike characters it is written with. Two texts that
display the same share a key; what is shown keeps every visible character and the invisible ones that draw."""

import unicodedata

import pytest

from schemas.text import (clean_surface, has_lookalikes, is_invisible, match_text, normalize_key, strip_invisible,
                          visible_text)

# every invisible character a log could hide inside a word (Unicode's default-ignorable code points)
HIDDEN = ["\u200b", "\u200c", "\u200d", "\u2060", "\u2066", "\u2069", "\u202e", "\u200e", "\ufeff", "\u00ad",
          "\u034f", "\u180e", "\ufe0f", "\U000e0041", "\u3164", "\u2063"]


@pytest.mark.parametrize("ch", HIDDEN)
def test_an_invisible_character_inside_a_word_changes_neither_key_nor_shown_text(ch):
    q = f"How do I reset my pass{ch}word?"
    assert is_invisible(ch)
    assert normalize_key(q) == normalize_key("How do I reset my password?")
    assert clean_surface(q) == "How do I reset my password?"


@pytest.mark.parametrize("fake, real", [
    ("What is the boiling point of w\u0430ter?", "What is the boiling point of water?"),  # Cyrillic а
    ("\u0420\u0430ypal login", "Paypal login"),  # Cyrillic Р and а
    ("How do I reset my \u0440\u0430ssw\u043erd?", "How do I reset my password?"),  # р а о
    ("What is \u03bfxygen?", "What is oxygen?"),  # Greek ο
    ("\u0406s it safe?", "Is it safe?"),  # Cyrillic І stands for a capital I, not an l
    ("What is the boiling point of w\u0430\u200bter？", "what is the boiling point of water"),
])
def test_lookalike_letters_of_another_script_share_the_key_of_the_latin_text(fake, real):
    assert normalize_key(fake) == normalize_key(real)
    assert has_lookalikes(fake) and not has_lookalikes(real)


def test_lookalike_letters_are_shown_as_typed():
    q = "What is the boiling point of w\u0430ter?"
    assert clean_surface(q) == q


@pytest.mark.parametrize("text", [
    "Что такое вода?",  # a Russian word with letters that are no look-alikes stays Cyrillic
    "Ελληνικά γράμματα",
    "长城有多长",
    "rn and m are two spellings",  # Latin letters are never folded to each other
    "passw0rd",
    "été à Noël",
])
def test_text_of_one_script_keeps_its_letters(text):
    assert match_text(text) == unicodedata.normalize("NFKC", text)
    assert not has_lookalikes(text)


def test_latin_letters_that_look_alike_stay_different_questions():
    assert normalize_key("How do I burn a CD?") != normalize_key("How do I bum a CD?")
    assert normalize_key("What is 0l?") != normalize_key("What is Ol?")


@pytest.mark.parametrize("text", [
    "👩\u200d💻 how do I code?",  # a joiner inside an emoji sequence
    "I ❤\ufe0f tea",  # an emoji's variation selector
    "نمی\u200cخواهم",  # Persian's non-joiner
    "क्\u200dष",  # an Indic conjunct's joiner
    "\U0001f3f4\U000e0067\U000e0062\U000e0065\U000e006e\U000e0067\U000e007f flag",  # England's flag
])
def test_invisible_characters_that_draw_are_shown(text):
    assert visible_text(text) == text
    assert clean_surface(text) == text


def test_the_match_view_and_key_are_idempotent():
    for text in ["What is the boiling point of w\u0430ter?", "pass\u200bword", "長城有多長\u2066?", "👩\u200d💻"]:
        assert match_text(match_text(text)) == match_text(text)
        assert normalize_key(normalize_key(text)) == normalize_key(text)
        assert normalize_key(match_text(text)) == normalize_key(text)


def test_strip_invisible_removes_every_default_ignorable_character():
    assert strip_invisible("a\u200bb\u2066c\u2069d\ufeff") == "abcd"
    assert strip_invisible("plain ascii") == "plain ascii"


def test_the_shown_form_of_a_question_prefers_its_own_letters_however_often_the_lookalike_is_logged():
    from pipelines.stages.count import shown_form

    forms = {"What is the boiling point of w\u0430ter?": 8, "What is the boiling point of water?": 5}
    assert shown_form(forms) == "What is the boiling point of water?"
    assert shown_form({"What is the boiling point of w\u0430ter?": 3}) == "What is the boiling point of w\u0430ter?"
