"""What the GEC and intent judges saw in a question: questions.parquet's ``gec_details`` and ``intent_details``.

Each backend reports its own signals (models/gec, models/intent). They are stored as one struct per judge
whose fields are the union of what the built-in backends write, each typed and described; a field a backend
does not write is null. So a reader asks ``gec_details.nll`` or ``intent_details.signals`` directly, with no
JSON to decode, and the shape does not change with the backend a build chose. Named numbers whose names vary
(the intent prototype's lexical signals, the intent head's top labels) are lists of ``{name, value}`` sorted by
name. A key no built-in backend writes (a new backend's) is kept in ``other`` as ``{name, value}`` with the
value as JSON text, so nothing is lost; declaring it here gives it a typed field.

The score stage and the score cache keep the judges' details as canonical JSON (models.gec.base.details_json);
:func:`details_value` turns that into the struct when questions.parquet is written, and readers of a base
written before format 3 (schemas.tables) do the same to its JSON strings.
"""

from __future__ import annotations

import json

import pyarrow as pa

from schemas.described import column

OTHER = pa.list_(pa.struct([
    column("name", pa.string(), "the key the backend wrote"),
    column("value", pa.string(), "its value as JSON text"),
]))
_OTHER_TEXT = "keys no built-in backend writes (a new backend's), each with its value as JSON text"


def _named(name_field: str, value_field: str, what: str) -> pa.DataType:
    return pa.list_(pa.struct([column(name_field, pa.string(), f"the {what}'s name"),
                               column(value_field, pa.float64(), f"the {what}'s value")]))


def _d(name: str, type_: pa.DataType, description: str) -> pa.Field:
    return column(name, type_, description, nullable=True)


GEC_DETAILS = pa.struct([
    # quire (English): tagger, grammar rules, lexicon
    _d("words", pa.int64(), "English words in the question (quire, quire-ngram)"),
    _d("no_words", pa.bool_(), "true when the question has no English word at all: scored 0 (quire)"),
    _d("tagger_edits", pa.list_(pa.struct([
        column("word", pa.string(), "the word the tagger would edit"),
        column("tag", pa.string(), "the edit it proposes (GECToR tag)"),
        column("p", pa.float64(), "the tagger's probability of the edit"),
    ])), "the edits the neural tagger proposes (quire)"),
    _d("rules", pa.list_(pa.struct([
        column("rule", pa.string(), "the grammar rule's id"),
        column("text", pa.string(), "the text it matched"),
        column("conf", pa.float64(), "its confidence"),
    ])), "the grammar rules that fired (quire)"),
    _d("unknown_words", pa.list_(pa.string()), "words the lexicon does not know, at most 10 (quire)"),
    # fluency under an n-gram or causal language model
    _d("corrections", pa.float64(), "the correction score before fluency weighs in (quire-ngram)"),
    _d("nll", pa.float64(), "mean negative log-likelihood of the text under the fluency model "
                            "(quire-ngram, zh-ngram, lm:)"),
    _d("nll_bigram", pa.float64(), "the same under the character bigram model (zh-ngram)"),
    _d("relative_nll", pa.float64(), "nll relative to the text's own character frequencies (zh-ngram)"),
    _d("nll_backward", pa.float64(), "nll read right to left (zh-ngram)"),
    _d("boundary_value", pa.float64(), "the value scored at the worst word boundary (zh-ngram)"),
    _d("boundary_log_odds_max", pa.float64(), "the highest log-odds of a wrong boundary (zh-ngram)"),
    _d("boundary_rms", pa.float64(), "root mean square of the boundary values (zh-ngram)"),
    _d("z", pa.float64(), "the fluency value as a z-score against well-formed questions; null when the text "
                          "gave no evidence"),
    _d("fluency", pa.float64(), "the fluency factor in [0, 1] the score is multiplied by"),
    _d("word_pairs", pa.int64(), "word pairs the fluency model read (quire-ngram)"),
    _d("noise_score", pa.float64(), "the Chinese noise score (zh-heuristic's) before fluency (zh-ngram)"),
    _d("least_likely", pa.string(), "the least likely words or characters of the text"),
    # zh-heuristic (Chinese): character noise
    _d("cjk_chars", pa.int64(), "Chinese characters in the question (zh-heuristic, zh-ngram)"),
    _d("doubled", pa.list_(pa.string()), "character pairs doubled where Chinese never doubles them, at most 5"),
    _d("stray_symbols", pa.string(), "symbols out of place in Chinese text, at most 10"),
    _d("punct_runs", pa.list_(pa.string()), "runs of mixed punctuation, at most 5"),
    _d("latin_inside_words", pa.list_(pa.string()), "Latin letters inside Chinese words, at most 5"),
    # lm: and seq2seq: (local models)
    _d("ref_mean", pa.float64(), "mean nll of the reference questions (lm:)"),
    _d("ref_sd", pa.float64(), "their standard deviation (lm:)"),
    _d("correction", pa.string(), "the corrected text the model proposes (seq2seq:)"),
    _d("edits", pa.float64(), "edits between the question and its correction, per word (seq2seq:)"),
    _d("other", OTHER, _OTHER_TEXT),
])

