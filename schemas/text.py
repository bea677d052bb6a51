"""Pure text helpers: normalised keys, scripts and language codes, and widths in terminal columns."""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from typing import NamedTuple

_WS = re.compile(r"\s+")
# whitespace and control characters (C0, DEL, C1: no text shows them; NUL, ESC, ... in logs are debris)
_WS_OR_CONTROL = re.compile(r"[\s\x00-\x1f\x7f-\x9f]+")
# UTF-16 halves on their own: JSON's "\ud800" makes one; no UTF-8 encoder takes them
_SURROGATE = re.compile("[\ud800-\udfff]")
# Han ideographs (as _is_cjk): Unified, Extension A, Compatibility, Extension B
_HAN_RANGES = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0xF900, 0xFAFF), (0x20000, 0x2A6DF))
_HAN = re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _HAN_RANGES) + "]")
_KANA = re.compile("[\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9d]")
_HANGUL = re.compile("[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\ud7b0-\ud7ff]")
_LATIN = re.compile("[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff]")
_LETTER = re.compile(r"[^\W\d_]")
# common Chinese function characters that Japanese does not write: kana beside one of them are quoted words
_ZH_ONLY = re.compile("[是什么吗呢这们个怎谁哪吧说啥咋麼嗎們這沒說]")

# ISO 639-1: the codes a detected or logged language is given in (besides "mixed" and "other")
ISO_639_1 = frozenset("""
aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo
es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka
kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng
nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su
sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu""".split())
# a few ISO 639-2/3 codes and English names that logs and classifiers use instead
_LANGUAGE_ALIASES = {
    "eng": "en", "english": "en", "zho": "zh", "chi": "zh", "cmn": "zh", "yue": "zh", "wuu": "zh",
    "chinese": "zh", "mandarin": "zh", "cantonese": "zh", "fra": "fr", "fre": "fr", "french": "fr",
    "spa": "es", "spanish": "es", "deu": "de", "ger": "de", "german": "de", "rus": "ru", "russian": "ru",
    "kor": "ko", "korean": "ko", "jpn": "ja", "japanese": "ja", "por": "pt", "portuguese": "pt",
    "ita": "it", "italian": "it", "ara": "ar", "arabic": "ar",
}


def _is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return (
        0x4E00 <= cp <= 0x9FFF  # CJK Unified Ideographs
        or 0x3400 <= cp <= 0x4DBF  # Extension A
        or 0x20000 <= cp <= 0x2A6DF  # Extension B
        or 0xF900 <= cp <= 0xFAFF  # Compatibility Ideographs
    )


def normalize_key(text: str) -> str:
    """A question's key: its :func:`match_text` (NFKC, invisible characters gone, look-alike letters of other
    scripts folded to Latin) with whitespace collapsed, case-folded, traditional Chinese characters folded to
    simplified (長城有多長 and 长城有多长 share a key), trailing punctuation (ASCII and full-width) stripped. Two
    texts that display the same share a key, so they are one question for counting, merging, review decisions and
    search alike."""
    s = _WS.sub(" ", match_text(text)).strip().casefold()
    if _HAN.search(s):
        s = s.translate(_t2s_table())
    end = len(s)
    while end > 0 and (unicodedata.category(s[end - 1]).startswith("P") or s[end - 1].isspace()):
        end -= 1
    return s[:end]


# --- the match view: what a text says, whatever invisible or look-alike characters it is written with ----------

# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15) and the interlinear annotation
# marks: characters no font draws. Soft hyphen, combining grapheme joiner, Arabic letter mark, Hangul fillers,
# Khmer inherent vowels, Mongolian variation selectors and vowel separator, zero-width space / (non-)joiners,
# direction marks, embeddings and isolates, word joiner, invisible operators, variation selectors, BOM,
# tags and their variation selectors.
_IGNORABLE_RANGES = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFFB), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF))
_IGNORABLE = re.compile("[" + "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _IGNORABLE_RANGES) + "]")
_ZWJ, _ZWNJ = "\u200d", "\u200c"
_BLACK_FLAG = "\U0001f3f4"


def is_invisible(ch: str) -> bool:
    """Whether ``ch`` is a character no font draws (Unicode's default-ignorable code points): zero-width space and
    joiners, direction marks and isolates, BOM, soft hyphen, variation selectors, tags, Hangul fillers, ..."""
    return _IGNORABLE.match(ch) is not None


