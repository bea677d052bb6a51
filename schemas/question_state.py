"""Schema of state/questions.parquet: what every accepted log row so far said about each question.

One row per normalised question key: its surface forms and languages with counts, and every
distinct answer (by normalised answer key) with the counts of its surface forms. Merging two
of these is adding counts, so a day's logs fold into the state of all earlier days.
"""

import pyarrow as pa

_COUNTED_TEXT = pa.list_(pa.struct([pa.field("text", pa.string(), nullable=False),
                                    pa.field("count", pa.int64(), nullable=False)]))

QUESTION_STATE_SCHEMA = pa.schema([
    pa.field("key", pa.string(), nullable=False),
    pa.field("forms", _COUNTED_TEXT, nullable=False),
    pa.field("langs", _COUNTED_TEXT, nullable=False),
    pa.field("answers", pa.list_(pa.struct([pa.field("answer_key", pa.string(), nullable=False),
                                            pa.field("forms", _COUNTED_TEXT, nullable=False)])), nullable=False),
    # the earliest row's AcceptedRow.seen: which form of a paraphrase group was asked first
    pa.field("first_seen", pa.string(), nullable=False),
    # ISO dates of its earliest and latest timestamped rows ("" when none had a timestamp)
    pa.field("first_date", pa.string(), nullable=False),
    pa.field("last_date", pa.string(), nullable=False),
])
