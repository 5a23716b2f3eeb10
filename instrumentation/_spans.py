"""Context managers that emit OTel GenAI semantic-convention spans for agent steps."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from ._redact import Redactor, redact_secrets

Effect = Literal["read", "propose", "mutate", "unknown"]


@dataclass
class ContentPolicy:
    """Whether message and argument content is recorded, and how it is masked first."""

    capture: bool = False
    redact: Redactor = field(default=redact_secrets)
    max_chars: int = 16_384

    def __call__(self, text: str) -> str | None:
        if not self.capture:
            return None
        text = self.redact(text)
        return text if len(text) <= self.max_chars else text[: self.max_chars] + "…"


class _Step:
    """What a `with` block can record on its span."""

    def __init__(self, span: Span, content: ContentPolicy) -> None:
        self.span = span
        self._content = content

    def set(self, key: str, value: Any) -> None:
        if value is not None and value != "":
            self.span.set_attribute(key, value)

    def set_content(self, key: str, text: str) -> None:
        kept = self._content(text)
        if kept is not None:
            self.span.set_attribute(key, kept)

    def fail(self, error_type: str, message: str = "") -> None:
        """Mark the step failed without raising (e.g. a tool error the model will read)."""
        self.span.set_status(Status(StatusCode.ERROR, message))
        self.span.set_attribute("error.type", error_type)

    @property
    def trace_id(self) -> str:
        return format(self.span.get_span_context().trace_id, "032x")

    @property
    def span_id(self) -> str:
        return format(self.span.get_span_context().span_id, "016x")


class AgentStep(_Step):
    def set_answer(self, text: str) -> None:
        self.set_content("gen_ai.output.messages", json.dumps(
            [{"role": "assistant", "parts": [{"type": "text", "content": text}]}]))


class ChatStep(_Step):
    def set_response(self, *, model: str = "", response_id: str = "", input_tokens: int | None = None,
                     output_tokens: int | None = None, finish_reasons: list[str] | None = None) -> None:
        self.set("gen_ai.response.model", model)
        self.set("gen_ai.response.id", response_id)
        self.set("gen_ai.usage.input_tokens", input_tokens)
        self.set("gen_ai.usage.output_tokens", output_tokens)
        if finish_reasons:
            self.span.set_attribute("gen_ai.response.finish_reasons", finish_reasons)

    def set_input_messages(self, messages: list[dict[str, Any]]) -> None:
        self.set_content("gen_ai.input.messages", json.dumps(to_genai_messages(messages)))

    def set_output_message(self, message: dict[str, Any], finish_reason: str = "") -> None:
        [converted] = to_genai_messages([message])
        if finish_reason:
            converted["finish_reason"] = finish_reason
        self.set_content("gen_ai.output.messages", json.dumps([converted]))


class ToolStep(_Step):
    def set_result(self, result: Any) -> None:
        text = result if isinstance(result, str) else json.dumps(result, default=str)
        self.set_content("gen_ai.tool.call.result", text)


class Telemetry:
    """Emits agent, chat and tool spans on one TracerProvider, under one content policy."""

    def __init__(self, provider: TracerProvider | None = None,
                 content: ContentPolicy | None = None) -> None:
        self.provider = provider
        source = provider or trace.get_tracer_provider()
        self.tracer = source.get_tracer("agentwatch.instrumentation", "0.1.0")
        self.content = content or ContentPolicy()

    @contextmanager
    def invoke_agent(self, name: str, *, agent_id: str = "", version: str = "",
                     conversation_id: str = "", provider: str = "",
                     attributes: dict[str, Any] | None = None) -> Iterator[AgentStep]:
        attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": name,
                 "gen_ai.agent.id": agent_id, "gen_ai.agent.version": version,
                 "gen_ai.conversation.id": conversation_id, "gen_ai.provider.name": provider,
                 **(attributes or {})}
        with self._span(f"invoke_agent {name}", SpanKind.INTERNAL, attrs, AgentStep) as step:
            yield step

    @contextmanager
    def chat(self, model: str, *, provider: str = "openai", server_address: str = "",
             temperature: float | None = None, max_tokens: int | None = None) -> Iterator[ChatStep]:
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.provider.name": provider,
                 "gen_ai.request.model": model, "server.address": server_address,
                 "gen_ai.request.temperature": temperature, "gen_ai.request.max_tokens": max_tokens}
        with self._span(f"chat {model}", SpanKind.CLIENT, attrs, ChatStep) as step:
            yield step

    @contextmanager
    def execute_tool(self, name: str, *, call_id: str = "", effect: Effect = "unknown",
                     tool_type: str = "function", arguments: Any = None,
                     description: str = "") -> Iterator[ToolStep]:
        attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                 "gen_ai.tool.call.id": call_id, "gen_ai.tool.type": tool_type,
                 "gen_ai.tool.description": description, "agentwatch.tool.effect": effect}
        with self._span(f"execute_tool {name}", SpanKind.INTERNAL, attrs, ToolStep) as step:
            if arguments is not None:
                text = arguments if isinstance(arguments, str) else json.dumps(arguments, default=str)
                step.set_content("gen_ai.tool.call.arguments", text)
            yield step

    def tool(self, name: str | None = None, effect: Effect = "unknown") -> Callable[..., Any]:
        """Decorator: each call of the function is an execute_tool span."""
        def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
            def run(*args: Any, **kwargs: Any) -> Any:
                with self.execute_tool(name or fn.__name__, effect=effect,
                                       arguments={"args": list(args), "kwargs": kwargs}) as step:
                    result = fn(*args, **kwargs)
                    step.set_result(result)
                    return result
            run.__name__ = fn.__name__
            run.__doc__ = fn.__doc__
            return run
        return wrap

    def flush(self, timeout_ms: int = 30_000) -> bool:
        return self.provider.force_flush(timeout_ms) if self.provider else True

    def shutdown(self) -> None:
        if self.provider:
            self.provider.shutdown()

    @contextmanager
    def _span(self, name: str, kind: SpanKind, attributes: dict[str, Any],
              step_type: type[_Step]) -> Iterator[Any]:
        clean = {k: v for k, v in attributes.items() if v is not None and v != ""}
        with self.tracer.start_as_current_span(name, kind=kind, attributes=clean,
                                               record_exception=False,
                                               set_status_on_exception=False) as span:
            step = step_type(span, self.content)
            try:
                yield step
            except BaseException as exc:
                span.record_exception(exc)
                step.fail(type(exc).__qualname__, self.content.redact(str(exc))[:500])
                raise


def to_genai_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI chat messages as GenAI semantic-convention messages (role + parts)."""
    out = []
    for message in messages:
        parts: list[dict[str, Any]] = []
        content = message.get("content")
        if message.get("role") == "tool":
            parts.append({"type": "tool_call_response", "id": message.get("tool_call_id", ""),
                          "response": content})
        elif isinstance(content, str) and content:
            parts.append({"type": "text", "content": content})
        elif isinstance(content, list):
            parts.extend({"type": "text", "content": p.get("text", "")} for p in content
                         if isinstance(p, dict))
        for call in message.get("tool_calls") or []:
            fn = call.get("function", {})
            parts.append({"type": "tool_call", "id": call.get("id", ""), "name": fn.get("name", ""),
                          "arguments": fn.get("arguments", "")})
        out.append({"role": message.get("role", "user"), "parts": parts})
    return out