def has_invisible(text: str) -> bool:
    """Whether ``text`` holds an invisible character (:func:`is_invisible`): a search, no copy of the text."""
    return not text.isascii() and _IGNORABLE.search(text) is not None


def invisible_ranges() -> tuple[tuple[int, int], ...]:
    """The code point ranges of :func:`is_invisible` (first, last), for a page's script to read text the same way."""
    return _IGNORABLE_RANGES


def strip_invisible(text: str) -> str:
    """``text`` without any invisible character (:func:`is_invisible`)."""
    return _IGNORABLE.sub("", text) if not text.isascii() else text


def _joining_script(ch: str) -> bool:
    # Hebrew to Myanmar, and the other scripts of South and South-East Asia, where (non-)joiners choose a
    # letter's shape: Persian's ZWNJ, Indic conjuncts' ZWJ
    return "\u0590" <= ch <= "\u1cff" or "\ua800" <= ch <= "\uabff"


def _pictograph(ch: str) -> bool:
    return (ch > "\u2000" and unicodedata.category(ch) in ("So", "Sk")) or "\U0001f300" <= ch <= "\U0001faff"


def _invisible_does_work(text: str, i: int) -> bool:
    """Whether the invisible character at ``text[i]`` changes how its neighbours are drawn, so showing the text
    without it would show something else: a joiner inside an emoji sequence (👩‍💻) or between letters of a
    joining script, a variation selector after a symbol or Han character (❤️, 1️⃣, 葛󠄀), the tags of a
    subdivision flag (🏴 England)."""
    ch = text[i]
    before = text[i - 1] if i else ""
    after = text[i + 1] if i + 1 < len(text) else ""
    if ch in (_ZWJ, _ZWNJ):
        if not before or not after:
            return False
        if ch == _ZWJ and (_pictograph(before) or before == "\ufe0f") and _pictograph(after):
            return True
        return _joining_script(before) and _joining_script(after)
    if "\ufe00" <= ch <= "\ufe0f" or "\U000e0100" <= ch <= "\U000e01ef":
        return bool(before) and not before.isspace() and (not before.isalpha() or _HAN.match(before) is not None)
    if "\U000e0020" <= ch <= "\U000e007f":
        j = i
        while j > 0 and "\U000e0020" <= text[j - 1] <= "\U000e007f":
            j -= 1
        return j > 0 and text[j - 1] == _BLACK_FLAG
    return False


def visible_text(text: str) -> str:
    """``text`` as a person sees it: every invisible character removed (:func:`is_invisible`) except those that
    change how their neighbours are drawn (an emoji's joiner and variation selector, a joining script's
    joiners, a flag's tags). So a question split by a zero-width space shows, and is stored, as the question
    it looks like; nothing visible changes."""
    if not has_invisible(text):
        return text
    return "".join(ch for i, ch in enumerate(text) if not is_invisible(ch) or _invisible_does_work(text, i))


def match_text(text: str) -> str:
    """The text a match is made on (keys, merging, review decisions, search, personal data): NFKC, every
    invisible character removed, and letters of other scripts that Unicode's confusables table (TR39) gives as
    a Latin letter's look-alike folded to that letter in words that mix them with Latin letters or are made of
    look-alikes alone (wаter with a Cyrillic а is water; a Russian word with other letters stays as it is). Case,
    spacing and punctuation are kept; Latin letters are never folded to each other (rn and m, 0 and O stay
    apart), nor are Han characters."""
    return fold_lookalikes(unicodedata.normalize("NFKC", strip_invisible(text)))


def fold_lookalikes(s: str) -> str:
    """``s`` with look-alike letters of other scripts folded to the Latin letters they imitate, as
    :func:`match_text` folds them, and nothing else changed."""
    if s.isascii():
        return s
    table = _latin_lookalikes()
    if not any(ord(ch) in table for ch in s):
        return s
    return _WORD.sub(lambda m: _fold_word(m.group(), table), s)


def has_lookalikes(text: str) -> bool:
    """Whether ``text`` passes letters of another script for Latin ones (:func:`match_text` folds some)."""
    if text.isascii():
        return False
    seen = unicodedata.normalize("NFKC", strip_invisible(text))
    return fold_lookalikes(seen) != seen


_WORD = re.compile(r"[^\W\d_]+")


def _fold_word(word: str, table: dict[int, str]) -> str:
    if any(ord(ch) in table for ch in word) and (_LATIN.search(word) or all(ord(ch) in table for ch in word)):
        return word.translate(table)
    return word


