"""The non-answer judgement: does an answer answer its question? (issue 14, groundwork)

A chatbot often answers without answering: a refusal, "I cannot provide real-time information",
"无法确定", "建议关注官方信息", "作为一个AI…", a restatement of the question. Such an answer must never
win a vote or hold a viewpoint. An answer that says it cannot give the exact figure and then gives
the rule, a range or the main facts *is* an answer.
"""

from __future__ import annotations

from typing import Protocol


class NonAnswerDetector(Protocol):
    model_id: str

    def score(self, items: list[tuple[str, str, str]]) -> list[tuple[float, str]]:
        """(score in [0, 1]: how surely it is a non-answer, reason) for each (question, answer, language);
        the reason (the family: refusal, no_realtime, ... or "non_answer") is "" exactly when the answer
        answers (each backend applies its own threshold)."""
