"""The redactor: runs recognisers over a text, resolves overlapping findings, and replaces each kept span by a
typed placeholder (``<PHONE>``, ``<EMAIL>``, ...), so the redacted forms of one question share one key.

Backends are recognisers (:class:`schemas.privacy.recognizers.PatternRecognizer` here; anything with ``kind``
and ``find(view) -> findings`` fits, so a Presidio analyzer could be wrapped as one). Placeholders already in a
text (``<PHONE>``, or ``<phone>`` as a question key writes it) are never matched again: redacting twice changes
nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import NamedTuple

from schemas.privacy.recognizers import KINDS, Finding, PatternRecognizer, builtin_recognizers, in_text, match_view

# a placeholder as written (<PHONE>) or as a question key folds it (<phone>); also a user kind's (<EMPLOYEE_ID>)
PLACEHOLDER = re.compile(r"<[A-Za-z][A-Za-z0-9_]*>")
# a truncated preview ("...1381234…"): the cut may leave too little of a value for any recogniser to know it
_CUT_TAIL = re.compile(r"[A-Za-z0-9@._%+\-:/()（） ]*[0-9@][A-Za-z0-9@._%+\-:/()（） ]*…$")


def placeholder(kind: str) -> str:
    return f"<{kind}>"


# what a model that judges wording reads in a placeholder's place: a short number, no one's value, that no
# recogniser finds (an n-gram grammar scorer has seen digits or an address after 手机号是 or "my email is", never
# "<PHONE>", and would call every redacted Chinese question ungrammatical: 0.36 against 0.97 with the number;
# "12345" scores as high as the original values in both languages, for e-mails and URLs too). Never written.
STAND_IN = "12345"
# a placeholder as the redactor writes it (upper case): a question's text, as models read it, keeps its case, and
# an HTML tag (<br>, <code>) is not a placeholder
_WRITTEN_PLACEHOLDER = re.compile(r"<[A-Z][A-Z0-9_]+>")


def with_stand_ins(text: str) -> str:
    """``text`` with each placeholder the redactor wrote (``<PHONE>``, ``<EMPLOYEE_ID>``) replaced by
    :data:`STAND_IN`."""
    return _WRITTEN_PLACEHOLDER.sub(STAND_IN, text) if "<" in text else text


class Redacted(NamedTuple):
    text: str
    counts: dict[str, int]  # kind -> spans replaced


class Redactor:
    """Picklable (compiled patterns pickle by their source). ``recognizers``: the kinds to find, in any order;
    overlaps go to the longest span, then the highest score, then the first."""

    def __init__(self, recognizers: tuple[PatternRecognizer, ...]):
        self.recognizers = tuple(recognizers)
        self.kinds = tuple(dict.fromkeys(r.kind for r in self.recognizers))
        # the placeholders a redaction writes (of a built-in kind or one of these, and <CUT>), in either case: only
        # these are left alone, so "name<at>example.com" is still an address
        self._placeholders = frozenset(k.upper() for k in (*KINDS, *self.kinds, "CUT"))
        # one search over the text for any recogniser's trigger first: most texts hold none, and then nothing else
        # runs (a user's own pattern has no trigger: then every text is searched). The triggers' alternatives are
        # joined flat ("a|b" and "c" as "a|b|c": the same union, as no trigger holds a global flag or a back-reference):
        # re searches one flat alternation a quarter faster than one of groups
        triggers = [r.trigger for r in self.recognizers]
        self._screen = (re.compile("|".join(dict.fromkeys(t.pattern for t in triggers)))
                        if triggers and all(t is not None for t in triggers) else None)

    @classmethod
    def of(cls, kinds: tuple[str, ...] = KINDS, custom: tuple[tuple[str, str], ...] = ()) -> "Redactor":
        """The built-in recognisers of ``kinds`` and a user's own (name, regex) patterns."""
        own = tuple(PatternRecognizer(name, pattern, 0.9) for name, pattern in custom)
        return cls(builtin_recognizers(kinds) + own)

    @property
    def active(self) -> bool:
        return bool(self.recognizers)

    def findings(self, text: str) -> list[Finding]:
        """The kept findings, in text order, as spans of ``text``: overlaps resolved, none inside a placeholder."""
        if not self.recognizers or not text:
            return []
        view, origin = match_view(text)
        first = 0  # no trigger is found before where the screen first finds one
        if self._screen is not None:
            screened = self._screen.search(view)
            if screened is None:
                return []
            first = screened.start()
        found: list[Finding] = []
        triggered: dict = {}  # trigger -> whether the text holds it (recognisers share triggers)
        for r in self.recognizers:
            trigger = r.trigger
            if trigger is not None:
                hit = triggered.get(trigger)
                if hit is None:
                    hit = triggered[trigger] = trigger.search(view, first) is not None
                if not hit:
                    continue
            found.extend(f for f in r.find(view) if f.end > f.start)
        if not found:
            return []
        taken = [(m.start(), m.end()) for m in PLACEHOLDER.finditer(view)
                 if m.group()[1:-1].upper() in self._placeholders]
        kept: list[Finding] = []
        for f in sorted(found, key=lambda f: (-(f.end - f.start), -f.score, f.start)):
            if all(f.end <= s or f.start >= e for s, e in taken):
                kept.append(f)
                taken.append((f.start, f.end))
        if origin is not None:  # spans of the view to spans of the text (invisible characters were dropped)
            kept = [in_text(f, origin) for f in kept]
        return sorted(kept, key=lambda f: f.start)

    def redact(self, text: str) -> Redacted:
        kept = self.findings(text)
        if not kept:
            return Redacted(text, {})
        out, at = [], 0
        for f in kept:
            out += [text[at:f.start], placeholder(f.kind)]
            at = f.end
        out.append(text[at:])
        return Redacted("".join(out), dict(Counter(f.kind for f in kept)))

    def redact_text(self, text: str) -> str:
        return self.redact(text).text

    def redact_preview(self, text: str) -> str:
        """A reject's raw preview: redacted, and a value cut off by the preview's end replaced (too little of it
        may be left for a recogniser to know it)."""
        if not self.recognizers or not text:
            return text
        text = self.redact_text(text)
        if text.endswith("…"):
            text = _CUT_TAIL.sub("<CUT>…", text)
        return text

    def matches(self, text: str) -> bool:
        """Whether any enabled kind is found in ``text`` (the quality gate's check of published text)."""
        return bool(self.findings(text))