@functools.lru_cache(maxsize=1)
def _latin_lookalikes() -> dict[int, str]:
    """Letters of non-Latin scripts that Unicode's confusables table (TR39's confusables.txt, as the
    ``confusable_homoglyphs`` package ships it) gives as confusable with one ASCII letter: Cyrillic а е о р с х
    у і ј ѕ ԁ ԛ ԝ, Greek ο ν ρ, Armenian օ, ... Built once per process. Latin letters with marks or of other
    shapes (ɑ, ı) are not folded: they are not another script passing for Latin."""
    import json
    from importlib.resources import files

    data = json.loads(files("confusable_homoglyphs").joinpath("confusables.json").read_text(encoding="utf-8"))
    table: dict[int, str] = {}
    for ch, entries in data.items():
        if len(ch) != 1 or ch.isascii() or not ch.isalpha() or _LATIN.match(ch) or "LATIN" in unicodedata.name(ch, ""):
            continue
        targets = sorted({e["c"] for e in entries if len(e["c"]) == 1 and e["c"].isascii() and e["c"].isalpha()})
        if targets:
            # TR39 gives capital I and small l one prototype (l); a capital look-alike stands for the capital
            table[ord(ch)] = "I" if ch.isupper() and targets[0] == "l" else targets[0]
    return table


@functools.lru_cache(maxsize=1)
def _t2s_table() -> dict[int, str]:
    """Traditional -> simplified, one character at a time, from the tables shipped in the ``opencc`` package
    (OpenCC's t2s conversion of each Han character on its own; its first candidate where it has several).
    Character by character, never by phrase, so a character folds the same way whatever stands beside it and
    both forms of a text always meet. Built once per process (~0.1 s), on the first key with a Han character."""
    import opencc

    convert = opencc.OpenCC("t2s.json").convert
    table: dict[int, int] = {}
    for lo, hi in _HAN_RANGES:
        for cp in range(lo, hi + 1):
            out = convert(chr(cp))
            if len(out) == 1 and out != chr(cp):
                table[cp] = ord(out)
    for cp in table:  # follow chains (薴 -> 苧 -> 苎) to the end, so folding twice changes nothing
        seen = {cp}
        while table[cp] in table and table[cp] not in seen:
            seen.add(table[cp])
            table[cp] = table[table[cp]]
    return {cp: chr(to) for cp, to in table.items()}


def clean_surface(text: str) -> str:
    """The logged form to show people: whitespace and control characters collapsed into one space, invisible
    characters removed where they do no work (:func:`visible_text`: a zero-width space or a direction isolate
    inside a word goes, an emoji's joiner stays), and the ends trimmed of whitespace and invisible characters.
    Nothing visible is changed: a look-alike letter stays as typed (its key folds it). A text of nothing visible
    cleans to ""."""
    return _trim_invisible(_WS_OR_CONTROL.sub(" ", visible_text(text)))


def _invisible_at_an_end(ch: str) -> bool:
    # tag characters (U+E0020-E007F) are format characters too, but end the subdivision flags (England, ...)
    return ch.isspace() or (unicodedata.category(ch) == "Cf" and not "\U000e0000" <= ch <= "\U000e007f")


def _trim_invisible(text: str) -> str:
    start, end = 0, len(text)
    while start < end and _invisible_at_an_end(text[start]):
        start += 1
    while end > start and _invisible_at_an_end(text[end - 1]):
        end -= 1
    return text[start:end]


def lone_surrogate(text: str) -> int:
    """Where ``text`` holds its first lone surrogate (-1: none). Such text cannot be encoded, so cannot be
    stored, keyed or sent on; JSON's ``\\ud800`` escapes and file names that are not UTF-8 make it."""
    if text.isascii():
        return -1
    found = _SURROGATE.search(text)
    return -1 if found is None else found.start()


def detect_lang(text: str) -> str:
    """'zh', 'en', 'mixed' (substantial CJK and Latin) or 'other'."""
    cjk = latin = 0
    for ch in text:
        if _is_cjk(ch):
            cjk += 1
        elif ("a" <= ch <= "z") or ("A" <= ch <= "Z"):
            latin += 1
    if cjk == 0:
        return "en" if latin > 0 else "other"
    # a CJK character carries about as much as a 3-4 letter word
    latin_words_equiv = latin / 4.0
    if latin_words_equiv <= cjk * 0.5:
        return "zh"
    return "mixed"



