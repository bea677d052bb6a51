"""LLM answer aggregation: a local Hugging Face causal LM directory, or an OpenAI-compatible HTTP endpoint.

``LlmAggregator`` renders the versioned prompt (``models.aggregators.prompt``) for each group,
generates the replies in batches, and parses them strictly. A reply that does not
parse, or a generator that fails, falls back to the embedding aggregator for that
group, with the flag ``llm_fallback:<reason>`` on the record.

From a parsed reply: viewpoints in the model's order, then re-ordered by support
(answer occurrences); ``confidence`` is the largest viewpoint's share of the
occurrences and ``vote_margin`` its lead over the next. Objective questions store
the model's ``Summary`` line as the fused answer; subjective ones the summary
followed by the viewpoints. Answers the model marked unassigned are flagged
(``unassigned_answers``).

Generators:
* ``HfGenerator(path)``: greedy decoding, left padding, batches of ``batch_size``.
* ``HttpGenerator(url, model)``: ``POST {url}/v1/completions`` with a list of prompts
  (vLLM, TGI's OpenAI layer and ``python -m models.tools.serve_llm`` accept it); the API
  key, if any, comes from ``$QABASE_LLM_API_KEY``. A 429, 408, 5xx, timeout or refused
  connection is retried with backoff (``models.aggregators.retry``; ``aggregation.llm_attempts``,
  ``aggregation.llm_retry_max_seconds``) before the batch falls back.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Protocol

from models.aggregators.base import AggregateResult, Viewpoint, overall_summary
from models.aggregators.prompt import AggregationParseError, load_prompt, parse_aggregation
from models.aggregators.retry import (RetriesExhausted, RetryPolicy, TransientError, parse_retry_after,
                                      retryable_status, with_retries)
from schemas.config import AggregationConfig
from schemas.errors import ModelLoadError

log = logging.getLogger(__name__)

class Generator(Protocol):
    model_id: str

    def generate(self, prompts: list[str]) -> list[str]: ...


class GenerationError(RuntimeError):
    pass


class HfGenerator:
    def __init__(self, path: str | Path, max_new_tokens: int = AggregationConfig.llm_max_new_tokens,
                 batch_size: int = 4, max_prompt_tokens: int = 1536, device: str = "cpu"):
        import torch

        from models.embedders.hf import load_hf_dir
        from models.embedders.hf_common import resolve_device

        path = Path(path)
        self.device = resolve_device(device)  # before loading: a missing GPU fails fast
        self._tok, self._model, fingerprint = load_hf_dir(path, "AutoModelForCausalLM", "a causal LM")
        self._model = self._model.to(self.device)
        if self._tok.pad_token is None:
            self._tok.pad_token = self._tok.eos_token or self._tok.unk_token
        self._tok.padding_side = "left"
        self._torch = torch
        self._max_new = max_new_tokens
        self._batch = batch_size
        self._max_prompt = max_prompt_tokens
        self.model_id = hf_generator_identity(path, max_new_tokens, fingerprint)

    def generate(self, prompts: list[str]) -> list[str]:
        torch = self._torch
        out: list[str] = []
        with torch.inference_mode():
            for start in range(0, len(prompts), self._batch):
                chunk = prompts[start:start + self._batch]
                enc = self._tok(chunk, return_tensors="pt", padding=True, truncation=True,
                                max_length=self._max_prompt, add_special_tokens=True)
                enc.pop("token_type_ids", None)
                enc = {k: v.to(self.device) for k, v in enc.items()}
                gen = self._model.generate(**enc, max_new_tokens=self._max_new, do_sample=False,
                                           pad_token_id=self._tok.pad_token_id)
                new = gen[:, enc["input_ids"].shape[1]:]
                out.extend(self._tok.batch_decode(new, skip_special_tokens=True))
        return out


LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
ALLOW_INSECURE = "QABASE_LLM_ALLOW_INSECURE"


def refuse_key_in_clear(url: str) -> None:
    """The API key travels as a bearer token: never in clear text over a network (plain http:// to another
    host than this one), unless $QABASE_LLM_ALLOW_INSECURE=1 says the network is trusted."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    local = host in LOOPBACK_HOSTS or host.startswith("127.")
    if os.environ.get("QABASE_LLM_API_KEY") and parts.scheme == "http" and not local \
            and os.environ.get(ALLOW_INSECURE) != "1":
        raise ModelLoadError(f"aggregation backend {url}: refusing to send $QABASE_LLM_API_KEY in clear text to "
                             f"{host} over http://; use https://, or set {ALLOW_INSECURE}=1 on a trusted network")


