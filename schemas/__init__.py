"""Arrow schemas: one per Parquet file a published version holds.

`qa.parquet` (the QA store), `questions.parquet` (every distinct question with its
scores and fate), `rejected.parquet` (rows that never became questions) and
`accepted_sample.parquet` (a deterministic sample of accepted rows, for the quality gate) and
`state/questions.parquet` (per-question counts of all logs so far, for incremental builds).
"""

from schemas.accepted_sample import ACCEPTED_SAMPLE_SCHEMA
from schemas.qa import QA_SCHEMA
from schemas.question_state import QUESTION_STATE_SCHEMA
from schemas.questions import QUESTIONS_SCHEMA
from schemas.rejected import REJECTED_SCHEMA

__all__ = ["ACCEPTED_SAMPLE_SCHEMA", "QA_SCHEMA", "QUESTION_STATE_SCHEMA", "QUESTIONS_SCHEMA", "REJECTED_SCHEMA"]
