"""The review file: people's decisions about the base, applied on every build (docs/review.md).

JSON lines (``.jsonl``, ``.json``, any other name) or a YAML list (``.yaml`` / ``.yml``), one decision each::

    {"action": "exclude", "question": Q, "note": ...}
    {"action": "answer", "question": Q, "answer": TEXT, "note": ...}
    {"action": "merge", "question": A, "into": B}
    {"action": "split", "question": A, "from": B}
    {"action": "time_sensitive", "question": Q, "value": true}
    {"action": "keep", "question": Q}

A question is named by the text of any of its forms and matched by the pipeline's own question key
(schemas.text.normalize_key: case, width, punctuation and traditional/simplified differences do not matter).
``note`` (a string) is optional on every action. Keys this format does not know are allowed and ignored, so a
tool may record who decided and when (``by``, ``at``, ``qid``); a key of another action (``into`` on an exclude)
is an error, as is anything missing or of the wrong type: one :class:`ConfigError` naming the file and the line,
raised before the build writes anything. Blank lines (and, in JSON lines, lines starting with ``#``) are skipped.

Read as strictly as the logs are: a key named twice in one object, a decision nested more than
:data:`MAX_DEPTH` levels, a lone surrogate in any string (a key or an unknown field's too), a number too long to
read, an answer over :data:`MAX_ANSWER_CHARS`, a note over :data:`MAX_NOTE_CHARS` or a question over
:data:`MAX_QUESTION_CHARS` are errors of the line too. JSON lines are split on ``\\n`` alone (a ``\\r`` before
it dropped): U+2028, U+0085 and the other characters ``str.splitlines`` breaks at are text inside a JSON string.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import NamedTuple

import yaml

from schemas.config import LimitsConfig
from schemas.errors import ConfigError
from schemas.text import lone_surrogate, normalize_key, truncate

# action -> (the field it needs beside the question, that field's type); None: the question alone
ACTIONS: dict[str, tuple[str, type] | None] = {
    "exclude": None,
    "answer": ("answer", str),
    "merge": ("into", str),
    "split": ("from", str),
    "time_sensitive": ("value", bool),
    "keep": None,
}
# the fields of this format; any other key is the file's own business (ignored)
FIELDS = ("action", "question", "note", "answer", "into", "from", "value")
MAX_REVIEW_BYTES = 256 << 20  # ~1M decisions; a bigger file is refused before it is read
# A reviewer's answer is served like a logged one, so it is held to the longest answer the logs may hold (by
# default: a fixed number, so that `qabase review add`, which reads no config, checks what the build checks); a
# longer one is a pasted document, and it would travel through every stage of the build.
MAX_ANSWER_CHARS = LimitsConfig.max_answer_chars
MAX_NOTE_CHARS = 2000  # a note says why; the browse page's note field holds as much
# a question, into or from names a question of the base, far shorter than this (limits.max_question_chars); the
# bound only keeps a pasted document out of the build
MAX_QUESTION_CHARS = MAX_ANSWER_CHARS
# lists and objects in one decision, the decision itself included: the format needs one level, a tool's own
# fields a few more; a deeper one is refused before it is parsed (Python's parsers recurse per level)
MAX_DEPTH = 32
SHOWN = 80  # how much of a value an error quotes


class Decision(NamedTuple):
    """One decision, normalised: ``key`` / ``other_key`` are the pipeline's question keys."""

    line: int  # 1-based line of the file (YAML: the line its item starts on)
    action: str
    question: str
    key: str
    other: str = ""  # merge: into; split: from
    other_key: str = ""
    answer: str = ""
    value: bool | None = None  # time_sensitive
    note: str = ""

    def keys(self) -> tuple[str, ...]:
        """The question keys it names (one, or two for merge and split)."""
        return (self.key, self.other_key) if self.other_key else (self.key,)

    def record(self) -> dict:
        """The decision as a line of the file (what ``qabase review add`` appends)."""
        out: dict = {"action": self.action, "question": self.question}
        spec = ACTIONS[self.action]
        if spec is not None:
            name = spec[0]
            out[name] = {"into": self.other, "from": self.other, "answer": self.answer, "value": self.value}[name]
        if self.note:
            out["note"] = self.note
        return out


