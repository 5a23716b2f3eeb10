"""The model client's retries, backoff and errors, against injected provider failures."""

from __future__ import annotations

import asyncio
import email.utils
import time

import pytest

from agent import ModelClient, RetryPolicy
from schemas.errors import (
    ModelAuthError,
    ModelRateLimited,
    ModelResponseError,
    ModelTimeout,
    ModelUnavailable,
)

from .helpers import memory_telemetry, scripted_model

MESSAGES = [{"role": "user", "content": "hello"}]
FAST = RetryPolicy(max_retries=3, base_delay_s=0.01, max_delay_s=2)


def _complete(url: str, retry: RetryPolicy = FAST, timeout_s: float = 10, **kw):  # type: ignore[no-untyped-def]
    telemetry, exporter = memory_telemetry()

    async def go():  # type: ignore[no-untyped-def]
        client = ModelClient(f"{url}/v1", api_key="sk-test-1234567890abcdefgh", retry=retry,
                             telemetry=telemetry, timeout_s=timeout_s)
        try:
            return await client.complete("sim", MESSAGES, **kw)
        finally:
            await client.aclose()

    return asyncio.run(go()), exporter


def test_429_honours_retry_after_then_succeeds() -> None:
    with scripted_model({"errors": [{"kind": "429", "attempts": [1], "retry_after_s": 0.6}]}) as m:
        started = time.monotonic()
        completion, exporter = _complete(m.url)
        assert time.monotonic() - started >= 0.6
        assert completion.attempts == 2 and completion.text.startswith("Answer to:")
    [span] = exporter.get_finished_spans()
    assert span.name == "chat sim" and span.attributes["agentwatch.model.attempts"] == 2
    assert span.attributes["gen_ai.usage.input_tokens"] > 0


def test_5xx_are_retried_with_backoff() -> None:
    with scripted_model({"errors": [{"kind": "500", "attempts": [1, 2]},
                                    {"kind": "503", "attempts": [3], "retry_after_s": 0.1}]}) as m:
        completion, _ = _complete(m.url)
        assert completion.attempts == 4 and m.app.state.requests == 4


def test_gives_up_after_max_retries() -> None:
    with scripted_model({"errors": [{"kind": "500", "probability": 1}]}) as m:
        with pytest.raises(ModelUnavailable, match="provider answered 500"):
            _complete(m.url)
        assert m.app.state.requests == 4
    with scripted_model({"errors": [{"kind": "429", "probability": 1, "retry_after_s": 0}]}) as m, \
            pytest.raises(ModelRateLimited):
        _complete(m.url)


def test_auth_failure_is_not_retried_and_the_key_is_not_logged() -> None:
    with scripted_model({"errors": [{"kind": "401", "probability": 1}]}) as m, pytest.raises(
            ModelAuthError, match="401") as info:
        _complete(m.url)
    assert m.app.state.requests == 1
    assert "sk-test" not in str(info.value)


def test_malformed_response_is_a_clear_error() -> None:
    with scripted_model({"errors": [{"kind": "malformed", "probability": 1}]}) as m, pytest.raises(
            ModelResponseError, match="malformed"):
        _complete(m.url)


def test_timeout_is_retried_then_reported() -> None:
    with scripted_model({"errors": [{"kind": "timeout", "probability": 1, "timeout_s": 3}]}) as m:
        started = time.monotonic()
        with pytest.raises(ModelTimeout, match="in time"):
            _complete(m.url, RetryPolicy(max_retries=1, base_delay_s=0.01), timeout_s=0.3)
        assert time.monotonic() - started < 2.5


def test_unreachable_provider() -> None:
    with pytest.raises(ModelUnavailable, match="cannot reach"):
        _complete("http://127.0.0.1:9", RetryPolicy(max_retries=1, base_delay_s=0.01))


def test_forced_function_call_returns_parsed_arguments() -> None:
    script = {"scenarios": [
        {"name": "grade", "match": "grade", "turns": [
            {"tool_calls": [{"name": "verdict", "arguments": {"verdict": "pass", "reasoning": "ok"}}]}]},
        {"name": "chat", "match": "chat", "turns": [{"text": "just text"}]}]}
    telemetry, _ = memory_telemetry()

    async def go(url: str):  # type: ignore[no-untyped-def]
        client = ModelClient(f"{url}/v1", telemetry=telemetry, retry=FAST)
        try:
            good = await client.call_function(
                "fast", [{"role": "user", "content": "grade this"}], "verdict",
                {"type": "object", "properties": {"verdict": {"type": "string"}}})
            with pytest.raises(ModelResponseError, match="did not call verdict"):
                await client.call_function("fast", [{"role": "user", "content": "chat"}],
                                           "verdict", {"type": "object"})
            return good
        finally:
            await client.aclose()

    with scripted_model(script) as m:
        assert asyncio.run(go(m.url)) == {"verdict": "pass", "reasoning": "ok"}


def test_backoff_is_bounded_and_respects_retry_after() -> None:
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=8)
    for attempt in range(10):
        assert 0 <= policy.delay(attempt, None) <= 8
        assert policy.delay(attempt, 3.0) >= 3.0
    assert policy.delay(0, 100) == 8


def test_retry_after_as_http_date() -> None:
    from agent._model import _retry_after_s

    future = email.utils.formatdate(time.time() + 5, usegmt=True)
    assert 3 <= (_retry_after_s(future) or 0) <= 5
    assert _retry_after_s("2") == 2.0 and _retry_after_s(None) is None
