"""Instrumentation helpers: GenAI spans, opt-in redacted content, errors, trace propagation."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI, Request
from opentelemetry import baggage

from agentwatch._server import BackgroundServer
from instrumentation import MASK, continue_trace, inject_headers, redact_secrets, with_baggage

from .helpers import memory_telemetry


@pytest.mark.parametrize(("text", "kept"), [
    ("key sk-proj-abcdefghijklmnopqrstuvwx here", "key [REDACTED] here"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijk",
     "Bearer [REDACTED]"),
    ('{"password": "hunter22", "user": "bob"}', '{"password": "[REDACTED]", "user": "bob"}'),
    ("db password=Sup3rS3cret! next", "db password=[REDACTED] next"),
    ("card 4111 1111 1111 1111 exp 12/29", "card [REDACTED] exp 12/29"),
    ("aws AKIAIOSFODNN7EXAMPLE", "aws [REDACTED]"),
])
def test_secrets_are_masked(text: str, kept: str) -> None:
    out = redact_secrets(text)
    assert kept in out


def test_ordinary_numbers_survive() -> None:
    text = "order 1234 5678 9012 3456 and phone 0612345678"  # not Luhn-valid, not a card
    assert redact_secrets(text) == text


def test_spans_follow_genai_conventions_and_errors_set_status() -> None:
    telemetry, exporter = memory_telemetry(capture=False)
    with telemetry.invoke_agent("helper", version="1.2", conversation_id="c1"):
        with telemetry.chat("gpt-x", provider="openai") as chat:
            chat.set_input_messages([{"role": "user", "content": "secret plan"}])
            chat.set_response(model="gpt-x-1", input_tokens=10, output_tokens=2,
                              finish_reasons=["stop"])
        with pytest.raises(TimeoutError), telemetry.execute_tool(
                "lookup", call_id="call_1", effect="read", arguments={"q": "x"}):
            raise TimeoutError("upstream took too long")
    spans = {s.name: s for s in exporter.get_finished_spans()}
    agent, chat_span, tool = spans["invoke_agent helper"], spans["chat gpt-x"], spans["execute_tool lookup"]
    assert agent.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert agent.attributes["gen_ai.agent.version"] == "1.2"
    assert chat_span.kind.name == "CLIENT" and chat_span.attributes["gen_ai.usage.input_tokens"] == 10
    assert tuple(chat_span.attributes["gen_ai.response.finish_reasons"]) == ("stop",)
    assert "gen_ai.input.messages" not in chat_span.attributes  # content capture is opt-in
    assert "gen_ai.tool.call.arguments" not in tool.attributes
    assert tool.attributes["agentwatch.tool.effect"] == "read"
    assert tool.status.status_code.name == "ERROR" and tool.attributes["error.type"] == "TimeoutError"
    assert tool.parent.span_id == agent.context.span_id


def test_captured_content_is_redacted_first() -> None:
    telemetry, exporter = memory_telemetry(capture=True)
    with telemetry.execute_tool("http", arguments={"token": "sk-abcdefghijklmnopqrstu"}) as step:
        step.set_result("password=letmein123")
    [span] = exporter.get_finished_spans()
    assert MASK in span.attributes["gen_ai.tool.call.arguments"]
    assert "sk-abc" not in span.attributes["gen_ai.tool.call.arguments"]
    assert span.attributes["gen_ai.tool.call.result"] == f"password={MASK}"


def test_decorator_records_a_tool_span() -> None:
    telemetry, exporter = memory_telemetry(capture=True)

    @telemetry.tool(effect="propose")
    def draft(to: str) -> str:
        return f"Dear {to}"

    assert draft("Ann") == "Dear Ann"
    [span] = exporter.get_finished_spans()
    assert span.name == "execute_tool draft" and span.attributes["gen_ai.tool.call.result"] == "Dear Ann"


def test_trace_context_and_baggage_cross_http() -> None:
    callee_telemetry, callee_spans = memory_telemetry()
    app = FastAPI()

    @app.post("/agent")
    async def remote_agent(request: Request) -> dict[str, str]:
        with continue_trace(request.headers), callee_telemetry.invoke_agent("remote"):
            return {"run": str(baggage.get_baggage("eval.run_id"))}

    server = BackgroundServer(app).start()
    caller_telemetry, caller_spans = memory_telemetry()
    try:
        with caller_telemetry.invoke_agent("caller") as step, with_baggage({"eval.run_id": "run-7"}):
            answer = httpx.post(f"{server.url}/agent", headers=inject_headers()).json()
    finally:
        server.stop()
    [caller] = caller_spans.get_finished_spans()
    [callee] = callee_spans.get_finished_spans()
    assert answer == {"run": "run-7"}
    assert callee.context.trace_id == caller.context.trace_id
    assert callee.parent.span_id == caller.context.span_id
    assert step.trace_id == format(caller.context.trace_id, "032x")
