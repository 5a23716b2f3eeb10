"""Spans from real instrumentations land in agent_spans with the same normalized fields."""

from __future__ import annotations

import json

import pytest

from .conftest import Service, emit


def _spans(service: Service, trace_id: str) -> list[dict]:
    response = service.trace(trace_id)
    assert response.status_code == 200, response.text
    return response.json()["spans"]


def _one(spans: list[dict], kind: str) -> dict:
    found = [s for s in spans if s["kind"] == kind]
    assert found, f"no {kind} span in {[(s['name'], s['kind']) for s in spans]}"
    return found[0]


def test_genai_current_conventions(service: Service, model_url: str) -> None:
    [trace_id] = emit("genai", service.url, model_url)
    spans = _spans(service, trace_id)
    agent, llm, tool = _one(spans, "agent"), _one(spans, "llm"), _one(spans, "tool")
    assert agent["agent_name"] == "refund-helper" and agent["agent_id"] == "agt_42"
    assert agent["conversation_id"] == "conv-7"
    assert agent["cohort"] == "canary" and agent["agent_version"] == "3.1.0"
    assert agent["environment"] == "test" and agent["service_name"] == "genai-agent"
    assert (llm["provider"], llm["request_model"], llm["response_model"]) == (
        "openai", "sim-large", "sim-large-0613")
    assert (llm["input_tokens"], llm["output_tokens"]) == (120, 30)
    assert "refund window" in llm["input_text"] and "30 days" in llm["output_text"]
    assert llm["attributes"]["custom.flag"] == "true"  # unknown attributes are kept
    assert llm["attributes"]["gen_ai.response.finish_reasons"] == '["stop"]'
    assert (tool["tool_name"], tool["tool_call_id"], tool["tool_effect"]) == (
        "issue_refund", "call_1", "mutate")
    assert json.loads(tool["tool_arguments"]) == {"order": "A-1"}
    assert tool["status"] == "error" and tool["error_type"] == "TimeoutError"
    assert tool["status_message"] == "payment gateway timeout"
    assert tool["parent_span_id"] == agent["span_id"]


def test_genai_deprecated_names(service: Service, model_url: str) -> None:
    [trace_id] = emit("genai-deprecated", service.url, model_url)
    llm = _one(_spans(service, trace_id), "llm")
    assert llm["operation"] == "chat" and llm["provider"] == "openai"
    assert (llm["input_tokens"], llm["output_tokens"]) == (120, 30)
    assert "refund window" in llm["input_text"]  # from the gen_ai.content.prompt event
    assert "30 days" in llm["output_text"]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("capture", [False, True], ids=["no-content", "content"])
@pytest.mark.parametrize("style", ["openai-v2", "openinference", "openllmetry"])
def test_instrumented_openai_client(
    service: Service, model_url: str, style: str, stream: bool, capture: bool
) -> None:
    flags = [f for f, on in (("--stream", stream), ("--capture", capture)) if on]
    [trace_id] = emit(style, service.url, model_url, *flags)
    spans = _spans(service, trace_id)
    llm_calls = [s for s in spans if s["kind"] == "llm"]
    assert len(llm_calls) == 2, [(s["name"], s["kind"], s["operation"]) for s in spans]
    agent, tool = _one(spans, "agent"), _one(spans, "tool")
    assert agent["agent_name"] == "refund-helper"
    assert agent["agent_version"] == "3.1.0" and agent["environment"] == "test"
    for llm in llm_calls:
        assert llm["operation"] == "chat"
        assert llm["provider"] == "openai"
        assert llm["request_model"] == "sim-large"
        assert llm["input_tokens"] > 0 and llm["output_tokens"] > 0
        assert llm["status"] != "error"
    assert tool["tool_name"] == "search_docs"
    assert tool["tool_effect"] in ("read", "unknown")
    if capture:
        assert "refund window" in llm_calls[0]["input_text"]
        assert "Answer to:" in llm_calls[1]["output_text"]
        assert "hits" in tool["tool_result"]
    else:
        assert "refund window" not in llm_calls[0]["input_text"]


def test_openllmetry_legacy_names(service: Service, model_url: str) -> None:
    [trace_id] = emit("openllmetry-legacy", service.url, model_url)
    spans = _spans(service, trace_id)
    agent, llm, tool = _one(spans, "agent"), _one(spans, "llm"), _one(spans, "tool")
    assert agent["agent_name"] == "refund-helper" and agent["conversation_id"] == "s-9"
    assert (llm["operation"], llm["provider"], llm["request_model"]) == ("chat", "openai", "sim-large")
    assert (llm["input_tokens"], llm["output_tokens"]) == (64, 9)
    assert llm["input_text"] == "You help with refunds.\nWhat is the refund window for annual plans?"
    assert llm["output_text"] == "30 days."
    assert llm["attributes"]["gen_ai.prompt.1.role"] == "user"  # roles stay in the map
    assert "gen_ai.prompt.1.content" not in llm["attributes"]  # content is not stored twice
    assert tool["tool_name"] == "search_docs" and json.loads(tool["tool_result"]) == {"hits": 1}
