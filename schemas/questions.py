"""Schema of questions.parquet: every distinct normalised question, kept or not, and why."""

import pyarrow as pa

QUESTIONS_SCHEMA = pa.schema([
    pa.field("question_key", pa.string(), nullable=False),
    pa.field("question", pa.string(), nullable=False),
    pa.field("lang", pa.string(), nullable=False),
    pa.field("frequency", pa.int64(), nullable=False),
    pa.field("surface_forms", pa.int64(), nullable=False),
    # null: never scored (its entry ranked below every entry the top K could take: reason below_top_k;
    # filter.score_all scores every question)
    pa.field("gec_score", pa.float64(), nullable=True),
    pa.field("intent_score", pa.float64(), nullable=True),
    # JSON objects: which signals fired and with what values ("" when not scored)
    pa.field("gec_details", pa.string(), nullable=False),
    pa.field("intent_details", pa.string(), nullable=False),
    pa.field("passed_gec", pa.bool_(), nullable=True),
    pa.field("passed_intent", pa.bool_(), nullable=True),
    # the representative of a base entry
    pa.field("kept", pa.bool_(), nullable=False),
    # "" when kept; else low_gec, low_intent, low_gec+low_intent, merged (a paraphrase of the entry's
    # representative that passed both filters), no_valid_answer (every judged answer of its entry was a
    # non-answer), time_sensitive (under time_sensitive.policy drop), below_top_k, or the reasons of further
    # question judges (no_subject: it cannot stand alone, models/standalone), joined with "+"
    pa.field("reason", pa.string(), nullable=False),
    pa.field("rank", pa.int64(), nullable=True),  # the entry's rank, for every question counted toward it
    # the base entry this question counts toward (its asks and answers are pooled there); null if none
    pa.field("qid", pa.string(), nullable=True),
    # why it is not its own entry: "paraphrase of <representative> (p=<judge probability> with <key>)"
    pa.field("merged_into_reason", pa.string(), nullable=True),
    pa.field("merge_probability", pa.float64(), nullable=True),
    pa.field("entry_key", pa.string(), nullable=False),  # the entry's representative key (itself if alone)
    # will its answers go stale? (false when time_sensitive.policy is keep: not judged), score, cue family
    pa.field("time_sensitive", pa.bool_(), nullable=False),
    pa.field("time_sensitive_score", pa.float64(), nullable=False),
    pa.field("time_sensitive_reason", pa.string(), nullable=False),
    # share of its answer rows that are non-answers (of the rows whose answer was judged: its entry was a
    # candidate for the top K); null when none was judged
    pa.field("non_answer_share", pa.float64(), nullable=True),
])
