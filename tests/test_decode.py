"""The decoder: OTLP/JSON and protobuf give the same columns; values stringify as documented."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from collector import parse_json, parse_protobuf, to_columns

from .otlp import json_body

_text = st.text(max_size=30)
_scalars = st.one_of(
    _text.map(lambda s: AnyValue(string_value=s)),
    st.integers(-(2**63), 2**63 - 1).map(lambda i: AnyValue(int_value=i)),
    st.booleans().map(lambda b: AnyValue(bool_value=b)),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: AnyValue(double_value=f)),
)


def _array(values: list[AnyValue]) -> AnyValue:
    value = AnyValue()
    value.array_value.values.extend(values)
    return value


_values = st.one_of(_scalars, st.lists(_scalars, max_size=3).map(_array))


@st.composite
def requests(draw: st.DrawFn) -> ExportTraceServiceRequest:
    request = ExportTraceServiceRequest()
    for _ in range(draw(st.integers(1, 2))):
        rs = request.resource_spans.add()
        rs.resource.attributes.append(KeyValue(key="service.name", value=AnyValue(
            string_value=draw(_text))))
        ss = rs.scope_spans.add()
        ss.scope.name = draw(_text)
        for _ in range(draw(st.integers(0, 4))):
            span = Span(
                trace_id=draw(st.binary(min_size=16, max_size=16)),
                span_id=draw(st.binary(min_size=8, max_size=8)),
                parent_span_id=draw(st.sampled_from([b"", b"\x01" * 8])),
                name=draw(_text),
                kind=draw(st.integers(0, 5)),
                start_time_unix_nano=draw(st.integers(1, 2**62)),
            )
            span.end_time_unix_nano = span.start_time_unix_nano + draw(st.integers(0, 10**12))
            for key, value in draw(st.dictionaries(st.text(min_size=1, max_size=10), _values,
                                                   max_size=5)).items():
                span.attributes.append(KeyValue(key=key, value=value))
            event = span.events.add()
            event.name = draw(_text)
            event.time_unix_nano = span.start_time_unix_nano
            ss.spans.append(span)
    return request


@settings(max_examples=150, deadline=None)
@given(requests())
def test_json_and_protobuf_decode_to_the_same_columns(request: ExportTraceServiceRequest) -> None:
    from_pb = to_columns(parse_protobuf(request.SerializeToString()), "t", 10_000)
    from_json = to_columns(parse_json(json_body(request)), "t", 10_000)
    assert from_pb.columns == from_json.columns
    assert from_pb.rejected == from_json.rejected


@settings(max_examples=150, deadline=None)
@given(requests())
def test_every_valid_span_becomes_one_row(request: ExportTraceServiceRequest) -> None:
    decoded = to_columns(request, "acme", 10_000)
    spans = [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]
    valid = [s for s in spans if s.trace_id.strip(b"\x00") and s.span_id.strip(b"\x00")]
    assert len(decoded.columns) == len(valid)
    assert decoded.rejected_count == len(spans) - len(valid)
    cols = decoded.columns
    for i, span in enumerate(valid):
        assert cols.trace_id[i] == span.trace_id.hex() and len(cols.trace_id[i]) == 32
        assert cols.duration[i] == span.end_time_unix_nano - span.start_time_unix_nano
        assert cols.resource_attributes[i]["agentwatch.tenant"] == "acme"
        assert set(cols.span_attributes[i]) == {kv.key for kv in span.attributes}


def test_values_stringify_like_the_clickhouse_exporter() -> None:
    span = Span(trace_id=b"\x01" * 16, span_id=b"\x02" * 8, start_time_unix_nano=5,
                end_time_unix_nano=9)
    for key, value in {
        "s": AnyValue(string_value="text"), "i": AnyValue(int_value=-3),
        "b": AnyValue(bool_value=True), "d": AnyValue(double_value=0.25),
        "whole": AnyValue(double_value=2.0), "bytes": AnyValue(bytes_value=b"\x00\xff"),
        "arr": _array([AnyValue(string_value="a"), AnyValue(int_value=1)]),
    }.items():
        span.attributes.append(KeyValue(key=key, value=value))
    kv = AnyValue()
    kv.kvlist_value.values.append(KeyValue(key="k", value=AnyValue(bool_value=False)))
    span.attributes.append(KeyValue(key="map", value=kv))
    request = ExportTraceServiceRequest()
    request.resource_spans.add().scope_spans.add().spans.append(span)
    attrs = to_columns(request, "t", 100).columns.span_attributes[0]
    assert attrs == {"s": "text", "i": "-3", "b": "true", "d": "0.25", "whole": "2",
                     "bytes": "AP8=", "arr": '["a",1]', "map": json.dumps({"k": False},
                                                                         separators=(",", ":"))}


def test_ids_that_are_not_hex_reject_the_span_not_the_request() -> None:
    document = {"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": "zz" * 16, "spanId": "01" * 8, "startTimeUnixNano": "1", "endTimeUnixNano": "2"},
        {"traceId": "ab" * 16, "spanId": "01" * 8, "startTimeUnixNano": "1", "endTimeUnixNano": "2",
         "kind": 3, "status": {"code": 2, "message": "boom"}},
    ]}]}]}
    decoded = to_columns(parse_json(json.dumps(document).encode()), "t", 100)
    assert decoded.rejected_count == 1 and len(decoded.columns) == 1
    assert decoded.columns.span_kind == ["Client"] and decoded.columns.status_code == ["Error"]
