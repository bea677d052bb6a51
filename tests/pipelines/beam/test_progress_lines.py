"""Progress lines (pipelines.beam.metering): every stage's real total and time left, a last line that says how
long the stage took, bars on a terminal and plain lines elsewhere, what loads while models load, and log lines that
carry the date."""

import contextlib
import io
import logging
import re

from conftest import FAST_BUILD, FIXTURES

from pipelines.beam import metering
from pipelines.beam.metering import StageMeter, announce_loading, clock, model_names, progress_bar, progress_line
from schemas.logs import BarHandler


def test_clock_is_minutes_and_seconds_then_hours():
    assert [clock(s) for s in (0, 5.4, 59.6, 61, 3599, 3600, 3723)] == [
        "0:00", "0:05", "1:00", "1:01", "59:59", "1:00:00", "1:02:03"]


def test_a_known_total_gives_share_rate_and_time_left():
    assert progress_line("paraphrase en", 12_288, 16.0, 40_000) == \
        "paraphrase en: 12,288 of 40,000 (30%), 768/s, about 0:36 left"
    assert progress_line("validate", 1_200, 20.0, 3_000, estimated=True) == \
        "validate: 1,200 of about 3,000 (40%), 60/s, about 0:30 left"
    assert progress_line("read", 12_500_000, 5.0, 50_000_000, unit="MB", extra="41,000 rows") == \
        "read: 12.5 of 50.0 MB (25%), 41,000 rows, 2.5 MB/s, about 0:15 left"


def test_the_last_line_says_how_long_the_stage_took():
    assert progress_line("nonanswer", 56, 17.2, 56) == "nonanswer: 56 of 56 (100%) in 0:17, 3/s"


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


def test_a_meter_says_its_last_line_once_its_total_is_done(monkeypatch, caplog):
    now = [100.0]
    monkeypatch.setattr(metering.time, "perf_counter", lambda: now[0])
    meter = StageMeter("embed", total=3)
    with caplog.at_level(logging.INFO, logger="qabase.progress"):
        meter.tick(2)  # within the first seconds, not done: nothing to say
        now[0] += 2.0
        meter.tick(1)
        meter.tick(0)
    assert caplog.messages == ["embed: 3 of 3 (100%) in 0:02, 2/s"]


def test_a_fused_stage_estimates_its_total_from_the_share_its_lead_has_done(monkeypatch, caplog):
    now = [100.0]
    monkeypatch.setattr(metering.time, "perf_counter", lambda: now[0])
    read_bytes = [250]
    read = StageMeter("read", total=1000, position=lambda: read_bytes[0], unit="MB")
    validate = StageMeter("validate", follows="read")
    now[0] += metering.LOG_EVERY_S
    with caplog.at_level(logging.INFO, logger="qabase.progress"):
        validate.tick(300)  # a quarter of the bytes read: about 1,200 rows in all
        read_bytes[0] = 1000
        validate.tick(900)  # fused: read says it is done after the last row went through validate
        read.check()
        validate.finish()
    assert caplog.messages == ["validate: 300 of about 1,200 (25%), 60/s, about 0:15 left",
                               "read: 0.0 of 0.0 MB (100%), 0 rows in 0:05, 0.0 MB/s",
                               "validate: 1,200 of 1,200 (100%) in 0:05, 240/s"]


def _bar_lines(records: list[tuple[str, str | None, bool]]) -> str:
    stream = io.StringIO()
    handler = BarHandler(stream)
    handler.setFormatter(logging.Formatter("%(message)s"))
    for msg, bar, bar_done in records:
        extra = {} if bar is None else {"bar": bar, "bar_done": bar_done}
        handler.handle(logging.makeLogRecord({"msg": msg, "levelno": logging.INFO, **extra}))
    return stream.getvalue()


def test_a_terminal_draws_bars_in_place_and_ends_them_before_other_lines():
    assert progress_bar("embed", 6, 2.0, 24) == \
        "embed             [######------------------]  25%  6/24  3/s  about 0:06 left"
    assert progress_bar("embed", 24, 8.0, 24).endswith("100%  24/24  3/s  done in 0:08")
    out = _bar_lines([("embed: 6 of 24", "bar 25%", False), ("embed: 12 of 24", "bar 50%", False),
                      ("published", None, False), ("embed: 24 of 24", "bar 100%", True)])
    assert out == "\r\x1b[Kbar 25%\r\x1b[Kbar 50%\npublished\n\r\x1b[Kbar 100%\n"