def reads_as_chinese(lang: str) -> bool:
    """Whether the Chinese side of every two-language model and judge reads a text of ``lang``: 'zh', and 'mixed'
    (Chinese with Latin terms in it, as :func:`detect_lang` names it)."""
    return lang in ("zh", "mixed")


def lang_space(lang: str) -> str:
    """'zh' or 'en': the side of a two-language model or judge that reads a text of ``lang`` (English reads the
    rest: 'other', and languages a log declares, such as 'fr')."""
    return "zh" if reads_as_chinese(lang) else "en"

class Scripts(NamedTuple):
    """Letters of a text by script."""

    han: int
    kana: int
    hangul: int
    latin: int
    other: int  # letters of any other script: Cyrillic, Greek, Arabic, Thai, ...
    zh_only: int = 0  # Chinese function characters that Japanese does not write (是, 什么, 吗, 这, ...)


def script_counts(text: str) -> Scripts:
    han = len(_HAN.findall(text))
    kana = len(_KANA.findall(text))
    hangul = len(_HANGUL.findall(text))
    latin = len(_LATIN.findall(text))
    letters = len(_LETTER.findall(text))
    zh_only = len(_ZH_ONLY.findall(text)) if kana else 0
    return Scripts(han, kana, hangul, latin, max(letters - han - kana - hangul - latin, 0), zh_only)


def script_language(s: Scripts) -> str | None:
    """The language a text's script alone decides, or None where a model must tell (Latin, Cyrillic, ...).

    East Asian characters that outweigh the other letters (the ratio of :func:`detect_lang`: a character carries
    about as much as a 3-4 letter word) give 'ko' (Hangul), 'ja' (kana, unless Chinese function characters
    beside fewer kana than Han show them quoted: 日语ない是什么意思 is Chinese) or 'zh' (Han alone:
    traditional and simplified alike); Han beside as many Latin words gives 'mixed' (as detect_lang); a text
    with no letters at all gives 'other'."""
    east = s.han + s.kana + s.hangul
    if east:
        if (s.latin + s.other) / 4.0 <= east * 0.5:
            if s.hangul and s.hangul >= s.kana:
                return "ko"
            return "ja" if s.kana and not (s.zh_only and s.kana < s.han) else "zh"
        if s.han and not (s.kana or s.hangul) and s.latin >= s.other:
            return "mixed"
        return None
    return None if s.latin or s.other else "other"


def language_code(tag: object) -> str | None:
    """The ISO 639-1 code of a language tag or label (zh, zh-CN, en_US, fr-FR, eng, French, ...), None if none."""
    if not isinstance(tag, str):
        return None
    t = tag.strip().lower().replace("_", "-")
    if not t:
        return None
    if t in _LANGUAGE_ALIASES:
        return _LANGUAGE_ALIASES[t]
    head = t.split("-")[0]
    if head in ISO_639_1:
        return head
    return _LANGUAGE_ALIASES.get(head)


def cjk_count(text: str) -> int:
    return sum(1 for ch in text if _is_cjk(ch))


def question_id(key: str) -> str:
    """Stable id of a base question: the same key gives the same qid in every run."""
    return "q_" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]


def preview(text: str, limit: int) -> str:
    """``text`` as a reject's raw value: cut to ``limit`` characters, lone surrogates written as ``\\udXXX``
    escapes so that it can always be stored."""
    if lone_surrogate(text) >= 0:
        text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return truncate(text, limit)


def truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


# --- widths in terminal columns (the command-line tools' tables): a wide or full-width character takes two ------


def display_width(text: str) -> int:
    """Terminal columns ``text`` takes: East Asian wide and full-width characters (CJK) take two, others one."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def pad_to_width(text: str, width: int) -> str:
    """``text`` left-justified to ``width`` terminal columns (``str.ljust`` counts characters, so a column holding
    CJK text would slip); text already as wide or wider is returned as it is."""
    return text + " " * max(width - display_width(text), 0)


def clip_to_width(text: str, width: int) -> str:
    """``text`` in at most ``width`` terminal columns: when it takes ``width`` columns or more, cut to fit in
    ``width - 1`` and ended with "…" (one column)."""
    out, used = [], 0
    for ch in text:
        w = display_width(ch)
        if used + w > width - 1:
            return "".join(out) + "…"
        out.append(ch)
        used += w
    return text
