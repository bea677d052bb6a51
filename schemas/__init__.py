"""The bottom floor: what every other package agrees on, importing nothing of ours.

- the Arrow schemas of every Parquet file a version holds (re-exported here: `qa.parquet` ``QA_SCHEMA``,
  `questions.parquet`, `rejected.parquet`, `accepted_sample.parquet`, `state/questions.parquet`; `topics.parquet` in
  ``topics``), each column of the first two described in its Arrow metadata (``described``; the judges'
  details typed in ``details``) and read in any base format by ``tables``; and the records
  the stages pass (``records``, ``judgement``: the one judgement contract and the judge declaration);
- the build configuration (``config``: every key declared once; ``config_reference`` writes its reference page),
  and how config names resolve to backends (``backends``);
- a base directory's layout and format (``layout``), its signatures (``signing``) and readers' leases (``leases``);
- text (``text``: what is shown, what matching reads, the question key), dates (``dates``), personal data
  (``privacy``), the review file and what its decisions make of a base (``review``, ``review_outcome``);
- errors, logging, JSON lines and command-line conventions (``errors``, ``logs``, ``jsonl``, ``commandline``).
"""

from schemas.accepted_sample import ACCEPTED_SAMPLE_SCHEMA
from schemas.qa import QA_SCHEMA
from schemas.question_state import QUESTION_STATE_SCHEMA
from schemas.questions import QUESTIONS_SCHEMA
from schemas.rejected import REJECTED_SCHEMA

__all__ = ["ACCEPTED_SAMPLE_SCHEMA", "QA_SCHEMA", "QUESTION_STATE_SCHEMA", "QUESTIONS_SCHEMA", "REJECTED_SCHEMA"]