@contextlib.contextmanager
def _logging_restored():
    """The root logger (yielded) as it was before, whatever setup_logging did to it inside."""
    root = logging.getLogger()
    saved = list(root.handlers), root.level, logging.getLogger("qabase").level
    try:
        yield root
    finally:
        for h in list(root.handlers):
            root.removeHandler(h)
        for h in saved[0]:
            root.addHandler(h)
        root.setLevel(saved[1])
        logging.getLogger("qabase").setLevel(saved[2])


def test_logs_that_are_not_a_terminal_get_plain_lines(capsys):
    from schemas.logs import setup_logging

    with _logging_restored() as root:
        setup_logging()  # stderr captured: not a terminal, as in a log file or under Airflow
        assert not any(isinstance(h, BarHandler) for h in root.handlers)
        meter = StageMeter("embed", total=2)
        meter.tick(2)
        err = capsys.readouterr().err
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d INFO qabase\.progress: embed: 2 of 2 \(100%\) in 0:00, "
                        r"\d+/s\n", err), err
    assert "\r" not in err and "[#" not in err


_LAST = re.compile(r"(?P<label>[a-z ]+?(?: tier \d+)?): (?P<done>[\d,.]+) of (?P<total>[\d,.]+)(?: MB)? \(100%\)"
                   r"(?:, (?P<rows>[\d,]+) rows)? in ")
_EVERY = re.compile(r"(?P<label>[a-z ]+?(?: tier \d+)?): (?:[\d,.]+) of (?P<about>about )?(?P<total>[\d,.]+)")


def test_every_stage_says_its_real_total_which_the_stage_table_counts(tmp_path, monkeypatch, caplog):
    """A small build with a line at every item: every line of a stage is against the same total, which is what
    the stage ends with and what the end-of-build table counts as its items."""
    from fakes.models import FakeModels
    from models.config_check import load_config
    from pipelines.build import run_build

    monkeypatch.setattr(metering, "LOG_EVERY_S", 0.0)
    with caplog.at_level(logging.INFO, logger="qabase.progress"):
        res = run_build([str(FIXTURES / "tiny.jsonl")], tmp_path / "base", load_config(None, FAST_BUILD),
                        factory=FakeModels(), gate=False, report=False)
    lines = [m for m in caplog.messages if " of " in m]
    assert not [m for m in caplog.messages if "so far" in m]
    last = {}
    for m in lines:
        hit = _LAST.match(m)
        if hit:
            assert hit["label"] not in last, f"two last lines for {hit['label']}"
            last[hit["label"]] = hit
    for m in lines:  # every line of a stage is against the total it ends with (validate: estimated before)
        every = _EVERY.match(m)
        if not every["about"]:
            assert every["total"] == last[every["label"]]["total"], m
    table = {r["stage"]: r["in"] for r in res.stage_table}
    done = lambda label: int(last[label]["done"].replace(",", ""))  # noqa: E731
    assert int(last["read"]["rows"].replace(",", "")) == table["read"]
    assert last["read"]["done"] == last["read"]["total"]
    for stage in ("validate", "paraphrase", "nonanswer", "embed", "aggregate", "write"):
        assert done(stage) == table[stage], stage
    assert done("count") == res.manifest["counts"]["distinct_questions"]
    tiers = [label for label in last if label.startswith("score tier")]
    assert tiers and sum(done(t) for t in tiers) == table["score"]
    # the time-sensitivity judge runs inside the score tiers' batches: their lines speak for it, none of its own,
    # while the stage table still counts its questions
    assert not [m for m in lines if m.startswith("time tier")]
    assert table["time"] == table["score"]


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


def test_what_a_model_computes_as_it_loads_counts_for_the_stage_loading_it():
    """An intent scorer embeds its prototypes as it loads: the ledger of model calls (models.calls) names the
    stage, not ``-``."""
    from models.calls import _STAGE

    class Loading(_Handler):
        @announce_loading("intent")
        def load_model(self):
            return _STAGE.get()

    assert Loading(False).load_model() == "score"
    assert _STAGE.get() == "-"


def test_log_lines_carry_the_date(capsys):
    from schemas.logs import setup_logging

    with _logging_restored():
        setup_logging()
        logging.getLogger("qabase.test").info("hello")
        err = capsys.readouterr().err
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d INFO qabase\.test: hello\n", err), err
