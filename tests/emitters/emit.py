"""Emit one agent run through a real instrumentation, toward a real collector.

Runs in its own process because instrumentations install global tracer
providers. Usage:
    python emit.py STYLE COLLECTOR_URL MODEL_URL [--stream] [--capture]
STYLE: genai | genai-deprecated | openai-v2 | openinference | openllmetry.
Prints {"trace_ids": [...]} on stdout.
"""

from __future__ import annotations

import json
import os
import sys


def main() -> None:
    style, collector, model_url = sys.argv[1:4]
    stream = "--stream" in sys.argv
    capture = "--capture" in sys.argv
    _content_env(style, capture)
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    exporter = OTLPSpanExporter(endpoint=f"{collector}/v1/traces")
    resource = Resource.create({"service.name": f"{style}-agent", "service.version": "3.1.0",
                                "deployment.environment.name": "test"})
    if style == "openllmetry":
        os.environ["TRACELOOP_TELEMETRY"] = "false"
        from traceloop.sdk import Traceloop
        from traceloop.sdk.instruments import Instruments

        Traceloop.init(app_name=f"{style}-agent", exporter=exporter, disable_batch=True,
                       telemetry_enabled=False, instruments={Instruments.OPENAI},
                       resource_attributes={"service.version": "3.1.0",
                                            "deployment.environment.name": "test"})
    else:
        provider = TracerProvider(resource=resource)
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
    if style == "openai-v2":
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

        OpenAIInstrumentor().instrument()
    elif style == "openinference":
        from openinference.instrumentation.openai import OpenAIInstrumentor as OIInstrumentor

        OIInstrumentor().instrument()

    trace_ids = [_run(style, model_url, stream)]
    provider_now = trace.get_tracer_provider()
    if hasattr(provider_now, "force_flush"):
        provider_now.force_flush()
    print(json.dumps({"trace_ids": trace_ids}))


def _content_env(style: str, capture: bool) -> None:
    if style == "openai-v2":
        os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
        os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = (
            "span_only" if capture else "no_content")
    elif style == "openinference":
        os.environ["OPENINFERENCE_HIDE_INPUTS"] = "false" if capture else "true"
        os.environ["OPENINFERENCE_HIDE_OUTPUTS"] = "false" if capture else "true"
    elif style == "openllmetry":
        os.environ["TRACELOOP_TRACE_CONTENT"] = "true" if capture else "false"


TOOLS = [{"type": "function", "function": {
    "name": "search_docs", "description": "Search the documentation",
    "parameters": {"type": "object", "properties": {"query": {"type": "string"}},
                   "required": ["query"]}}}]
PROMPT = "What is the refund window for annual plans?"


def _chat(client, stream: bool, messages: list) -> tuple[str, list]:  # type: ignore[no-untyped-def]
    if not stream:
        response = client.chat.completions.create(model="sim-large", messages=messages,
                                                  tools=TOOLS)
        message = response.choices[0].message
        calls = [(c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []]
        return message.content or "", calls
    text, calls = "", {}
    for chunk in client.chat.completions.create(
        model="sim-large", messages=messages, tools=TOOLS, stream=True,
        stream_options={"include_usage": True},
    ):
        for choice in chunk.choices:
            text += choice.delta.content or ""
            for call in choice.delta.tool_calls or []:
                calls.setdefault(call.index, [call.id, call.function.name, ""])
                calls[call.index][2] += call.function.arguments or ""
    return text, [tuple(c) for c in calls.values()]


def _run(style: str, model_url: str, stream: bool) -> str:
    from opentelemetry import trace

    if style in ("genai", "genai-deprecated"):
        return _manual_genai(style == "genai-deprecated")
    if style == "openllmetry-legacy":
        return _openllmetry_legacy()
    import openai

    client = openai.OpenAI(base_url=f"{model_url}/v1", api_key="sk-test")
    tracer = trace.get_tracer("emitter")

    def agent_loop() -> str:
        messages: list = [{"role": "user", "content": PROMPT}]
        _, calls = _chat(client, stream, messages)
        call_id, name, arguments = calls[0]
        result = json.dumps({"hits": ["Annual plans: refunds within 30 days."]})
        _tool_span(style, tracer, name, call_id, arguments, result)
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
        answer, _ = _chat(client, stream, messages)
        return answer

    if style == "openllmetry":
        from traceloop.sdk.decorators import agent

        holder: dict[str, str] = {}

        @agent(name="refund-helper")
        def run() -> str:
            holder["trace_id"] = format(trace.get_current_span().get_span_context().trace_id, "032x")
            return agent_loop()

        run()
        return holder["trace_id"]
    attrs = ({"openinference.span.kind": "AGENT", "agent.name": "refund-helper",
              "input.value": PROMPT}
             if style == "openinference" else
             {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "refund-helper"})
    with tracer.start_as_current_span("refund-helper", attributes=attrs) as root:
        answer = agent_loop()
        if style == "openinference":
            root.set_attribute("output.value", answer)
        return format(root.get_span_context().trace_id, "032x")


def _tool_span(style, tracer, name, call_id, arguments, result) -> None:  # type: ignore[no-untyped-def]
    if style == "openllmetry":
        from traceloop.sdk.decorators import tool

        @tool(name=name)
        def run_tool(query: str) -> dict:
            return json.loads(result)

        run_tool(json.loads(arguments)["query"])
        return
    if style == "openinference":
        attrs = {"openinference.span.kind": "TOOL", "tool.name": name, "tool_call.id": call_id,
                 "input.value": arguments, "output.value": result,
                 "input.mime_type": "application/json"}
    else:
        attrs = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name,
                 "gen_ai.tool.call.id": call_id, "gen_ai.tool.call.arguments": arguments,
                 "gen_ai.tool.call.result": result, "agentwatch.tool.effect": "read"}
    with tracer.start_as_current_span(f"execute_tool {name}", attributes=attrs):
        pass


