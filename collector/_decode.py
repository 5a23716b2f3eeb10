"""One decoder for every OTLP trace transport: protobuf, JSON and gRPC.

Bytes become an `ExportTraceServiceRequest`; the request becomes columns in
the otel_traces layout. Spans that break the OTLP rules are counted and
described, not stored, while their valid neighbours are kept.
"""

from __future__ import annotations

import base64
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import DecodeError as ProtoDecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from schemas import SpanColumns
from schemas.errors import DecodeError

TENANT_ATTRIBUTE = "agentwatch.tenant"
TRUNCATION_MARKER = "…[truncated {n} chars]"

_SPAN_KIND = ("Unspecified", "Internal", "Server", "Client", "Producer", "Consumer")
_STATUS = ("Unset", "Ok", "Error")


@dataclass
class Decoded:
    columns: SpanColumns
    rejected: Counter[str] = field(default_factory=Counter)

    @property
    def rejected_count(self) -> int:
        return sum(self.rejected.values())

    def rejection_message(self) -> str:
        if not self.rejected:
            return ""
        parts = ", ".join(f"{n} {reason}" for reason, n in self.rejected.most_common())
        return f"rejected {self.rejected_count} span(s): {parts}"


def parse_protobuf(body: bytes) -> ExportTraceServiceRequest:
    try:
        return ExportTraceServiceRequest.FromString(body)
    except (ProtoDecodeError, RuntimeError, ValueError) as exc:
        raise DecodeError(f"body is not an OTLP ExportTraceServiceRequest: {exc}") from None


def parse_json(body: bytes) -> ExportTraceServiceRequest:
    """OTLP/JSON: ids are hex (protobuf JSON would say base64), the rest is proto3 JSON."""
    try:
        document = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DecodeError(f"body is not valid JSON: {exc}") from None
    if not isinstance(document, dict):
        raise DecodeError("body must be a JSON object with a resourceSpans array")
    try:
        _hex_ids_to_base64(document)
        return json_format.ParseDict(
            document, ExportTraceServiceRequest(), ignore_unknown_fields=True
        )
    except (json_format.ParseError, TypeError, AttributeError) as exc:
        raise DecodeError(f"body is not OTLP/JSON: {exc}") from None


def _hex_ids_to_base64(document: dict[str, Any]) -> None:
    for resource_spans in _items(document, "resourceSpans", "resource_spans"):
        for scope_spans in _items(resource_spans, "scopeSpans", "scope_spans"):
            for span in _items(scope_spans, "spans"):
                _convert_ids(span)
                for link in _items(span, "links"):
                    _convert_ids(link)


def _items(node: Any, *keys: str) -> list[Any]:
    if not isinstance(node, dict):
        raise DecodeError("OTLP/JSON: expected an object")
    for key in keys:
        value = node.get(key)
        if value is not None:
            if not isinstance(value, list):
                raise DecodeError(f"OTLP/JSON: {key} must be an array")
            return value
    return []


def _convert_ids(node: dict[str, Any]) -> None:
    for key in ("traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id"):
        value = node.get(key)
        if isinstance(value, str) and value:
            try:
                raw = bytes.fromhex(value)
            except ValueError:
                raw = b"\x00"  # not hex: let span validation reject it with a reason
            node[key] = base64.b64encode(raw).decode()