class HttpGenerator:
    """``attempts``, ``retry_max_s``: the retry budget of each request (:class:`models.aggregators.retry.RetryPolicy`);
    ``retry_base_s``: the first backoff. None of them is part of ``model_id``: they change when, not what."""

    def __init__(self, url: str, model: str = AggregationConfig.llm_model,
                 max_new_tokens: int = AggregationConfig.llm_max_new_tokens,
                 timeout_s: float = AggregationConfig.llm_timeout_seconds, batch_size: int = 8,
                 attempts: int = AggregationConfig.llm_attempts,
                 retry_max_s: float = AggregationConfig.llm_retry_max_seconds, retry_base_s: float = 1.0):
        self._url = url.rstrip("/")
        if self._url.endswith("/v1"):
            self._url = self._url[:-3]
        refuse_key_in_clear(self._url)
        self._timeout = timeout_s
        self._retry = RetryPolicy(attempts=attempts, max_seconds=retry_max_s, base_seconds=retry_base_s)
        # after a request spent its whole budget, later ones try once until the endpoint answers again:
        # a dead endpoint must not cost every batch of the build its retry budget
        self._endpoint_down = False
        if model in ("", "auto"):
            model = self._first_model()
        self._model = model
        self._max_new = max_new_tokens
        self._batch = batch_size
        self.model_id = http_generator_identity(self._url, model, max_new_tokens)

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if os.environ.get("QABASE_LLM_API_KEY"):
            headers["Authorization"] = f"Bearer {os.environ['QABASE_LLM_API_KEY']}"
        return headers

    def _fetch_json_once(self, req: urllib.request.Request):
        """One request's parsed JSON reply; :class:`TransientError` for what a retry may cure."""
        try:
            with urllib.request.urlopen(req, timeout=self._timeout) as resp:
                return json.loads(resp.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            if retryable_status(exc.code):
                raise TransientError(f"http_{exc.code}", parse_retry_after(exc.headers.get("Retry-After"))) from None
            raise GenerationError(f"http_{exc.code}") from None
        except TimeoutError:  # connecting or reading took longer than timeout_s
            raise TransientError("timeout") from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise TransientError("timeout") from None
            raise TransientError(f"unreachable: {exc.reason}") from None
        except (OSError, http.client.HTTPException) as exc:  # refused, reset, closed mid-reply
            raise TransientError(f"unreachable: {type(exc).__name__}: {exc}") from None
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise GenerationError("bad_json") from None

    def _fetch_json(self, req: urllib.request.Request):
        """:meth:`_fetch_json_once` within the retry budget; :class:`GenerationError` when it runs out."""
        policy = self._retry if not self._endpoint_down else RetryPolicy(attempts=1)
        what = f"LLM endpoint {req.full_url}"
        try:
            data = with_retries(lambda: self._fetch_json_once(req), policy, what)
        except RetriesExhausted as exc:
            if not self._endpoint_down and self._retry.attempts > 1:
                log.warning("%s: %s; the batch falls back, and later requests try once until the endpoint "
                            "answers", what, exc)
            self._endpoint_down = True
            raise GenerationError(exc.last.reason) from None
        self._endpoint_down = False
        return data

    def _first_model(self) -> str:
        req = urllib.request.Request(f"{self._url}/v1/models", headers=self._headers())
        try:
            data = self._fetch_json(req)
            return str(data["data"][0]["id"])
        except (GenerationError, KeyError, IndexError, TypeError) as exc:
            raise ModelLoadError(f"aggregation backend {self._url}: cannot list its models "
                                 f"({type(exc).__name__}: {exc}); set aggregation.llm_model") from None

    def _post(self, prompts: list[str]) -> list[str]:
        body = json.dumps({"model": self._model, "prompt": prompts, "max_tokens": self._max_new,
                           "temperature": 0.0}).encode("utf-8")
        req = urllib.request.Request(f"{self._url}/v1/completions", data=body, headers=self._headers(),
                                     method="POST")
        data = self._fetch_json(req)
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or len(choices) != len(prompts):
            raise GenerationError("bad_choices")
        texts = [""] * len(prompts)
        for pos, choice in enumerate(choices):
            index = choice.get("index", pos) if isinstance(choice, dict) else pos
            if not isinstance(choice, dict) or not isinstance(choice.get("text"), str) or not 0 <= index < len(texts):
                raise GenerationError("bad_choices")
            texts[index] = choice["text"]
        return texts

    def generate(self, prompts: list[str]) -> list[str]:
        out: list[str] = []
        for start in range(0, len(prompts), self._batch):
            out.extend(self._post(prompts[start:start + self._batch]))
        return out


class LlmAggregator:
    def __init__(self, generator: Generator, fallback, prompt_version: str = AggregationConfig.prompt_version):
        self.generator = generator
        self.fallback = fallback
        self.prompt = load_prompt(prompt_version)
        self.model_id = llm_aggregator_identity(generator.model_id, prompt_version, fallback.model_id)

    def aggregate_many(self, groups):
        prompts = [self.prompt.render(q, [a.text for a in answers], lang) for q, _, lang, answers in groups]
        try:
            replies: list[str | None] = list(self.generator.generate(prompts))
            failure = ""
        except GenerationError as exc:
            replies, failure = [None] * len(groups), f"generation_failed:{exc}"[:80]
        results: list[AggregateResult | None] = []
        fallback_idx: list[int] = []
        reasons: dict[int, str] = {}
        for i, ((question, qtype, lang, answers), reply) in enumerate(zip(groups, replies)):
            if reply is None:
                results.append(None)
                fallback_idx.append(i)
                reasons[i] = failure
                continue
            try:
                results.append(from_reply(reply, qtype, lang, answers))
            except AggregationParseError as exc:
                results.append(None)
                fallback_idx.append(i)
                reasons[i] = exc.reason
        if fallback_idx:
            fb = self.fallback.aggregate_many([groups[i] for i in fallback_idx])
            for i, res in zip(fallback_idx, fb):
                results[i] = res._replace(flags=res.flags + [f"llm_fallback:{reasons[i]}"])
        return results


def from_reply(reply: str, qtype: str, lang: str, answers) -> AggregateResult:
    parsed = parse_aggregation(reply, len(answers))
    count = {a.answer_id: a.count for a in answers}
    by_position = {pos: a.answer_id for pos, a in enumerate(answers, 1)}  # prompt numbers -> answer ids
    views = [Viewpoint(text, sorted(by_position[i] for i in ids)) for text, ids in parsed.viewpoints]
    support = [sum(count[i] for i in v.answer_ids) for v in views]
    order = sorted(range(len(views)), key=lambda k: (-support[k], k))
    views = [views[k] for k in order]
    support = [support[k] for k in order]
    total = sum(count.values())
    share = support[0] / total
    margin = (support[0] - (support[1] if len(support) > 1 else 0)) / total
    flags = []
    if parsed.unassigned:
        flags.append("unassigned_answers")
    if len(support) > 1 and support[0] == support[1]:
        flags.append("tie")
    if len(answers) > 1 and len(views) == len(answers):
        flags.append("all_different")
    if qtype == "subjective":
        body = overall_summary(views, lang)
        answer = f"{parsed.summary} {body}".strip() if parsed.summary else body
        method = "llm-viewpoints"
    else:
        if not parsed.summary:
            raise AggregationParseError("no_summary")
        answer = parsed.summary
        method = "llm-majority-vote"
        if share < 0.5:
            flags.append("low_agreement")
    return AggregateResult(answer, round(share, 6), round(margin, 6), views, method, flags)


def make_generator(backend: str, max_new_tokens: int = AggregationConfig.llm_max_new_tokens,
                   model: str = AggregationConfig.llm_model, *, attempts: int = AggregationConfig.llm_attempts,
                   retry_max_s: float = AggregationConfig.llm_retry_max_seconds,
                   timeout_s: float = AggregationConfig.llm_timeout_seconds, device: str = "cpu") -> Generator:
    """``hf:/path`` (on ``device``: ``models.device``) or ``http://host:port`` / ``https://...`` (with its retry
    budget and per-request timeout)."""
    if backend.startswith("hf:"):
        return HfGenerator(backend[3:], max_new_tokens=max_new_tokens, device=device)
    if backend.startswith(("http://", "https://")):
        return HttpGenerator(backend, model=model, max_new_tokens=max_new_tokens, timeout_s=timeout_s,
                             attempts=attempts, retry_max_s=retry_max_s)
    raise ModelLoadError(f"aggregation backend {backend!r}: expected embedding, hf:/path or http(s)://host:port")


def hf_generator_identity(path: str | Path, max_new_tokens: int, fingerprint: str | None = None) -> str:
    from models.embedders.hf import dir_fingerprint

    path = Path(path)
    return f"hf:{path.name}@{fingerprint or dir_fingerprint(path)}/max{max_new_tokens}"


def http_generator_identity(url: str, model: str, max_new_tokens: int) -> str:
    """``model`` "auto" stays "auto" here; a loaded HttpGenerator names the model the endpoint serves."""
    url = url.rstrip("/")
    return f"http:{url[:-3] if url.endswith('/v1') else url}#{model or 'auto'}/max{max_new_tokens}"


def generator_identity(backend: str, max_new_tokens: int = AggregationConfig.llm_max_new_tokens,
                       model: str = AggregationConfig.llm_model) -> str:
    """What :func:`make_generator` would give as ``model_id``, without loading a model or calling an endpoint."""
    if backend.startswith("hf:"):
        return hf_generator_identity(backend[3:], max_new_tokens)
    return http_generator_identity(backend, model, max_new_tokens)


def llm_aggregator_identity(generator_id: str, prompt_version: str, fallback_id: str) -> str:
    return f"llm-aggregator[{generator_id}|{load_prompt(prompt_version).prompt_id}|fallback={fallback_id}]"
