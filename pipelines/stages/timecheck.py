"""Stage ``time``: is each scored question time-sensitive (will its answers go stale)? Every distinct question
is judged once (questions.parquet shows it for all of them); the detector reads the vectors scoring
computed in its own spaces, so nothing is embedded again. Under ``time_sensitive.policy: keep`` the stage
is not in the graph and nothing is flagged.
"""

from __future__ import annotations

from apache_beam.ml.inference.base import RunInference

from models.registry import ModelFactory
from pipelines.stages.metering import MeteredHandler, ModelBox
from schemas.records import ScoredQuestion


def judge_time(detector, batch: list[ScoredQuestion]) -> list[ScoredQuestion]:
    spaces = detector.embedders()
    vectors = []
    for q in batch:
        emb = spaces.get(detector.space(q.lang))
        vectors.append(q.vectors.get(emb.model_id) if emb is not None else None)
    results = detector.score([q.question for q in batch], [q.lang for q in batch], vectors)
    return [q._replace(time_sensitive=bool(reason), time_score=score, time_reason=reason)
            for q, (score, reason) in zip(batch, results)]


class TimeHandler(MeteredHandler):
    stage = "time"

    def __init__(self, factory: ModelFactory, batch_size: int):
        super().__init__(batch_size)
        self._factory = factory

    def load_model(self):
        return ModelBox(self._factory.time_sensitivity())

    def run_inference(self, batch, model, inference_args=None):
        return self._run(lambda b: judge_time(model.value, b), batch)


def time_transform(factory: ModelFactory, batch_size: int) -> RunInference:
    """ScoredQuestion -> the same with time_sensitive, time_score and time_reason set."""
    return RunInference(TimeHandler(factory, batch_size))