def to_columns(
    request: ExportTraceServiceRequest, tenant: str, max_attribute_chars: int
) -> Decoded:
    """Flatten a request into otel_traces columns, setting the caller's tenant.

    This is the collector's hot loop: list appends are bound once per request,
    values shared by a resource or scope are repeated once per scope, and spans
    without events or links share one empty list.
    """
    out = Decoded(SpanColumns())
    c = out.columns
    limit = max_attribute_chars
    timestamp, trace_id, span_id = c.timestamp.append, c.trace_id.append, c.span_id.append
    parent_id, trace_state, span_name = (
        c.parent_span_id.append, c.trace_state.append, c.span_name.append)
    span_kind, span_attributes, duration = (
        c.span_kind.append, c.span_attributes.append, c.duration.append)
    status_code, status_message = c.status_code.append, c.status_message.append
    ev_ts, ev_name, ev_attrs = (
        c.events_timestamp.append, c.events_name.append, c.events_attributes.append)
    lk_trace, lk_span, lk_state, lk_attrs = (
        c.links_trace_id.append, c.links_span_id.append, c.links_trace_state.append,
        c.links_attributes.append)
    rejected = out.rejected
    for resource_spans in request.resource_spans:
        resource = _attributes(resource_spans.resource.attributes, limit)
        resource[TENANT_ATTRIBUTE] = tenant
        service = resource.get("service.name", "")
        for scope_spans in resource_spans.scope_spans:
            added = 0
            for span in scope_spans.spans:
                start = span.start_time_unix_nano
                end = span.end_time_unix_nano
                tid, sid, parent = span.trace_id, span.span_id, span.parent_span_id
                if len(tid) != 16 or tid == _ZERO16:
                    rejected["invalid trace_id (must be 16 non-zero bytes)"] += 1
                    continue
                if len(sid) != 8 or sid == _ZERO8:
                    rejected["invalid span_id (must be 8 non-zero bytes)"] += 1
                    continue
                if parent and len(parent) != 8:
                    rejected["invalid parent_span_id (must be empty or 8 bytes)"] += 1
                    continue
                if start == 0:
                    rejected["missing start time"] += 1
                    continue
                if end < start:
                    rejected["end time before start time"] += 1
                    continue
                added += 1
                timestamp(start)
                trace_id(tid.hex())
                span_id(sid.hex())
                parent_id(parent.hex() if parent and parent != _ZERO8 else "")
                trace_state(span.trace_state)
                span_name(span.name)
                kind = span.kind
                span_kind(_SPAN_KIND[kind] if kind < 6 else "Unspecified")
                span_attributes(_attributes(span.attributes, limit))
                duration(end - start)
                status = span.status
                code = status.code
                status_code(_STATUS[code] if code < 3 else "Unset")
                status_message(status.message)
                events = span.events
                if events:
                    ev_ts([e.time_unix_nano for e in events])
                    ev_name([e.name for e in events])
                    ev_attrs([_attributes(e.attributes, limit) for e in events])
                else:
                    ev_ts(_EMPTY)
                    ev_name(_EMPTY)
                    ev_attrs(_EMPTY)
                links = span.links
                if links:
                    lk_trace([lk.trace_id.hex() for lk in links])
                    lk_span([lk.span_id.hex() for lk in links])
                    lk_state([lk.trace_state for lk in links])
                    lk_attrs([_attributes(lk.attributes, limit) for lk in links])
                else:
                    lk_trace(_EMPTY)
                    lk_span(_EMPTY)
                    lk_state(_EMPTY)
                    lk_attrs(_EMPTY)
            if added:
                c.service_name.extend([service] * added)
                c.resource_attributes.extend([resource] * added)
                c.scope_name.extend([scope_spans.scope.name] * added)
                c.scope_version.extend([scope_spans.scope.version] * added)
    return out


def _attributes(key_values: Any, limit: int) -> dict[str, str]:
    out = {}
    for kv in key_values:
        value = kv.value
        which = value.WhichOneof("value")
        text = value.string_value if which == "string_value" else _stringify(value, which)
        if len(text) > limit:
            text = text[:limit] + TRUNCATION_MARKER.format(n=len(text) - limit)
        out[kv.key] = text
    return out


_ZERO16 = b"\x00" * 16
_ZERO8 = b"\x00" * 8
_EMPTY: list[Any] = []  # shared, never mutated: spans without events or links


def _stringify(value: AnyValue, which: str | None) -> str:
    if which == "int_value":
        return str(value.int_value)
    if which == "bool_value":
        return "true" if value.bool_value else "false"
    if which == "double_value":
        return _double(value.double_value)
    if which == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    if which in ("array_value", "kvlist_value"):
        return json.dumps(_plain(value), ensure_ascii=False, separators=(",", ":"))
    return ""


def _double(number: float) -> str:
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)


def _plain(value: AnyValue) -> Any:
    which = value.WhichOneof("value")
    if which == "string_value":
        return value.string_value
    if which == "int_value":
        return value.int_value
    if which == "bool_value":
        return value.bool_value
    if which == "double_value":
        return value.double_value
    if which == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    if which == "array_value":
        return [_plain(v) for v in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: _plain(kv.value) for kv in value.kvlist_value.values}
    return None