class ReviewFile(NamedTuple):
    path: str
    sha256: str  # of the file's bytes: the manifest's identity of the decisions
    decisions: tuple  # Decision, in file order


def _fail(name: str, line: int, message: str) -> ConfigError:
    return ConfigError(f"review: {name} line {line}: {message}")


def _text_field(item: dict, field: str, name: str, line: int, action: str) -> str:
    value = item.get(field)
    if value is None:
        return _missing(name, line, action, field)
    if not isinstance(value, str) or not value.strip():
        raise _fail(name, line, f"{action}: '{field}' must be a non-empty string, got {truncate(repr(value), SHOWN)}")
    return _bounded(value, field, MAX_ANSWER_CHARS if field == "answer" else MAX_QUESTION_CHARS, name, line)


def _bounded(text: str, field: str, limit: int, name: str, line: int) -> str:
    if len(text) > limit:
        raise _fail(name, line, f"{field} is {len(text):,} characters; at most {limit:,}")
    return text


def _missing(name: str, line: int, action: str, field: str):
    raise _fail(name, line, f"{action} needs '{field}'")


def _key_of(text: str, field: str, name: str, line: int) -> str:
    key = normalize_key(text)
    if not key:
        raise _fail(name, line, f"'{field}' {truncate(repr(text), SHOWN)} has no question key (only punctuation or "
                                f"spaces)")
    return key


def _unreadable(item) -> str | None:
    """Why a parsed decision cannot be taken whatever its fields say (None: it can): nested more than
    :data:`MAX_DEPTH` levels, or a string (a key, an unknown field's too) holding a lone surrogate, which no UTF-8
    text holds, so the build would fail on it where it writes. Walked level by level, without recursion."""
    if isinstance(item, dict) and not any(isinstance(v, (dict, list)) for v in item.values()):
        # the usual decision, flat: one look at all its text at once; the walk below only to say where
        if lone_surrogate("".join(x for x in (*item, *item.values()) if isinstance(x, str))) < 0:
            return None
    # (what an error calls it, a value or a key): the decision's own keys name the fields below them
    level: list[tuple[str, object]] = [("the decision", item)]
    depth = 0
    if isinstance(item, dict):
        shown = {key: truncate(ascii(key), SHOWN) for key in item}
        level = [(f"the key {shown[key]}", key) for key in item] + [(shown[key], v) for key, v in item.items()]
        depth = 1
    while level:
        depth += any(isinstance(value, (dict, list)) for _, value in level)
        if depth > MAX_DEPTH:
            return f"nested more than {MAX_DEPTH} levels deep (lists or objects within lists or objects)"
        below: list[tuple[str, object]] = []
        for where, value in level:
            if isinstance(value, str):
                at = lone_surrogate(value)
                if at >= 0:
                    return (f"{where} holds a lone surrogate ({ascii(value[at])[1:-1]} at character {at:,}), which "
                            f"no UTF-8 text holds (a JSON \\ud800 escape, or text that was not UTF-8)")
            elif isinstance(value, dict):
                below += [(where, part) for key, v in value.items() for part in (key, v)]
            elif isinstance(value, list):
                below += [(where, v) for v in value]
        level = below
    return None


