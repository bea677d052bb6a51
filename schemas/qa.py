"""Schema of qa.parquet: one row per base question; row i is vector i of the index.

Every column and nested field says what it holds in its Arrow metadata (schemas.described); the column table of
docs/reference/outputs.md is generated from these declarations.
"""

import pyarrow as pa



def _col(name: str, type_: pa.DataType, description: str, nullable: bool = False) -> pa.Field:
    """A field with its description (schemas.described reads it). Declared here, not imported: the package
    re-exports this schema, so this module imports nothing of ours (tests/test_import_circles.py)."""
    return pa.field(name, type_, nullable=nullable, metadata={b"description": description.encode("utf-8")})


VIEWPOINT = pa.struct([
    _col("summary", pa.string(), "the viewpoint in a sentence (for objective questions, the vote class's answer)"),
    _col("answer_ids", pa.list_(pa.int32()), "the answers (answer_id of answers) that support it"),
])

ANSWER = pa.struct([
    _col("answer_id", pa.int32(), "1..n, by how often the answer was given"),
    _col("text", pa.string(), "the answer as logged (normalised whitespace, personal data redacted)"),
    _col("count", pa.int64(), "how many answer rows gave it"),
    # does it answer at all? (a refusal, "no real-time data", a restatement: never a vote nor a viewpoint)
    _col("non_answer", pa.bool_(), "true when it does not answer (a refusal, \"no real-time data\", a "
                                   "restatement): never a vote nor in a viewpoint"),
    _col("non_answer_score", pa.float64(), "the non-answer judge's score in [0, 1]"),
    _col("non_answer_reason", pa.string(), "the non-answer's family (\"\" for an answer)"),
    _col("instruction_like", pa.bool_(), "true when it addresses the model that reads it (under injection.policy "
                                         "exclude never a vote nor in a viewpoint)"),
    _col("instruction_score", pa.float64(), "the injection judge's score in [0, 1]"),
    _col("instruction_reason", pa.string(), "why it is instruction-like: instruction_override, role_injection, "
                                            "template_tokens, tool_request, hidden_text, encoded_payload (\"\" when "
                                            "not)"),
])

# a distinct question counted toward the entry (its paraphrases; the representative first)
ALIAS = pa.struct([
    _col("question", pa.string(), "a distinct question counted toward the entry"),
    _col("count", pa.int64(), "how often it was asked"),
])

# calendar dates (no time of day, no zone): schemas.dates.iso_date dates a stamp with a UTC offset in UTC and one
# without in its own calendar
PERIOD = pa.struct([
    _col("first", pa.date32(), "the earliest date of the rows its answers came from"),
    _col("last", pa.date32(), "the latest date of those rows"),
])

RELIABILITY_PARTS = pa.struct([
    _col("agreement", pa.float64(), "share of the answering rows that agree with the chosen answer"),
    _col("support", pa.float64(), "1 - 0.5 ** agreeing_answers: how many rows back the answer"),
    _col("answered", pa.float64(), "1 - non-answer rows / judged answer rows"),
    _col("consistent", pa.float64(), "1 - a weight times contradicting_answers / answering rows"),
    _col("fresh", pa.float64(), "below 1 when the entry is time-sensitive, else 1"),
])

QA_SCHEMA = pa.schema([
    _col("qid", pa.string(), "the entry's id: stable for the same normalised question (from the form asked first)"),
    _col("question", pa.string(), "the entry's question: its most asked form"),
    _col("question_key", pa.string(), "the question's normalised key (docs/reference/outputs.md)"),
    _col("lang", pa.string(), "its language: en, zh, mixed or other"),
    _col("frequency", pa.int64(), "how often the entry was asked: the counts of its aliases summed"),
    _col("rank", pa.int64(), "1..n by frequency; row i of the file is vector i of the index"),
    _col("gec_score", pa.float64(), "the GEC judge's score in [0, 1] (1: needs no correction)"),
    _col("intent_score", pa.float64(), "the intent judge's score in [0, 1] (1: a real question)"),
    _col("qtype", pa.string(), "objective (one answer) or subjective (viewpoints)"),
    _col("qtype_score", pa.float64(), "the question-type judge's score for subjective"),
    _col("answer", pa.string(), "the answer served"),
    _col("confidence", pa.float64(), "vote share of the winning answer class or the largest viewpoint"),
    _col("vote_margin", pa.float64(), "the winner's share minus the runner-up's"),
    _col("viewpoints", pa.list_(VIEWPOINT), "the viewpoints (for objective questions, the vote classes)"),
    _col("answers", pa.list_(ANSWER), "every distinct answer given, by frequency; non-answers are shown but never "
                                      "vote"),
    _col("total_answers", pa.int64(), "answer rows of the entry"),
    _col("distinct_answers", pa.int64(), "distinct answers among them"),
    _col("method", pa.string(), "how the answer was chosen: the aggregator (majority, llm...) or reviewed"),
    _col("flags", pa.list_(pa.string()), "the aggregation's flags: tie, all_different, single_answer, "
                                         "low_agreement"),
    _col("aliases", pa.list_(ALIAS), "every distinct question merged into the entry, the representative first"),
    _col("non_answers", pa.int64(), "answer rows (of total_answers) whose answer is a non-answer"),
    _col("instruction_like_answers", pa.int64(), "answer rows (of total_answers) whose answer is instruction-like"),
    _col("instruction_like", pa.bool_(), "true when the served answer rests on instruction-like answers "
                                         "(injection.policy flag: they vote; always false under exclude)"),
    _col("instruction_like_reason", pa.string(), "the reason of the most given of them (\"\" when not)"),
    _col("time_sensitive", pa.bool_(), "true when its answers may go stale (time_sensitive.policy flag; false "
                                       "under keep)"),
    _col("time_sensitive_reason", pa.string(), "the cue family that made it time-sensitive: price, latest, "
                                               "this_year, ...; `question and answers` where they were read "
                                               "together, `answer: <the words>` where an answer says it goes "
                                               "stale (\"\" when not)"),
    _col("logs_period", PERIOD, "calendar dates of the first and last rows its answers came from; null when the "
                                "logs carry no timestamps", nullable=True),
    _col("agreeing_answers", pa.int64(), "answer rows that agree with the chosen answer (its class)"),
    _col("contradicted", pa.bool_(), "true when the answer contradicts a minority with numbers"),
    _col("contradicting_answers", pa.int64(), "answer rows of that minority"),
    _col("reliability", pa.float64(), "how far the answer can be trusted, in [0, 1]: the product of "
                                      "reliability_parts (models/aggregators/signals.py)"),
    _col("reliability_parts", RELIABILITY_PARTS, "the parts of reliability, each in [0, 1]"),
    _col("reviewed", pa.list_(pa.string()), "the review file's actions that took effect on the entry, sorted "
                                            "(answer, exclude, keep, merge, split, time_sensitive); empty when none"),
    _col("review_note", pa.string(), "the reviewers' notes, joined with \"; \""),
    _col("topic", pa.int32(), "its topic in topics.parquet (-1: unassigned); null when the build made no topics "
                              "(topics.enabled false)", nullable=True),
])