def _manual_genai(deprecated: bool) -> str:
    """GenAI spans written by hand with the SDK, as many agent frameworks do."""
    from opentelemetry import trace

    tracer = trace.get_tracer("emitter")
    with tracer.start_as_current_span("invoke_agent refund-helper", attributes={
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "refund-helper",
        "gen_ai.agent.id": "agt_42", "gen_ai.conversation.id": "conv-7",
        "agentwatch.cohort": "canary",
    }) as root:
        if deprecated:
            with tracer.start_as_current_span("chat sim-large", attributes={
                "gen_ai.system": "openai", "gen_ai.request.model": "sim-large",
                "gen_ai.usage.prompt_tokens": 120, "gen_ai.usage.completion_tokens": 30,
            }) as span:
                span.add_event("gen_ai.content.prompt", {"gen_ai.prompt": json.dumps(
                    [{"role": "user", "content": PROMPT}])})
                span.add_event("gen_ai.content.completion", {"gen_ai.completion": json.dumps(
                    [{"role": "assistant", "content": "30 days."}])})
        else:
            with tracer.start_as_current_span("chat sim-large", attributes={
                "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "sim-large", "gen_ai.response.model": "sim-large-0613",
                "gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 30,
                "gen_ai.response.finish_reasons": ["stop"],
                "gen_ai.input.messages": json.dumps(
                    [{"role": "user", "parts": [{"type": "text", "content": PROMPT}]}]),
                "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": [
                    {"type": "text", "content": "30 days."}], "finish_reason": "stop"}]),
                "custom.flag": True,
            }):
                pass
        with tracer.start_as_current_span("execute_tool issue_refund", attributes={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "issue_refund",
            "gen_ai.tool.call.id": "call_1", "gen_ai.tool.type": "function",
            "gen_ai.tool.call.arguments": '{"order": "A-1"}',
            "agentwatch.tool.effect": "mutate",
        }) as span:
            span.set_status(trace.Status(trace.StatusCode.ERROR, "payment gateway timeout"))
            span.set_attribute("error.type", "TimeoutError")
        return format(root.get_span_context().trace_id, "032x")


def _openllmetry_legacy() -> str:
    """The attribute names older OpenLLMetry releases (still deployed) put on spans."""
    from opentelemetry import trace

    tracer = trace.get_tracer("opentelemetry.instrumentation.openai.v1")
    with tracer.start_as_current_span("refund-helper.agent", attributes={
        "traceloop.span.kind": "agent", "traceloop.entity.name": "refund-helper",
        "traceloop.workflow.name": "support", "traceloop.association.properties.session_id": "s-9",
    }) as root:
        with tracer.start_as_current_span("openai.chat", kind=trace.SpanKind.CLIENT, attributes={
            "gen_ai.system": "OpenAI", "llm.request.type": "chat",
            "gen_ai.request.model": "sim-large", "gen_ai.response.model": "sim-large",
            "gen_ai.prompt.0.role": "system", "gen_ai.prompt.0.content": "You help with refunds.",
            "gen_ai.prompt.1.role": "user", "gen_ai.prompt.1.content": PROMPT,
            "gen_ai.completion.0.role": "assistant", "gen_ai.completion.0.content": "30 days.",
            "gen_ai.completion.0.finish_reason": "stop",
            "gen_ai.usage.prompt_tokens": 64, "gen_ai.usage.completion_tokens": 9,
            "llm.usage.total_tokens": 73,
        }):
            pass
        with tracer.start_as_current_span("search_docs.tool", attributes={
            "traceloop.span.kind": "tool", "traceloop.entity.name": "search_docs",
            "traceloop.entity.input": json.dumps({"args": ["refund"], "kwargs": {}}),
            "traceloop.entity.output": json.dumps({"hits": 1}),
        }):
            pass
        return format(root.get_span_context().trace_id, "032x")


if __name__ == "__main__":
    main()