def decision_of(item, name: str, line: int) -> Decision:
    """One item of the file -> a Decision, or ConfigError naming ``name`` and ``line``."""
    problem = _unreadable(item)
    if problem is not None:
        raise _fail(name, line, problem)
    if not isinstance(item, dict):
        raise _fail(name, line, f"a decision is a mapping (JSON object), got {type(item).__name__}")
    action = item.get("action")
    if action is None:
        raise _fail(name, line, f"needs 'action' ({', '.join(ACTIONS)})")
    if not isinstance(action, str) or action not in ACTIONS:
        raise _fail(name, line, f"unknown action {truncate(repr(action), SHOWN)} ({', '.join(ACTIONS)})")
    question = _text_field(item, "question", name, line, action)
    spec = ACTIONS[action]
    for field in ("answer", "into", "from", "value"):
        if field in item and (spec is None or spec[0] != field):
            raise _fail(name, line, f"{action} takes no '{field}'")
    note = item.get("note", "")
    if note is None:
        note = ""
    if not isinstance(note, str):
        raise _fail(name, line, f"'note' must be a string, got {truncate(repr(note), SHOWN)}")
    _bounded(note.strip(), "note", MAX_NOTE_CHARS, name, line)
    key = _key_of(question, "question", name, line)
    fields: dict = {}
    if spec is not None:
        field, typ = spec
        if field not in item:
            _missing(name, line, action, field)
        if typ is bool:
            if not isinstance(item[field], bool):
                raise _fail(name, line, f"{action}: 'value' must be true or false, got "
                                        f"{truncate(repr(item[field]), SHOWN)}")
            fields["value"] = item[field]
        elif field == "answer":
            fields["answer"] = _text_field(item, field, name, line, action).strip()
        else:
            other = _text_field(item, field, name, line, action)
            other_key = _key_of(other, field, name, line)
            if other_key == key:
                raise _fail(name, line, f"{action}: 'question' and '{field}' are the same question")
            fields.update(other=other, other_key=other_key)
    return Decision(line, action, question, key, note=note.strip(), **fields)


class _DuplicateKey(ValueError):
    """A JSON object names a key twice."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object whose keys are all different: with a key named twice, which value is meant cannot be told
    (Python's json would keep the last one without a word)."""
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(f"key {truncate(ascii(key), SHOWN)} appears twice in one object (which value is "
                                    f"meant cannot be told)")
            seen.add(key)
    return record


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys)
# a JSON string (its escapes too) or a bracket: what the depth of a line's lists and objects needs to see
_JSON_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def _json_depth_over(text: str, limit: int) -> bool:
    """Whether a line of JSON nests lists and objects more than ``limit`` levels, told from its brackets outside
    strings, before it is parsed: json recurses per level and would fail on a deep line with RecursionError."""
    if text.count("[") + text.count("{") <= limit:  # C-fast; a line this shallow needs no scan
        return False
    depth = 0
    for match in _JSON_STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return True
        elif token in "]}":
            depth -= 1
    return False


