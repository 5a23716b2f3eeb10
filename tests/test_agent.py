"""The ReAct agent against the scripted model: behaviour, and the spans it leaves in the collector."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path

from agent import Agent, AgentSpec, ModelClient, ModelConfig, RetryPolicy
from agent.tools import LocalIndex, ToolConfig, build_tools
from instrumentation import MASK, configure

from .conftest import Service
from .helpers import memory_telemetry, scripted_model

SCRIPT = {"scenarios": [{
    "name": "refund", "match": "refund",
    "turns": [
        {"tool_calls": [{"name": "web_search", "arguments": {"query": "refund policy"}},
                        {"name": "calculator", "arguments": {"expression": "1 / 0"}}]},
        {"tool_calls": [{"name": "file_ops", "arguments": {
            "operation": "write", "path": "notes/refund.md", "content": "30 days"}}]},
        {"text": "Refunds are accepted within 30 days."},
    ]}]}
TOOLS = ["web_search", "calculator", "file_ops"]
PROMPT = "What is our refund policy? My key is sk-live-abcdefghijklmnop1234, do not share it."


def _agent(model_url: str, telemetry, workspace: Path, **spec_fields) -> Agent:  # type: ignore[no-untyped-def]
    spec = AgentSpec(name="support", version="2.0.0", tools=TOOLS,
                     model=ModelConfig(base_url=f"{model_url}/v1", model="sim-large"), **spec_fields)
    tools = build_tools(TOOLS, ToolConfig(workspace, search=LocalIndex(
        [{"title": "Refund policy", "url": "https://docs/refunds", "text": "refund within 30 days"}])))
    client = ModelClient(f"{model_url}/v1", telemetry=telemetry,
                         retry=RetryPolicy(max_retries=1, base_delay_s=0.01))
    return Agent(spec, client, tools, telemetry)


def _run(agent: Agent, *prompts: str, **kw):  # type: ignore[no-untyped-def]
    async def go():  # type: ignore[no-untyped-def]
        try:
            return [await agent.run(p, **kw) for p in prompts]
        finally:
            await agent.client.aclose()

    results = asyncio.run(go())
    return results[0] if len(results) == 1 else results


def test_agent_trace_in_the_collector_has_every_normalized_field(service: Service, tmp_path: Path) -> None:
    telemetry = configure("support-service", endpoint=service.url, service_version="9.9.9",
                          cohort="canary", environment="staging", capture_content=True)
    with scripted_model(SCRIPT) as model:
        agent = _agent(model.url, telemetry, tmp_path)
        result = _run(agent, PROMPT, conversation_id="conv-1")
    telemetry.flush()
    assert result.status == "completed" and result.answer == "Refunds are accepted within 30 days."
    assert len(result.steps) == 3 and (tmp_path / "notes/refund.md").read_text() == "30 days"

    spans = service.trace(result.trace_id).json()["spans"]
    by_kind: dict[str, list[dict]] = {}
    for span in spans:
        by_kind.setdefault(span["kind"], []).append(span)
    [root] = by_kind["agent"]
    assert (root["agent_name"], root["agent_version"], root["cohort"], root["environment"]) == (
        "support", "2.0.0", "canary", "staging")
    assert root["service_name"] == "support-service" and root["conversation_id"] == "conv-1"
    assert "refund policy" in root["input_text"] and "30 days" in root["output_text"]
    assert "sk-live" not in root["input_text"] and MASK in root["input_text"]

    llm = by_kind["llm"]
    assert len(llm) == 3
    for span in llm:
        assert (span["provider"], span["request_model"], span["response_model"]) == (
            "openai", "sim-large", "sim-large")
        assert span["input_tokens"] > 0 and span["output_tokens"] > 0
        assert span["parent_span_id"] == root["span_id"]
        assert "sk-live" not in span["input_text"]
    assert sum(s["input_tokens"] for s in llm) == result.input_tokens
    assert sum(s["output_tokens"] for s in llm) == result.output_tokens

    tools = {s["tool_name"]: s for s in by_kind["tool"]}
    assert set(tools) == set(TOOLS)
    assert tools["web_search"]["tool_effect"] == "read"
    assert "Refund policy" in tools["web_search"]["tool_result"]
    assert tools["file_ops"]["tool_effect"] == "mutate"
    assert tools["calculator"]["status"] == "error" and tools["calculator"]["error_type"] == "ToolError"
    assert "division by zero" in tools["calculator"]["tool_result"]
    calls = {c.name: c for s in result.steps for c in s.tool_calls}
    for name, span in tools.items():
        assert span["tool_call_id"] == calls[name].call_id and span["tool_arguments"]
        assert span["parent_span_id"] == root["span_id"]
    # the two calls of the first model turn ran concurrently
    first, second = tools["web_search"], tools["calculator"]
    start = [datetime.fromisoformat(s["start_time"]) for s in (first, second)]
    end = [datetime.fromisoformat(s["end_time"]) for s in (first, second)]
    assert max(start) <= min(end)
    telemetry.shutdown()


def test_content_is_not_captured_unless_asked(service: Service, tmp_path: Path) -> None:
    telemetry = configure("quiet-agent", endpoint=service.url)
    with scripted_model(SCRIPT) as model:
        result = _run(_agent(model.url, telemetry, tmp_path), PROMPT)
    telemetry.flush()
    spans = service.trace(result.trace_id).json()["spans"]
    assert all(not s["input_text"] and not s["output_text"] and not s["tool_arguments"]
               and not s["tool_result"] for s in spans)
    assert {s["tool_name"] for s in spans if s["kind"] == "tool"} == set(TOOLS)
    assert all(s["cohort"] == "baseline" for s in spans)
    telemetry.shutdown()


def test_step_limit(tmp_path: Path) -> None:
    loop = {"scenarios": [{"name": "loop", "match": ".", "turns": [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]}]}]}
    telemetry, exporter = memory_telemetry()
    with scripted_model(loop) as model:
        result = _run(_agent(model.url, telemetry, tmp_path, max_steps=3), "go")
    assert result.status == "step_limit" and len(result.steps) == 3
    root = next(s for s in exporter.get_finished_spans() if s.name == "invoke_agent support")
    assert root.attributes["agentwatch.agent.stop_reason"] == "step_limit"


def test_model_failure_ends_the_run_with_an_error_span(tmp_path: Path) -> None:
    telemetry, exporter = memory_telemetry()
    with scripted_model({"errors": [{"kind": "500", "probability": 1}]}) as model:
        result = _run(_agent(model.url, telemetry, tmp_path), "hello")
    assert result.status == "error" and "500" in result.error
    root = next(s for s in exporter.get_finished_spans() if s.name == "invoke_agent support")
    assert root.status.status_code.name == "ERROR"
    assert root.attributes["error.type"] == "ModelUnavailable"


def test_each_run_is_a_fresh_conversation(tmp_path: Path) -> None:
    telemetry, exporter = memory_telemetry()
    with scripted_model() as model:
        first, second = _run(_agent(model.url, telemetry, tmp_path), "first question",
                             "second question")
    assert first.trace_id != second.trace_id
    chats = [s for s in exporter.get_finished_spans() if s.name.startswith("chat")]
    assert all("first question" not in s.attributes["gen_ai.input.messages"]
               for s in chats if second.trace_id == format(s.context.trace_id, "032x"))