INTENT_DETAILS = pa.struct([
    # prototype (the default): embedding prototypes, lexical signals, chit-chat head
    _d("margin", pa.float64(), "cosine margin between the nearest question and non-question prototypes "
                               "(prototype)"),
    _d("scale", pa.float64(), "the margin's scale in the logit (prototype)"),
    _d("space", pa.string(), "the embedding space that judged it: en or zh"),
    _d("signals", _named("name", "value", "signal"),
       "the lexical signals that fired and what each adds to the logit, by name (question_form, very_short, "
       "substantive_length, refers_to_context; prototype)"),
    _d("chitchat", pa.float64(), "the chit-chat head's probability that it is small talk (prototype)"),
    _d("prototype_score", pa.float64(), "the prototype score before the chit-chat head lowered it (prototype)"),
    # classifier heads
    _d("top_labels", pa.list_(pa.struct([
        column("label", pa.string(), "an intent label"),
        column("probability", pa.float64(), "the head's probability of it"),
    ])), "the head's three most probable labels, by label (head)"),
    _d("temperature", pa.float64(), "the head's softmax temperature (head)"),
    _d("other", OTHER, _OTHER_TEXT),
])


class _Mismatch(ValueError):
    """A value that does not fit its declared field (kept in ``other`` instead)."""


def _fit(value, type_: pa.DataType):
    if value is None:
        return None
    if pa.types.is_floating(type_):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif pa.types.is_integer(type_):
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
    elif pa.types.is_boolean(type_):
        if isinstance(value, bool):
            return value
    elif pa.types.is_string(type_):
        if isinstance(value, str):
            return value
    elif pa.types.is_list(type_):
        item = type_.value_type
        if isinstance(value, dict) and pa.types.is_struct(item) and item.num_fields == 2:
            # named numbers ({name: value}): a list of {name, value}, by name
            return [_fit({item.field(0).name: k, item.field(1).name: v}, item) for k, v in sorted(value.items())]
        if isinstance(value, (list, tuple)):
            return [_fit(v, item) for v in value]
    elif pa.types.is_struct(type_):
        if isinstance(value, dict) and set(value) <= {f.name for f in type_}:
            return {f.name: _fit(value.get(f.name), f.type) for f in type_}
    raise _Mismatch(f"{value!r} is not {type_}")


def details_value(details, type_: pa.StructType) -> dict | None:
    """A judge's details (a dict, or its JSON text) as a value of ``type_`` (:data:`GEC_DETAILS` or
    :data:`INTENT_DETAILS`); None for a question never scored (no details: '' or None)."""
    if details is None or details == "":
        return None
    if isinstance(details, str):
        try:
            details = json.loads(details)
        except ValueError:
            details = {"text": details}
    if not isinstance(details, dict):
        details = {"details": details}
    declared = {f.name: f.type for f in type_ if f.name != "other"}
    out: dict = {name: None for name in declared}
    other = []
    for key in sorted(details):
        value = details[key]
        try:
            if key not in declared:
                raise _Mismatch(key)
            out[key] = _fit(value, declared[key])
        except _Mismatch:
            other.append({"name": key, "value": json.dumps(value, ensure_ascii=False, sort_keys=True)})
    out["other"] = other
    return out
