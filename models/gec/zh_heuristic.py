"""``zh-heuristic``: Chinese character-level noise signals, no model.

Doubled function characters, stray symbols and mojibake, broken punctuation runs, Latin letters
mixed into CJK words. It catches noise, not fine grammar; see docs/guides/how-the-scorers-work.md.
"""

from __future__ import annotations

import re
import unicodedata

from models.gec.base import score_from_weights
from schemas.text import cjk_count

# doubling these is (almost) never right; reduplicated verbs/adverbs (看看, 谢谢, 常常) are fine
_ZH_NO_DOUBLE = set("的了是在和与就都也把被对从向给让很吗呢吧啊么着过得地")


_ZH_PUNCT_RUN = re.compile(r"[，。！？、；：,.!?;:]{2,}")


_LATIN_IN_CJK = re.compile(r"(?<=[\u4e00-\u9fff])[a-z]{1,3}(?=[\u4e00-\u9fff])")


_ASCII_JUNK = set("#@$%^&*_=+|\\<>~`")


def _is_stray(ch: str) -> bool:
    if ch.isspace() or ch.isalnum():
        return False
    if ch in _ASCII_JUNK:
        return True
    cat = unicodedata.category(ch)
    if cat.startswith("P"):
        return False
    return cat.startswith("S") or cat in ("Co", "Cn", "Cs", "Cc") or ch == "\ufffd"


class ZhHeuristicGecScorer:
    """Chinese: character-level noise signals (no model)."""

    model_id = "zh-heuristic-v1"

    def score(self, texts: list[str]) -> list[tuple[float, dict]]:
        results = []
        for text in texts:
            n_cjk = cjk_count(text)
            units = max(n_cjk / 4.0, 1.0)  # about four characters per word
            doubled = [text[i:i + 2] for i in range(len(text) - 1)
                       if text[i] == text[i + 1] and text[i] in _ZH_NO_DOUBLE]
            stray = [ch for ch in text if _is_stray(ch)]
            punct_runs = [m.group(0) for m in _ZH_PUNCT_RUN.finditer(text) if len(set(m.group(0))) > 1
                          or m.group(0)[0] not in "!?！？.。"]
            latin_inside = _LATIN_IN_CJK.findall(text)
            weights = [0.9] * len(doubled) + [0.5] * len(stray) + [0.5] * len(punct_runs) + [0.6] * len(latin_inside)
            score = score_from_weights(weights, units) if n_cjk else 0.0
            details = {"cjk_chars": n_cjk, "doubled": doubled[:5], "stray_symbols": "".join(stray[:10]),
                       "punct_runs": punct_runs[:5], "latin_inside_words": latin_inside[:5]}
            results.append((score, details))
        return results
