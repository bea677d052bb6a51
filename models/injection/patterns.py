"""``patterns``: instruction-like answers found by their cues (models.injection.cues), no model.

An answer is read three ways: as it shows (its quoted spans taken out: a quoted "ignore previous instructions"
is a mention), as its hidden parts (zero-width characters taken out, Unicode tag characters decoded, the insides of
HTML comments and hidden elements), and as the base64 blobs it carries, decoded. A cue in the shown text counts
with its weight; any cue in a hidden part or a decoded blob is ``hidden_text`` / ``encoded_payload`` and sure (a
trick made to be read by a model and not by a person). The score is the strongest cue's weight, 0.1 more for each
further cue (below :data:`STRONG` unless one is strong); ``sure`` when a strong cue matched.
"""

from __future__ import annotations

import base64
import binascii
import re

from models.injection.base import score_answers
from models.injection.cues import COMPILED, HINT, META, STRONG, WEAK
from schemas.judgement import Judgement

# zero-width and invisible format characters (soft hyphen, word joiner, BOM, bidi marks and overrides)
_INVISIBLE = re.compile("[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
_TAG = re.compile("[\U000e0020-\U000e007e]")  # Unicode tag characters: invisible ASCII that models read
_FLAG_TAGS = re.compile("\U0001f3f4[\U000e0020-\U000e007f]+")  # subdivision flags (🏴 + tags) are emoji
_HIDDEN_HTML = re.compile(r"<!--(.*?)-->|<(\w+)[^>]*(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|"
                          r"opacity\s*:\s*0\b)[^>]*>(.*?)</\2\s*>", re.I | re.S)
_TEMPLATE = re.compile(r"<\|[a-z_]{2,20}\|>|\[/?INST\]|<</?SYS>>|</s>\s*<s>")
# quoted spans: double quotes, CJK quotes and brackets, and single quotes that open after a space or a bracket
_QUOTED = re.compile(r"\"[^\"\n]{1,200}\"|“[^”\n]{1,200}”|「[^」\n]{1,200}」|『[^』\n]{1,200}』|‘[^’\n]{1,200}’|"
                     r"(?<![\w'])'[^'\n]{2,200}'(?![\w'])")
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{16,}={0,2}(?![A-Za-z0-9+/=])")
_DECODE_AND_FOLLOW = re.compile(
    r"\b(?:decode|base64[- ]decode)\b[^.!?\n]{0,80}?\b(?:follow|execute|do what|obey|run|carry out|apply)\b|"
    r"\b(?:follow|execute|obey)\b[^.!?\n]{0,40}?\bdecod|解码[^。！？\n]{0,20}?(?:照做|执行|遵守|按照)", re.I)
_STEP = 0.1  # each further cue
_MIXED_BLOB = re.compile(r"[0-9+/]|[a-z][A-Z]")  # a blob, not a long word


def _cues(text: str) -> list[tuple[str, float, int]]:
    """(reason, weight, cue index) of every cue that matches ``text``."""
    low = text.lower()
    return [(reason, weight, i) for i, (reason, weight, pattern, needs) in enumerate(COMPILED)
            if (not needs or any(word in low for word in needs)) and pattern.search(text)]


def _unquoted(text: str) -> str:
    return _QUOTED.sub(" ", text)


def _hidden_parts(text: str) -> tuple[str, list[str], int]:
    """(the text a person sees, the hidden parts a model reads too, how many invisible characters it holds)."""
    parts = []
    tags = _TAG.sub("", _FLAG_TAGS.sub("", text)) != text
    if tags:
        parts.append("".join(chr(ord(ch) - 0xE0000) for ch in _FLAG_TAGS.sub("", text) if _TAG.fullmatch(ch)))
    invisible = len(_INVISIBLE.findall(text))
    shown = _TAG.sub("", _INVISIBLE.sub("", text))
    if invisible:  # "Ignore\u200ball\u200bprevious": the characters may stand between words, or inside them
        parts.append(_TAG.sub("", _INVISIBLE.sub(" ", text)))
    for m in _HIDDEN_HTML.finditer(shown):
        parts.append(m.group(1) if m.group(1) is not None else m.group(3))
    return _HIDDEN_HTML.sub(" ", shown), parts, invisible


def _decoded_blobs(text: str) -> list[str]:
    out = []
    for blob in _BASE64.findall(text):
        if not _MIXED_BLOB.search(blob):
            continue
        try:
            decoded = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if decoded.isprintable():
            out.append(decoded)
    return out


def judge_answer(answer: str) -> Judgement:
    """One answer's judgement (the question plays no part: an attack reads the same under any question)."""
    shown, hidden, invisible = _hidden_parts(answer)
    said = _unquoted(shown)  # what the answer says in its own voice
    meta = bool(META.search(said))
    found: dict[int, tuple[str, float]] = {}
    for reason, weight, i in _cues(said):
        found[i] = (reason, weight / 2 if meta and weight < STRONG else weight)
    if _TEMPLATE.search(shown):
        found[-1] = ("template_tokens", WEAK / 2 if meta else STRONG)
    hidden_cues = [w for part in hidden for _, w, _ in _cues(_unquoted(part))]
    if any(w >= WEAK for w in hidden_cues) or (_TAG.search(_FLAG_TAGS.sub("", answer)) and len(hidden[0].strip()) >= 4):
        found[-2] = ("hidden_text", STRONG)
    elif invisible and any(w >= WEAK for _, w in found.values()):
        found[-2] = ("hidden_text", STRONG)  # a cue, and characters no one sees: "Ig\u200bnore previous ..."
    elif invisible >= 3 or any(part.strip() for part in hidden[1 if invisible else 0:]):
        found[-2] = ("hidden_text", HINT)
    decoded = _decoded_blobs(shown)
    if any(w >= WEAK for text in decoded for _, w, _ in _cues(text)) or (decoded and _DECODE_AND_FOLLOW.search(shown)):
        found[-3] = ("encoded_payload", STRONG)
    if not found:
        return Judgement(0.0, "", {})
    ranked = sorted(found.values(), key=lambda rw: (-rw[1], _PRIORITY.index(rw[0])))
    reason, top = ranked[0]
    sure = top >= STRONG
    score = top if sure else min(top + _STEP * (len(ranked) - 1), STRONG - 0.05)
    details = {"cues": sorted({r for r, _ in ranked}), "meta": meta}
    return Judgement(round(score, 6), reason, details, sure)


# a tie between cue families names the trick first: the hidden or encoded text is what matters
_PRIORITY = ("hidden_text", "encoded_payload", "template_tokens", "tool_request", "role_injection",
             "instruction_override")


class PatternInjection:
    """The cue patterns as a :class:`models.injection.base.InjectionJudge` (``injection.model: patterns``)."""

    model_id = "injection-patterns-v1"
    threshold = 0.5
    per_item = True  # each answer judged alone, the same in any batch: the judgement cache may keep it

    def own_threshold(self, lang: str) -> float:
        return self.threshold

    def judgements(self, items: list[tuple[str, str, str]]) -> list[Judgement]:
        return [judge_answer(a) for _, a, _ in items]

    def score(self, items: list[tuple[str, str, str]]) -> list[tuple[float, str]]:
        return score_answers(self, items)
