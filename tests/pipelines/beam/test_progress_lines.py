"""Progress lines (pipelines.beam.metering): a total and time left where the stage knows its total, what loads
while models load, and log lines that carry the date."""

import logging
import re

from pipelines.beam import metering
from pipelines.stages.frontier import tier_members
from pipelines.beam.metering import StageMeter, announce_loading, clock, model_names, progress_line
from pipelines.stages.paraphrase import make_entry
from pipelines.stages.score import unscored
from pipelines.stages.select import rank_order
from schemas.records import QuestionStats


def test_clock_is_minutes_and_seconds_then_hours():
    assert [clock(s) for s in (0, 5.4, 59.6, 61, 3599, 3600, 3723)] == [
        "0:00", "0:05", "1:00", "1:01", "59:59", "1:00:00", "1:02:03"]


def test_a_known_total_gives_share_rate_and_time_left():
    assert progress_line("paraphrase en", 12_288, 16.0, 40_000) == \
        "paraphrase en: 12,288 of 40,000 (31%), 768/s, about 0:36 left"
    assert progress_line("nonanswer", 1_200, 20.0, 3_000, at_most=True) == \
        "nonanswer: 1,200 of at most 3,000 (40%), 60/s, at most 0:30 left"


def test_an_unknown_or_overrun_total_says_so_far():
    assert progress_line("score", 12_000, 10.0) == "score: 12,000 items so far (1200/s)"
    assert progress_line("score", 12, 1.0, total=10) == "score: 12 items so far (12/s)"
    assert progress_line("score", 0, 1.0, total=0) == "score: 0 items so far (0/s)"


def test_a_meter_logs_against_its_total(monkeypatch, caplog):
    now = [100.0]
    monkeypatch.setattr(metering.time, "perf_counter", lambda: now[0])
    meter = StageMeter("paraphrase", label="paraphrase zh")
    meter.total = 400
    now[0] += metering.LOG_EVERY_S
    with caplog.at_level(logging.INFO, logger="qabase.progress"):
        meter.tick(100)
    assert caplog.messages == ["paraphrase zh: 100 of 400 (25%), 20/s, about 0:15 left"]


def test_a_scoring_tier_tells_its_size_with_each_entry():
    a, b, c = (make_entry([unscored(QuestionStats(k, k, 5, "en", 1))], {}) for k in "abc")
    order = sorted(rank_order(e) for e in (a, b, c))
    assert [tier_members(e, (1, 3), order) for e in (a, b, c)] == [[], [(b, 2)], [(c, 2)]]


class _Factory:
    class models:  # noqa: N801 (stands in for a config section)
        gec_en = "quire-ngram"
        gec_zh = "zh-ngram"

    class time:  # noqa: N801
        model = "embedding"


class _Handler:
    stage = "score"
    _factory = _Factory()

    def __init__(self, judge_time):
        self._judge_time = judge_time

    @announce_loading("gec_en", "gec_zh", "intent", lambda self: ("time_sensitive",) if self._judge_time else ())
    def load_model(self):
        return "models"


def test_loading_says_what_loads_and_how_long_it_took_once(monkeypatch, caplog):
    monkeypatch.setattr(metering, "_ANNOUNCED", set())
    assert model_names(_Factory(), ["gec_en", "intent"]) == "gec_en quire-ngram, intent"
    with caplog.at_level(logging.INFO, logger="qabase.progress"):
        assert _Handler(True).load_model() == "models"
        assert _Handler(True).load_model() == "models"  # another tier: the registry's cache, nothing to say
        assert _Handler(False).load_model() == "models"
    assert len(caplog.messages) == 4, caplog.messages
    assert caplog.messages[0] == ("score: loading gec_en quire-ngram, gec_zh zh-ngram, intent, time_sensitive "
                                  "embedding ...")
    assert re.fullmatch(r"score: loaded in \d+\.\d s", caplog.messages[1])
    assert caplog.messages[2] == "score: loading gec_en quire-ngram, gec_zh zh-ngram, intent ..."


def test_log_lines_carry_the_date(capsys):
    from schemas.logs import setup_logging

    root = logging.getLogger()
    saved = list(root.handlers), root.level, logging.getLogger("qabase").level
    try:
        setup_logging()
        logging.getLogger("qabase.test").info("hello")
        err = capsys.readouterr().err
    finally:
        for h in list(root.handlers):
            root.removeHandler(h)
        for h in saved[0]:
            root.addHandler(h)
        root.setLevel(saved[1])
        logging.getLogger("qabase").setLevel(saved[2])
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d INFO qabase\.test: hello\n", err), err
