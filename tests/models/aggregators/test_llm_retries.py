"""The HTTP generator's retries, against a real server on 127.0.0.1 that fails on purpose: passing failures
(429 with Retry-After, 5xx, a reply slower than the timeout) are retried with backoff within the budget; a
400 never is; a spent budget sends the batch to the fallback aggregator."""

import json
import logging
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from models.aggregators.embedding import EmbeddingAggregator
from models.aggregators.llm import GenerationError, HttpGenerator, LlmAggregator
from models.aggregators.retry import RetryPolicy, TransientError, parse_retry_after, retryable_status, with_retries
from schemas.config import load_config
from schemas.errors import ConfigError
from schemas.records import AnswerCount

REPLY = "Summary: Yes.\nViewpoint: Yes.\nAnswer IDs: Answer 1, Answer 2\n"


class Script:
    """What the server answers to each POST in turn: (status, headers, delay_s); after the list, 200 with REPLY."""

    def __init__(self, steps=()):
        self.steps = list(steps)
        self.posts = 0
        self.lock = threading.Lock()

    def next(self):
        with self.lock:
            self.posts += 1
            return self.steps.pop(0) if self.steps else (200, {}, 0.0)


@pytest.fixture
def server():
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # keep the test output clean
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            status, headers, delay = script.next()
            time.sleep(delay)
            payload = (json.dumps({"choices": [{"index": i, "text": REPLY} for i in range(len(body["prompt"]))]})
                       if status == 200 else json.dumps({"error": f"status {status}"})).encode()
            try:
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up on a slow reply
                pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", script
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


def _gen(url, **kw):
    kw = {"model": "m", "timeout_s": 5.0, "attempts": 4, "retry_max_s": 10.0, "retry_base_s": 0.01} | kw
    return HttpGenerator(url, **kw)


def _groups():
    return [("Is it good?", "objective", "en", [AnswerCount(1, "yes", 2), AnswerCount(2, "yes indeed", 1)])]


def test_a_429_with_retry_after_is_waited_out_then_answered(server, caplog):
    url, script = server
    script.steps = [(429, {"Retry-After": "0"}, 0.0), (503, {}, 0.0)]
    with caplog.at_level(logging.INFO, logger="models.aggregators.retry"):
        assert _gen(url).generate(["p1", "p2"]) == [REPLY, REPLY]
    assert script.posts == 3
    retries = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert len(retries) == 2 and "http_429; retry 1 of 3 in 0.0 s (Retry-After)" in retries[0]
    assert "http_503; retry 2 of 3" in retries[1]


def test_the_retry_after_seconds_are_honoured(server):
    url, script = server
    script.steps = [(429, {"Retry-After": "1"}, 0.0)]
    start = time.monotonic()
    assert _gen(url).generate(["p"]) == [REPLY]
    assert time.monotonic() - start >= 1.0 and script.posts == 2


def test_5xx_beyond_the_budget_falls_back_after_every_attempt(server):
    from fakes.models import FakeEmbedder

    url, script = server
    script.steps = [(500, {}, 0.0)] * 10
    gen = _gen(url, attempts=3)
    agg = LlmAggregator(gen, EmbeddingAggregator(FakeEmbedder()))
    (result,) = agg.aggregate_many(_groups())
    assert script.posts == 3
    assert "llm_fallback:generation_failed:http_500" in result.flags and result.method.startswith("embedding")
    # the endpoint spent a whole budget: the next batch tries once, and a success restores the retries
    with pytest.raises(GenerationError, match="http_500"):
        gen.generate(["p"])
    assert script.posts == 4
    script.steps = []
    assert gen.generate(["p"]) == [REPLY] and script.posts == 5
    script.steps = [(502, {}, 0.0)]
    assert gen.generate(["p"]) == [REPLY] and script.posts == 7


def test_no_retry_starts_past_the_time_budget(server):
    url, script = server
    script.steps = [(503, {"Retry-After": "30"}, 0.0)] * 3
    start = time.monotonic()
    with pytest.raises(GenerationError, match="http_503"):
        _gen(url, retry_max_s=5.0).generate(["p"])
    assert script.posts == 1 and time.monotonic() - start < 5.0


def test_a_reply_slower_than_the_timeout_is_retried(server):
    url, script = server
    script.steps = [(200, {}, 1.5)]
    assert _gen(url, timeout_s=0.5).generate(["p"]) == [REPLY]
    assert script.posts == 2


def test_a_400_is_never_retried(server):
    url, script = server
    script.steps = [(400, {}, 0.0), (400, {}, 0.0)]
    with pytest.raises(GenerationError, match="^http_400$"):
        _gen(url).generate(["p"])
    assert script.posts == 1


def test_a_refused_connection_is_retried_then_reported_unreachable(caplog):
    with caplog.at_level(logging.INFO, logger="models.aggregators.retry"):
        with pytest.raises(GenerationError, match="unreachable"):
            _gen("http://127.0.0.1:9", attempts=2).generate(["p"])
    assert sum("unreachable" in r.getMessage() and "retry 1 of 1" in r.getMessage() for r in caplog.records) == 1


def test_the_retries_change_no_identity():
    from models import registry
    from schemas.config import AggregationConfig, ModelsConfig

    base = AggregationConfig(backend="http://127.0.0.1:8000", llm_model="m")
    other = AggregationConfig(backend="http://127.0.0.1:8000", llm_model="m", llm_attempts=1,
                              llm_retry_max_seconds=0.0, llm_timeout_seconds=5.0)
    assert registry.aggregator_identity(ModelsConfig(), base) == registry.aggregator_identity(ModelsConfig(), other)


def test_retry_policy_backoff_doubles_with_jitter_within_its_cap():
    policy = RetryPolicy(base_seconds=1.0, cap_seconds=5.0)
    assert [policy.backoff(n, rng=lambda: 1.0) for n in range(4)] == [1.0, 2.0, 4.0, 5.0]
    assert [policy.backoff(n, rng=lambda: 0.0) for n in range(3)] == [0.5, 1.0, 2.0]
    waits = []
    calls = iter([TransientError("timeout"), TransientError("timeout"), "ok"])

    def call():
        item = next(calls)
        if isinstance(item, Exception):
            raise item
        return item

    assert with_retries(call, policy, "x", sleep=waits.append, rng=lambda: 1.0) == "ok" and waits == [1.0, 2.0]


def test_retryable_statuses_and_retry_after_forms():
    assert all(retryable_status(c) for c in (408, 429, 500, 502, 503, 504))
    assert not any(retryable_status(c) for c in (400, 401, 403, 404, 422))
    assert parse_retry_after("7") == 7.0 and parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10.0


@pytest.mark.parametrize("key,value,message", [
    ("aggregation.llm_attempts", 0, "aggregation.llm_attempts must be at least 1, got 0"),
    ("aggregation.llm_retry_max_seconds", -1, "aggregation.llm_retry_max_seconds must be 0 .no retry. or positive"),
    ("aggregation.llm_timeout_seconds", 0, "aggregation.llm_timeout_seconds must be positive"),
])
def test_the_retry_keys_are_validated(key, value, message):
    assert load_config(None).aggregation.llm_attempts == 4
    with pytest.raises(ConfigError, match=message):
        load_config(None, {key: value})
