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
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import NamedTuple

import yaml

from schemas.errors import ConfigError
from schemas.text import normalize_key, truncate

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
    return value


def _missing(name: str, line: int, action: str, field: str):
    raise _fail(name, line, f"{action} needs '{field}'")


def _key_of(text: str, field: str, name: str, line: int) -> str:
    key = normalize_key(text)
    if not key:
        raise _fail(name, line, f"'{field}' {truncate(repr(text), SHOWN)} has no question key (only punctuation or "
                                f"spaces)")
    return key


def decision_of(item, name: str, line: int) -> Decision:
    """One item of the file -> a Decision, or ConfigError naming ``name`` and ``line``."""
    if not isinstance(item, dict):
        raise _fail(name, line, f"a decision is a mapping (JSON object), got {type(item).__name__}")
    action = item.get("action")
    if action is None:
        raise _fail(name, line, f"needs 'action' ({', '.join(ACTIONS)})")
    if action not in ACTIONS:
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


def _items_jsonl(text: str, name: str) -> list[tuple[int, object]]:
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            out.append((n, json.loads(stripped)))
        except json.JSONDecodeError as exc:
            raise _fail(name, n, f"not valid JSON ({exc.msg} at column {exc.colno})") from None
    return out


class _NoAliasLoader(yaml.SafeLoader):
    """safe_load without aliases (a few bytes of nested aliases expand to gigabytes); a review file needs none."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.events.AliasEvent):
            event = self.peek_event()
            raise _fail(self.name, event.start_mark.line + 1, "YAML aliases are not allowed (write the value out)")
        return super().compose_node(parent, index)


def _items_yaml(text: str, name: str) -> list[tuple[int, object]]:
    loader = _NoAliasLoader(text)
    loader.name = name
    try:
        node = loader.get_single_node()
        if node is None:
            return []
        if not isinstance(node, yaml.SequenceNode):
            raise _fail(name, node.start_mark.line + 1, "a YAML review file is a list of decisions")
        return [(child.start_mark.line + 1, loader.construct_object(child, deep=True)) for child in node.value]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise _fail(name, mark.line + 1 if mark is not None else 1, "not valid YAML") from None
    finally:
        loader.dispose()


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
    data = p.read_bytes()
    return ReviewFile(str(p), hashlib.sha256(data).hexdigest(), parse_review(data, p.name))


def review_line(decision: Decision) -> str:
    """A decision as one JSON line (no newline)."""
    return json.dumps(decision.record(), ensure_ascii=False)
