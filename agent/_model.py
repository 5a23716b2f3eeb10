"""An async client for OpenAI-compatible Chat Completions (OpenAI, Azure OpenAI, vLLM, Ollama,
LiteLLM, ...), over httpx, with retries that honour Retry-After. Every call is a `chat` span."""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from instrumentation import Telemetry
from schemas.errors import (
    ModelAuthError,
    ModelBadRequest,
    ModelError,
    ModelRateLimited,
    ModelResponseError,
    ModelTimeout,
    ModelUnavailable,
)

_RETRYABLE = {429, 500, 502, 503, 504}


@dataclass
class Completion:
    message: dict[str, Any]
    finish_reason: str
    model: str
    response_id: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    attempts: int = 1

    @property
    def text(self) -> str:
        return str(self.message.get("content") or "")

    @property
    def tool_calls(self) -> list[dict[str, Any]]:
        return list(self.message.get("tool_calls") or [])


@dataclass
class RetryPolicy:
    max_retries: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 20.0
    rng: random.Random = field(default_factory=random.Random)

    def delay(self, attempt: int, retry_after_s: float | None) -> float:
        """Full-jitter exponential backoff, never shorter than the server's Retry-After."""
        backoff = self.rng.uniform(0, min(self.max_delay_s, self.base_delay_s * 2**attempt))
        return min(self.max_delay_s, max(backoff, retry_after_s or 0.0))


class ModelClient:
    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        provider: str = "openai",
        timeout_s: float = 60.0,
        retry: RetryPolicy | None = None,
        telemetry: Telemetry | None = None,
        headers: dict[str, str] | None = None,
        on_throttle: Any = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.provider = provider
        self.retry = retry or RetryPolicy()
        self.telemetry = telemetry or Telemetry()
        self.on_throttle = on_throttle  # called with the delay when the provider says 429
        auth = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.AsyncClient(timeout=timeout_s, headers={**auth, **(headers or {})})
        self._server = urlsplit(self.base_url).hostname or ""

    async def aclose(self) -> None:
        await self._http.aclose()

    async def complete(
        self,
        model: str,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: str | dict[str, Any] | None = None,
        response_format: dict[str, Any] | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> Completion:
        body: dict[str, Any] = {"model": model, "messages": messages}
        for key, value in (("tools", tools), ("tool_choice", tool_choice),
                           ("response_format", response_format), ("temperature", temperature),
                           ("max_tokens", max_tokens)):
            if value is not None:
                body[key] = value
        with self.telemetry.chat(model, provider=self.provider, server_address=self._server,
                                 temperature=temperature, max_tokens=max_tokens) as step:
            step.set_input_messages(messages)
            completion = await self._post_with_retries(body)
            step.set_response(model=completion.model, response_id=completion.response_id,
                              input_tokens=completion.input_tokens,
                              output_tokens=completion.output_tokens,
                              finish_reasons=[completion.finish_reason])
            step.set_output_message(completion.message, completion.finish_reason)
            if completion.attempts > 1:
                step.set("agentwatch.model.attempts", completion.attempts)
            return completion

    async def call_function(
        self, model: str, messages: list[dict[str, Any]], name: str, parameters: dict[str, Any],
        description: str = "",
    ) -> dict[str, Any]:
        """Force one function call and return its parsed arguments (structured output)."""
        tool = {"type": "function", "function": {"name": name, "description": description,
                                                 "parameters": parameters}}
        completion = await self.complete(
            model, messages, tools=[tool],
            tool_choice={"type": "function", "function": {"name": name}})
        calls = [c for c in completion.tool_calls if c.get("function", {}).get("name") == name]
        if not calls:
            raise ModelResponseError(f"the model did not call {name}")
        try:
            arguments = json.loads(calls[0]["function"].get("arguments") or "{}")
        except json.JSONDecodeError as exc:
            raise ModelResponseError(f"{name} arguments are not JSON: {exc}") from None
        if not isinstance(arguments, dict):
            raise ModelResponseError(f"{name} arguments are not a JSON object")
        return arguments

    async def _post_with_retries(self, body: dict[str, Any]) -> Completion:
        url = f"{self.base_url}/chat/completions"
        attempt = 0
        while True:
            try:
                response = await self._http.post(url, json=body)
            except httpx.TimeoutException as exc:
                error: ModelError = ModelTimeout(f"no answer from {self._server} in time: {exc!r}")
                retry_after = None
            except httpx.HTTPError as exc:
                error = ModelUnavailable(f"cannot reach {self._server}: {exc!r}")
                retry_after = None
            else:
                if response.status_code == 200:
                    completion = _parse(response)
                    completion.attempts = attempt + 1
                    return completion
                error = _status_error(response)
                if response.status_code not in _RETRYABLE:
                    raise error
                retry_after = _retry_after_s(response.headers.get("retry-after"))
            if attempt >= self.retry.max_retries:
                raise error
            delay = self.retry.delay(attempt, retry_after)
            if isinstance(error, ModelRateLimited) and self.on_throttle is not None:
                self.on_throttle(delay)
            attempt += 1
            await asyncio.sleep(delay)


def _parse(response: httpx.Response) -> Completion:
    try:
        data = response.json()
        choice = data["choices"][0]
        message = dict(choice["message"])
        usage = data.get("usage") or {}
        return Completion(
            message={"role": "assistant", "content": message.get("content"),
                     **({"tool_calls": message["tool_calls"]} if message.get("tool_calls") else {})},
            finish_reason=str(choice.get("finish_reason") or "stop"),
            model=str(data.get("model", "")),
            response_id=str(data.get("id", "")),
            input_tokens=int(usage.get("prompt_tokens") or 0),
            output_tokens=int(usage.get("completion_tokens") or 0),
        )
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise ModelResponseError(f"malformed Chat Completions response: {exc!r}") from None


def _status_error(response: httpx.Response) -> ModelError:
    status = response.status_code
    try:
        detail = response.json().get("error", {})
        message = detail.get("message") if isinstance(detail, dict) else str(detail)
    except (ValueError, AttributeError):
        message = response.text[:200]
    text = f"provider answered {status}: {message or response.reason_phrase}"
    if status in (401, 403):
        return ModelAuthError(text, status)
    if status == 429:
        return ModelRateLimited(text, status)
    if status >= 500:
        return ModelUnavailable(text, status)
    return ModelBadRequest(text, status)


def _retry_after_s(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None
