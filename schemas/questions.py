"""Schema of questions.parquet: every distinct normalised question, kept or not, and why.

Every column and nested field says what it holds in its Arrow metadata (schemas.described); the column table of
docs/reference/outputs.md is generated from these declarations.
"""

import pyarrow as pa

from schemas.described import column as c
from schemas.details import GEC_DETAILS, INTENT_DETAILS

# why a question is not its own entry in the base: the judges that flag it first (in this order: low_gec,
# low_intent, then the further question judges' reasons such as no_subject), or one fate of its entry
REASONS_TEXT = ("why it is not the representative of a base entry (empty when it is), in order: the judges that "
                "flag it (low_gec, low_intent, then further question judges' reasons such as no_subject: it "
                "cannot stand alone), else one of merged (a paraphrase of the entry's representative that passed "
                "every judge), excluded_by_reviewer, no_valid_answer (every judged answer of its entry was a "
                "non-answer), instruction_like (its entry's answers were shut out as instruction-like), "
                "time_sensitive (under time_sensitive.policy drop), below_top_k")

QUESTIONS_SCHEMA = pa.schema([
    c("question_key", pa.string(), "the question's normalised key (docs/reference/outputs.md)"),
    c("question", pa.string(), "its most frequent surface form"),
    c("lang", pa.string(), "its language: en, zh, mixed or other"),
    c("frequency", pa.int64(), "how often it was asked (all its surface forms)"),
    c("surface_forms", pa.int64(), "distinct surface forms with this key"),
    c("gec_score", pa.float64(), "the GEC judge's score in [0, 1]; null when never scored (its entry ranked "
                                 "below every entry the top K could take; filter.score_all scores every "
                                 "question)", nullable=True),
    c("intent_score", pa.float64(), "the intent judge's score in [0, 1]; null when never scored",
      nullable=True),
    c("gec_details", GEC_DETAILS, "what the GEC judge saw: its backend's signals (schemas/details.py); null "
                                  "when never scored", nullable=True),
    c("intent_details", INTENT_DETAILS, "what the intent judge saw: its backend's signals (schemas/details.py); "
                                        "null when never scored", nullable=True),
    c("passed_gec", pa.bool_(), "true when gec_score is above filter.gec_threshold; null when never scored",
      nullable=True),
    c("passed_intent", pa.bool_(), "true when intent_score is above filter.intent_threshold; null when never "
                                   "scored", nullable=True),
    c("kept", pa.bool_(), "true for the representative of a base entry"),
    c("reasons", pa.list_(pa.string()), REASONS_TEXT),
    c("rank", pa.int64(), "the rank of the entry it counts toward, for every question counted toward it; null "
                          "when none", nullable=True),
    c("qid", pa.string(), "the base entry it counts toward (its asks and answers are pooled there); null when "
                          "none", nullable=True),
    c("merged_into_reason", pa.string(), "why it is not its own entry: \"paraphrase of <representative> "
                                         "(p=<judge probability> with <key>)\"; null when it is",
      nullable=True),
    c("merge_probability", pa.float64(), "the paraphrase judge's probability of that merge; null when none or "
                                         "a reviewer merged it", nullable=True),
    c("entry_key", pa.string(), "the key of its entry's representative (its own when alone)"),
    c("time_sensitive", pa.bool_(), "true when its answers may go stale (false under time_sensitive.policy "
                                    "keep: not judged)"),
    c("time_sensitive_score", pa.float64(), "the time-sensitivity judge's score"),
    c("time_sensitive_reason", pa.string(), "the cue family that fired (\"\" when none)"),
    c("non_answer_share", pa.float64(), "share of its answer rows that are non-answers, of the rows whose "
                                        "answer was judged (its entry was a candidate for the top K); null when "
                                        "none was judged", nullable=True),
])