def _json_line(text: str, name: str, n: int) -> object:
    if _json_depth_over(text, MAX_DEPTH):
        raise _fail(name, n, f"nested more than {MAX_DEPTH} levels deep (lists or objects within lists or objects)")
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise _fail(name, n, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    except _DuplicateKey as exc:
        raise _fail(name, n, str(exc)) from None
    except ValueError as exc:  # a number over Python's 4,300 digits for an int
        raise _fail(name, n, f"not valid JSON ({str(exc).split(';')[0]})") from None
    except RecursionError:  # the depth check above stops any line this deep; kept should Python's limit be lower
        raise _fail(name, n, "not valid JSON (nested too deeply to parse)") from None


def _items_jsonl(text: str, name: str) -> list[tuple[int, object]]:
    out = []
    # lines end at "\n" alone (a "\r" before it is dropped): str.splitlines would also break at U+2028, U+0085,
    # \x1c..., which a JSON string may hold as they are, and so break a line `qabase review add` wrote
    for n, raw in enumerate(text.split("\n"), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        out.append((n, _json_line(stripped, name, n)))
    return out


class _StrictLoader(yaml.SafeLoader):
    """safe_load as strict as the JSON lines: no aliases (a few bytes of nested aliases expand to gigabytes; a
    review file needs none), no mapping naming a key twice, no nesting over :data:`MAX_DEPTH` levels in a
    decision (PyYAML composes and constructs recursively, so a deeper one would fail with RecursionError)."""

    depth = 0  # the nodes being composed around the next one: 0 around the file's list, 1 around a decision, ...

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.events.AliasEvent):
            raise _fail(self.name, event.start_mark.line + 1, "YAML aliases are not allowed (write the value out)")
        collection = isinstance(event, (yaml.events.SequenceStartEvent, yaml.events.MappingStartEvent))
        if collection and self.depth > MAX_DEPTH:  # its level in its decision, the decision's own mapping 1
            raise _fail(self.name, event.start_mark.line + 1,
                        f"nested more than {MAX_DEPTH} levels deep (lists or mappings within lists or mappings)")
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            self.flatten_mapping(node)
            seen: set = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                try:
                    twice = key in seen
                except TypeError:  # an unhashable key: SafeLoader's own error names it
                    break
                if twice:
                    raise _fail(self.name, key_node.start_mark.line + 1,
                                f"key {truncate(ascii(key), SHOWN)} appears twice in one mapping (which value is "
                                f"meant cannot be told)")
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _items_yaml(text: str, name: str) -> list[tuple[int, object]]:
    loader = _StrictLoader(text)
    loader.name = name
    try:
        node = loader.get_single_node()
        if node is None:
            return []
        if not isinstance(node, yaml.SequenceNode):
            raise _fail(name, node.start_mark.line + 1, "a YAML review file is a list of decisions")
        return [(child.start_mark.line + 1, _yaml_item(loader, child, name)) for child in node.value]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise _fail(name, mark.line + 1 if mark is not None else 1, "not valid YAML") from None
    except RecursionError:  # the depth check of compose_node stops any file this deep; kept all the same
        raise _fail(name, 1, "not valid YAML (nested too deeply to parse)") from None
    finally:
        loader.dispose()


def _yaml_item(loader: yaml.SafeLoader, node, name: str) -> object:
    try:
        return loader.construct_object(node, deep=True)
    except (ValueError, OverflowError) as exc:  # an int over 4,300 digits, a date like 2026-13-45
        raise _fail(name, node.start_mark.line + 1, f"not valid YAML ({str(exc).split(';')[0]})") from None


def parse_review(data: bytes, name: str) -> tuple[Decision, ...]:
    """Every decision of a review file's bytes (``name``: how errors name the file; ``.yaml``/``.yml``: YAML)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _fail(name, data[:exc.start].count(b"\n") + 1, "not UTF-8 text") from None
    is_yaml = name.lower().endswith((".yaml", ".yml"))
    items = _items_yaml(text, name) if is_yaml else _items_jsonl(text, name)
    return tuple(decision_of(item, name, line) for line, item in items)


def load_review(path: str | Path) -> ReviewFile:
    """A review file, checked whole (ConfigError naming the line of the first bad decision)."""
    from schemas.layout import not_a_regular_file

    p = Path(path)
    what = not_a_regular_file(p)
    if what is not None:
        raise ConfigError(f"review: {p}: {'file not found' if what in ('not found', 'missing') else what}")
    size = p.stat().st_size
    if size > MAX_REVIEW_BYTES:
        raise ConfigError(f"review: {p} is {size:,} bytes; a review file is at most {MAX_REVIEW_BYTES:,}")
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise ConfigError(f"review: {p}: cannot read it ({exc.strerror or exc})") from None
    return ReviewFile(str(p), hashlib.sha256(data).hexdigest(), parse_review(data, p.name))


# what a line written for both formats must not hold as it is: the line breaks of str.splitlines and of YAML
# (U+0085, U+2028, U+2029: a reader that splits on them breaks the line; YAML folds U+0085 into a space) and the
# characters YAML refuses in a file (DEL, C1 controls, U+FFFE, U+FFFF); json.dumps escapes the C0 controls itself
_ESCAPED = re.compile("[\x7f-\x9f\u2028\u2029\ufffe\uffff]")


def review_line(decision: Decision) -> str:
    """A decision as one JSON line (no newline), which reads back as the same decision from a JSON-lines file and
    as a YAML list item: text as it is but for :data:`_ESCAPED`, written as ``\\uXXXX`` escapes (inside JSON
    strings, the only place they can be; both formats read the escape back)."""
    text = json.dumps(decision.record(), ensure_ascii=False)
    return _ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
