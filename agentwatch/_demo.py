"""`agentwatch demo`: the collector on the embedded store, fed by the real OTel SDK."""

from __future__ import annotations

import json
import random
import time

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import Status, StatusCode

_TASKS = [
    ("What is our refund policy for enterprise plans?", "search_docs", "read",
     {"query": "refund policy enterprise"}),
    ("Open a ticket for the broken invoice export", "create_ticket", "mutate",
     {"title": "Invoice export broken", "priority": "high"}),
    ("Draft a reply to the customer about the outage", "draft_email", "propose",
     {"to": "customer@example.com", "subject": "About the outage"}),
]


def emit_sample_traces(endpoint: str, count: int, headers: dict[str, str] | None = None) -> None:
    """Send `count` agent runs (agent -> chat -> tool -> chat) as OTel GenAI spans."""
    rng = random.Random(7)
    for cohort, version in (("baseline", "1.4.0"), ("canary", "1.5.0-rc1")):
        provider = TracerProvider(resource=Resource.create({
            "service.name": "support-agent", "service.version": version,
            "deployment.environment.name": "demo", "agentwatch.cohort": cohort,
        }))
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(
            endpoint=f"{endpoint}/v1/traces", headers=headers or {})))
        tracer = provider.get_tracer("agentwatch.demo")
        for i in range(count // 2 + (count % 2 if cohort == "baseline" else 0)):
            prompt, tool, effect, args = _TASKS[(i + len(cohort)) % len(_TASKS)]
            failed = rng.random() < 0.15
            with tracer.start_as_current_span("invoke_agent support", attributes={
                "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support",
                "gen_ai.provider.name": "openai", "gen_ai.conversation.id": f"conv-{i}",
            }):
                with tracer.start_as_current_span("chat gpt-4o-mini", attributes={
                    "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
                    "gen_ai.request.model": "gpt-4o-mini", "gen_ai.response.model": "gpt-4o-mini",
                    "gen_ai.usage.input_tokens": rng.randint(200, 900),
                    "gen_ai.usage.output_tokens": rng.randint(20, 80),
                    "gen_ai.input.messages": json.dumps(
                        [{"role": "user", "parts": [{"type": "text", "content": prompt}]}]),
                }):
                    time.sleep(0.002)
                with tracer.start_as_current_span(f"execute_tool {tool}", attributes={
                    "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool,
                    "gen_ai.tool.call.id": f"call_{i}", "gen_ai.tool.type": "function",
                    "gen_ai.tool.call.arguments": json.dumps(args),
                    "agentwatch.tool.effect": effect,
                }) as tool_span:
                    if failed:
                        tool_span.set_status(Status(StatusCode.ERROR, "upstream timeout"))
                        tool_span.set_attribute("error.type", "TimeoutError")
                    else:
                        tool_span.set_attribute("gen_ai.tool.call.result", '{"ok": true}')
                with tracer.start_as_current_span("chat gpt-4o-mini", attributes={
                    "gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
                    "gen_ai.request.model": "gpt-4o-mini",
                    "gen_ai.usage.input_tokens": rng.randint(300, 1200),
                    "gen_ai.usage.output_tokens": rng.randint(40, 200),
                }):
                    time.sleep(0.002)
        provider.shutdown()
