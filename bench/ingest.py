"""Ingest benchmark: OTLP/HTTP protobuf clients on loopback -> collector -> embedded ClickHouse.

Runs `agentwatch serve` as its own process on a fresh data directory, drives it
with N concurrent clients for a fixed time, then stops it and counts what
ClickHouse holds. In the same run it measures the storage ceiling: the rate at
which clickhouse-connect inserts the same rows into the same tables directly.

    python bench/ingest.py [--clients 8] [--seconds 20] [--traces-per-request 50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench._payloads import SPANS_PER_TRACE, payloads
from bench._service import start_serve
from collector import parse_protobuf, to_columns
from schemas import SpanColumns
from store import Store


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _drive(url: str, bodies: list[bytes], clients: int, seconds: float) -> tuple[list[float], int, int]:
    latencies: list[float] = []
    sent_spans = 0
    failures = 0
    stop_at = time.perf_counter() + seconds
    cursor = 0
    spans_per_body = len(parse_protobuf(bodies[0]).resource_spans[0].scope_spans[0].spans)

    async def client(http: httpx.AsyncClient) -> None:
        nonlocal sent_spans, failures, cursor
        while time.perf_counter() < stop_at and cursor < len(bodies):
            body = bodies[cursor]
            cursor += 1
            started = time.perf_counter()
            response = await http.post(url, content=body,
                                       headers={"content-type": "application/x-protobuf"})
            latencies.append(time.perf_counter() - started)
            if response.status_code == 200:
                sent_spans += spans_per_body
            else:
                failures += 1
                await asyncio.sleep(float(response.headers.get("retry-after", "0.1")))

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        await asyncio.gather(*(client(http) for _ in range(clients)))
    return latencies, sent_spans, failures


def _reference(store: Store, bodies: list[bytes], batch_rows: int) -> float:
    """Rows/s clickhouse-connect inserts into otel_traces (+ its views), no HTTP, no decoding."""
    decoded = [to_columns(parse_protobuf(b), "default", 32_768).columns for b in bodies]
    batches: list[SpanColumns] = []
    current: list[SpanColumns] = []
    for columns in decoded:
        current.append(columns)
        if sum(len(c) for c in current) >= batch_rows:
            batches.append(SpanColumns.concat(current))
            current = []
    rows = sum(len(b) for b in batches)
    started = time.perf_counter()
    for n, batch in enumerate(batches):
        store.insert_spans(batch, token=f"ref-{n}")
    return rows / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=32,
                        help="concurrent exporters (each waits for its answer, as the SDK does)")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--traces-per-request", type=int, default=50)
    parser.add_argument("--payloads", type=int, default=1600,
                        help="distinct request bodies; none is sent twice (a resend is deduplicated)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args()

    bodies = payloads(args.payloads, args.traces_per_request)
    server, url, data_dir = start_serve("aw-bench-")

    started = time.perf_counter()
    server_cpu0, client_cpu0 = _cpu_seconds(server.pid), time.process_time()
    latencies, acked, failures = asyncio.run(_drive(f"{url}/v1/traces", bodies, args.clients,
                                                    args.seconds))
    elapsed = time.perf_counter() - started
    server_cores = (_cpu_seconds(server.pid) - server_cpu0) / elapsed
    client_cores = (time.process_time() - client_cpu0) / elapsed
    rss = _peak_rss_mib(server.pid)
    server.send_signal(signal.SIGTERM)
    server.wait(120)

    store = Store(f"chdb://{data_dir / 'chdb'}", "bench")
    stored = store.query_rows("SELECT count() FROM otel_traces")[0][0]
    normalized = store.query_rows("SELECT count() FROM agent_spans")[0][0]
    ref_store = Store(f"chdb://{data_dir / 'chdb'}", "reference")
    ref_store.open()
    reference = _reference(ref_store, bodies[: max(40, 200_000 // (args.traces_per_request
                                                                    * SPANS_PER_TRACE))], 20_000)
    latencies.sort()
    result = {
        "clients": args.clients, "seconds": round(elapsed, 1),
        "spans_per_request": args.traces_per_request * SPANS_PER_TRACE,
        "accepted_spans_per_s": round(acked / elapsed),
        "stored_spans_per_s": round(stored / elapsed),
        "stored_spans": stored, "acknowledged_spans": acked, "agent_spans_rows": normalized,
        "refused_requests": failures,
        "latency_p50_ms": round(statistics.median(latencies) * 1000, 1),
        "latency_p99_ms": round(latencies[int(len(latencies) * 0.99) - 1] * 1000, 1),
        "collector_peak_rss_mib": round(rss),
        "collector_cpu_cores": round(server_cores, 2),
        "client_cpu_cores": round(client_cores, 2),
        "reference_insert_rows_per_s": round(reference),
        "fraction_of_reference": round(stored / elapsed / reference, 2),
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:32} {value}")
    assert stored == acked, f"acknowledged {acked} spans but ClickHouse holds {stored}"


if __name__ == "__main__":
    main()
