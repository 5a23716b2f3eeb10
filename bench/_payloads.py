"""Realistic agent traces as OTLP payloads: 1 agent, 4 LLM and 5 tool spans per trace."""

from __future__ import annotations

import json
import os
import random

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

SPANS_PER_TRACE = 10
_TOOLS = [("search_docs", "read"), ("web_fetch", "read"), ("create_ticket", "mutate"),
          ("draft_email", "propose"), ("calculator", "read")]


def _kv(key: str, value: object) -> KeyValue:
    if isinstance(value, bool):
        return KeyValue(key=key, value=AnyValue(bool_value=value))
    if isinstance(value, int):
        return KeyValue(key=key, value=AnyValue(int_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=str(value)))


def _trace(rng: random.Random, start_ns: int) -> list[Span]:
    trace_id = os.urandom(16)
    root_id = os.urandom(8)
    t = start_ns
    spans = [Span(trace_id=trace_id, span_id=root_id, name="invoke_agent support", kind=1,
                  start_time_unix_nano=t, end_time_unix_nano=t + 4_000_000_000,
                  attributes=[_kv("gen_ai.operation.name", "invoke_agent"),
                              _kv("gen_ai.agent.name", "support"), _kv("gen_ai.agent.id", "agt-1"),
                              _kv("gen_ai.conversation.id", f"conv-{rng.randint(1, 10**6)}"),
                              _kv("gen_ai.provider.name", "openai")])]
    for step in range(4):
        t += 10_000_000
        spans.append(Span(
            trace_id=trace_id, span_id=os.urandom(8), parent_span_id=root_id,
            name="chat gpt-4o-mini", kind=3, start_time_unix_nano=t,
            end_time_unix_nano=t + rng.randint(200, 900) * 1_000_000,
            attributes=[_kv("gen_ai.operation.name", "chat"), _kv("gen_ai.provider.name", "openai"),
                        _kv("gen_ai.request.model", "gpt-4o-mini"),
                        _kv("gen_ai.response.model", "gpt-4o-mini-2024-07-18"),
                        _kv("gen_ai.response.id", f"chatcmpl-{rng.getrandbits(64):x}"),
                        _kv("gen_ai.usage.input_tokens", rng.randint(300, 3000)),
                        _kv("gen_ai.usage.output_tokens", rng.randint(20, 400)),
                        _kv("gen_ai.request.temperature", "0.2"),
                        _kv("gen_ai.response.finish_reasons", '["tool_call"]' if step < 3 else '["stop"]'),
                        _kv("server.address", "api.openai.com")]))
        if step < 3:
            for _ in range(2 if step < 2 else 1):
                name, effect = rng.choice(_TOOLS)
                t += 5_000_000
                args = json.dumps({"query": "refund policy for enterprise annual plans " * 3,
                                   "limit": 5, "filters": {"lang": "en", "since": "2026-01-01"}})
                result = json.dumps({"hits": [{"id": f"doc-{i}", "title": "Refunds and credits",
                                               "snippet": "Annual plans can be refunded within 30 days "
                                               "of purchase, minus usage."} for i in range(3)]})
                status = Status(code=2, message="timeout") if rng.random() < 0.03 else Status()
                spans.append(Span(
                    trace_id=trace_id, span_id=os.urandom(8), parent_span_id=root_id,
                    name=f"execute_tool {name}", kind=1, start_time_unix_nano=t,
                    end_time_unix_nano=t + rng.randint(5, 300) * 1_000_000, status=status,
                    attributes=[_kv("gen_ai.operation.name", "execute_tool"),
                                _kv("gen_ai.tool.name", name),
                                _kv("gen_ai.tool.call.id", f"call_{rng.getrandbits(48):x}"),
                                _kv("gen_ai.tool.type", "function"),
                                _kv("gen_ai.tool.call.arguments", args),
                                _kv("gen_ai.tool.call.result", result),
                                _kv("agentwatch.tool.effect", effect)]))
    return spans


def payloads(count: int, traces_per_request: int, seed: int = 1) -> list[bytes]:
    """`count` distinct serialized requests (fresh ids each), as an SDK batch would send."""
    import time

    rng = random.Random(seed)
    now = time.time_ns()
    out = []
    for n in range(count):
        request = ExportTraceServiceRequest()
        rs = request.resource_spans.add()
        cohort, version = ("canary", "2.1.0") if n % 10 == 0 else ("baseline", "2.0.3")
        rs.resource.attributes.extend([_kv("service.name", "support-agent"),
                                       _kv("service.version", version),
                                       _kv("deployment.environment.name", "prod"),
                                       _kv("agentwatch.cohort", cohort)])
        ss = rs.scope_spans.add()
        ss.scope.name = "agentwatch.instrumentation"
        for i in range(traces_per_request):
            ss.spans.extend(_trace(rng, now - 60_000_000_000 + i * 1000))
        out.append(request.SerializeToString())
    return out
