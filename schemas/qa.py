"""Schema of qa.parquet: one row per base question; row i is vector i of the index.

Every column and nested field says what it holds in its Arrow metadata (schemas.described); the column table of
docs/reference/outputs.md is generated from these declarations.
"""

import pyarrow as pa

from schemas.described import column as c

VIEWPOINT = pa.struct([
    c("summary", pa.string(), "the viewpoint in a sentence (for objective questions, the vote class's answer)"),
    c("answer_ids", pa.list_(pa.int32()), "the answers (answer_id of answers) that support it"),
])

ANSWER = pa.struct([
    c("answer_id", pa.int32(), "1..n, by how often the answer was given"),
    c("text", pa.string(), "the answer as logged (normalised whitespace, personal data redacted)"),
    c("count", pa.int64(), "how many answer rows gave it"),
    # does it answer at all? (a refusal, "no real-time data", a restatement: never a vote nor a viewpoint)
    c("non_answer", pa.bool_(), "true when it does not answer (a refusal, \"no real-time data\", a "
                                "restatement): never a vote nor in a viewpoint"),
    c("non_answer_score", pa.float64(), "the non-answer judge's score in [0, 1]"),
    c("non_answer_reason", pa.string(), "the non-answer's family (\"\" for an answer)"),
    c("instruction_like", pa.bool_(), "true when it addresses the model that reads it (under injection.policy "
                                      "exclude never a vote nor in a viewpoint)"),
    c("instruction_score", pa.float64(), "the injection judge's score in [0, 1]"),
    c("instruction_reason", pa.string(), "why it is instruction-like: instruction_override, role_injection, "
                                         "template_tokens, tool_request, hidden_text, encoded_payload (\"\" when "
                                         "not)"),
])

# a distinct question counted toward the entry (its paraphrases; the representative first)
ALIAS = pa.struct([
    c("question", pa.string(), "a distinct question counted toward the entry"),
    c("count", pa.int64(), "how often it was asked"),
])

# calendar dates (no time of day, no zone): schemas.dates.iso_date dates a stamp with a UTC offset in UTC and one
# without in its own calendar
PERIOD = pa.struct([
    c("first", pa.date32(), "the earliest date of the rows its answers came from"),
    c("last", pa.date32(), "the latest date of those rows"),
])

RELIABILITY_PARTS = pa.struct([
    c("agreement", pa.float64(), "share of the answering rows that agree with the chosen answer"),
    c("support", pa.float64(), "1 - 0.5 ** agreeing_answers: how many rows back the answer"),
    c("answered", pa.float64(), "1 - non-answer rows / judged answer rows"),
    c("consistent", pa.float64(), "1 - a weight times contradicting_answers / answering rows"),
    c("fresh", pa.float64(), "below 1 when the entry is time-sensitive, else 1"),
])

QA_SCHEMA = pa.schema([
    c("qid", pa.string(), "the entry's id: stable for the same normalised question (from the form asked first)"),
    c("question", pa.string(), "the entry's question: its most asked form"),
    c("question_key", pa.string(), "the question's normalised key (docs/reference/outputs.md)"),
    c("lang", pa.string(), "its language: en, zh, mixed or other"),
    c("frequency", pa.int64(), "how often the entry was asked: the counts of its aliases summed"),
    c("rank", pa.int64(), "1..n by frequency; row i of the file is vector i of the index"),
    c("gec_score", pa.float64(), "the GEC judge's score in [0, 1] (1: needs no correction)"),
    c("intent_score", pa.float64(), "the intent judge's score in [0, 1] (1: a real question)"),
    c("qtype", pa.string(), "objective (one answer) or subjective (viewpoints)"),
    c("qtype_score", pa.float64(), "the question-type judge's score for subjective"),
    c("answer", pa.string(), "the answer served"),
    c("confidence", pa.float64(), "vote share of the winning answer class or the largest viewpoint"),
    c("vote_margin", pa.float64(), "the winner's share minus the runner-up's"),
    c("viewpoints", pa.list_(VIEWPOINT), "the viewpoints (for objective questions, the vote classes)"),
    c("answers", pa.list_(ANSWER), "every distinct answer given, by frequency; non-answers are shown but never "
                                   "vote"),
    c("total_answers", pa.int64(), "answer rows of the entry"),
    c("distinct_answers", pa.int64(), "distinct answers among them"),
    c("method", pa.string(), "how the answer was chosen: the aggregator (majority, llm...) or reviewed"),
    c("flags", pa.list_(pa.string()), "the aggregation's flags: tie, all_different, single_answer, "
                                      "low_agreement"),
    c("aliases", pa.list_(ALIAS), "every distinct question merged into the entry, the representative first"),
    c("non_answers", pa.int64(), "answer rows (of total_answers) whose answer is a non-answer"),
    c("instruction_like_answers", pa.int64(), "answer rows (of total_answers) whose answer is instruction-like"),
    c("instruction_like", pa.bool_(), "true when the served answer rests on instruction-like answers "
                                      "(injection.policy flag: they vote; always false under exclude)"),
    c("instruction_like_reason", pa.string(), "the reason of the most given of them (\"\" when not)"),
    c("time_sensitive", pa.bool_(), "true when its answers may go stale (time_sensitive.policy flag; false "
                                    "under keep)"),
    c("time_sensitive_reason", pa.string(), "the cue family that made it time-sensitive: price, latest, "
                                            "this_year, ... (\"\" when not)"),
    c("logs_period", PERIOD, "calendar dates of the first and last rows its answers came from; null when the "
                             "logs carry no timestamps", nullable=True),
    c("agreeing_answers", pa.int64(), "answer rows that agree with the chosen answer (its class)"),
    c("contradicted", pa.bool_(), "true when the answer contradicts a minority with numbers"),
    c("contradicting_answers", pa.int64(), "answer rows of that minority"),
    c("reliability", pa.float64(), "how far the answer can be trusted, in [0, 1]: the product of "
                                   "reliability_parts (models/aggregators/signals.py)"),
    c("reliability_parts", RELIABILITY_PARTS, "the parts of reliability, each in [0, 1]"),
    c("reviewed", pa.list_(pa.string()), "the review file's actions that took effect on the entry, sorted "
                                         "(answer, exclude, keep, merge, split, time_sensitive); empty when none"),
    c("review_note", pa.string(), "the reviewers' notes, joined with \"; \""),
    c("topic", pa.int32(), "its topic in topics.parquet (-1: unassigned); null when the build made no topics "
                           "(topics.enabled false)", nullable=True),
])
