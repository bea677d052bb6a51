"""Schema of questions.parquet: every distinct normalised question, kept or not, and why.

Every column and nested field says what it holds in its Arrow metadata (schemas.described); the column table of
docs/reference/outputs.md is generated from these declarations.
"""

import pyarrow as pa


def _col(name: str, type_: pa.DataType, description: str, nullable: bool = False) -> pa.Field:
    """A field with its description (schemas.described reads it). Declared here, not imported: the package
    re-exports this schema, so this module imports nothing of ours (tests/test_import_circles.py)."""
    return pa.field(name, type_, nullable=nullable, metadata={b"description": description.encode("utf-8")})


# ---- gec_details and intent_details: what the judges saw (schemas.details says how they are filled) ----------

OTHER = pa.list_(pa.struct([
    _col("name", pa.string(), "the key the backend wrote"),
    _col("value", pa.string(), "its value as JSON text"),
]))
_OTHER_TEXT = "keys no built-in backend writes (a new backend's), each with its value as JSON text"


def _named(name_field: str, value_field: str, what: str) -> pa.DataType:
    return pa.list_(pa.struct([_col(name_field, pa.string(), f"the {what}'s name"),
                               _col(value_field, pa.float64(), f"the {what}'s value")]))


def _d(name: str, type_: pa.DataType, description: str) -> pa.Field:
    """A field of a judge's details: null where the build's backend does not write it."""
    return _col(name, type_, description, nullable=True)


GEC_DETAILS = pa.struct([
    # quire (English): tagger, grammar rules, lexicon
    _d("words", pa.int64(), "English words in the question (quire, quire-ngram)"),
    _d("no_words", pa.bool_(), "true when the question has no English word at all: scored 0 (quire)"),
    _d("tagger_edits", pa.list_(pa.struct([
        _col("word", pa.string(), "the word the tagger would edit"),
        _col("tag", pa.string(), "the edit it proposes (GECToR tag)"),
        _col("p", pa.float64(), "the tagger's probability of the edit"),
    ])), "the edits the neural tagger proposes (quire)"),
    _d("rules", pa.list_(pa.struct([
        _col("rule", pa.string(), "the grammar rule's id"),
        _col("text", pa.string(), "the text it matched"),
        _col("conf", pa.float64(), "its confidence"),
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
        _col("label", pa.string(), "an intent label"),
        _col("probability", pa.float64(), "the head's probability of it"),
    ])), "the head's three most probable labels, by label (head)"),
    _d("temperature", pa.float64(), "the head's softmax temperature (head)"),
    _d("other", OTHER, _OTHER_TEXT),
])


# why a question is not its own entry in the base: the judges that flag it first (in this order: low_gec,
# low_intent, then the further question judges' reasons such as no_subject), or one fate of its entry
REASONS_TEXT = ("why it is not the representative of a base entry (empty when it is), in order: the judges that "
                "flag it (low_gec, low_intent, then further question judges' reasons such as no_subject: it "
                "cannot stand alone), else one of merged (a paraphrase of the entry's representative that passed "
                "every judge), excluded_by_reviewer, no_valid_answer (every judged answer of its entry was a "
                "non-answer), instruction_like (its entry's answers were shut out as instruction-like), "
                "time_sensitive (under time_sensitive.policy drop), below_top_k")

QUESTIONS_SCHEMA = pa.schema([
    _col("question_key", pa.string(), "the question's normalised key (docs/reference/outputs.md)"),
    _col("question", pa.string(), "its most frequent surface form"),
    _col("lang", pa.string(), "its language: en, zh, mixed or other"),
    _col("frequency", pa.int64(), "how often it was asked (all its surface forms)"),
    _col("surface_forms", pa.int64(), "distinct surface forms with this key"),
    _col("gec_score", pa.float64(), "the GEC judge's score in [0, 1]; null when never scored (its entry ranked "
                                    "below every entry the top K could take; filter.score_all scores every "
                                    "question)", nullable=True),
    _col("intent_score", pa.float64(), "the intent judge's score in [0, 1]; null when never scored",
         nullable=True),
    _col("gec_details", GEC_DETAILS, "what the GEC judge saw: its backend's signals (schemas/details.py); null "
                                     "when never scored", nullable=True),
    _col("intent_details", INTENT_DETAILS, "what the intent judge saw: its backend's signals (schemas/details.py); "
                                           "null when never scored", nullable=True),
    _col("passed_gec", pa.bool_(), "true when gec_score is above filter.gec_threshold; null when never scored",
         nullable=True),
    _col("passed_intent", pa.bool_(), "true when intent_score is above filter.intent_threshold; null when never "
                                      "scored", nullable=True),
    _col("kept", pa.bool_(), "true for the representative of a base entry"),
    _col("reasons", pa.list_(pa.string()), REASONS_TEXT),
    _col("rank", pa.int64(), "the rank of the entry it counts toward, for every question counted toward it; null "
                             "when none", nullable=True),
    _col("qid", pa.string(), "the base entry it counts toward (its asks and answers are pooled there); null when "
                             "none", nullable=True),
    _col("merged_into_reason", pa.string(), "why it is not its own entry: \"paraphrase of <representative> "
                                            "(p=<judge probability> with <key>)\"; null when it is",
         nullable=True),
    _col("merge_probability", pa.float64(), "the paraphrase judge's probability of that merge; null when none or "
                                            "a reviewer merged it", nullable=True),
    _col("entry_key", pa.string(), "the key of its entry's representative (its own when alone)"),
    _col("time_sensitive", pa.bool_(), "true when its answers may go stale (false under time_sensitive.policy "
                                       "keep: not judged)"),
    _col("time_sensitive_score", pa.float64(), "the time-sensitivity judge's score"),
    _col("time_sensitive_reason", pa.string(), "the cue family that fired (\"\" when none)"),
    _col("non_answer_share", pa.float64(), "share of its answer rows that are non-answers, of the rows whose "
                                           "answer was judged (its entry was a candidate for the top K); null when "
                                           "none was judged", nullable=True),
])
