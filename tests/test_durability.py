"""A 200 means durable: spans survive a store outage and a crash, and retries do not double them.

The collector runs as a real process. It first points at a ClickHouse server
that is not there (every batch goes to the fsynced spool), is killed with
SIGKILL, and restarts against a reachable store, which must end up with every
acknowledged span exactly once.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from store import Store

from .otlp import protobuf_body, record_spans

PB = {"content-type": "application/x-protobuf"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(data_dir: Path, dsn: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "AGENTWATCH_WRITER__RETRY_INTERVAL_MS": "200",
           "AGENTWATCH_STORE__DATABASE": "durability"}
    with log.open("wb") as sink:  # the child keeps its own copy of the descriptor
        process = subprocess.Popen(
            [sys.executable, "-m", "agentwatch", "serve", "--data-dir", str(data_dir),
             "--dsn", dsn, "--http-port", str(port), "--no-grpc", "--log-level", "warning"],
            env=env, stdout=subprocess.DEVNULL, stderr=sink,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.1)
        if process.poll() is not None:
            raise AssertionError(log.read_text())
    raise AssertionError("collector did not start")


def _metric(port: int, name: str) -> float:
    for line in httpx.get(f"http://127.0.0.1:{port}/metrics").text.splitlines():
        if line.startswith(name):
            return float(line.rsplit(" ", 1)[1])
    raise AssertionError(f"{name} not in /metrics")


def test_outage_crash_and_recovery_lose_nothing_and_double_nothing(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    port = _free_port()
    unreachable = f"http://default:secret@127.0.0.1:{_free_port()}/durability"
    payloads = [protobuf_body(record_spans(traces=3)) for _ in range(5)]  # 5 x 12 spans

    down = _serve(data_dir, unreachable, port, tmp_path / "down.log")
    try:
        for body in payloads:
            response = httpx.post(f"http://127.0.0.1:{port}/v1/traces", content=body,
                                  headers=PB, timeout=30)
            assert response.status_code == 200, response.text
        assert httpx.get(f"http://127.0.0.1:{port}/readyz").status_code == 503
        assert _metric(port, 'agentwatch_spool_batches{writer="spans"}') >= 1
        assert _metric(port, 'agentwatch_spool_bytes{writer="spans"}') > 0
        # a retry of an acknowledged request during the outage is not spooled again
        httpx.post(f"http://127.0.0.1:{port}/v1/traces", content=payloads[0], headers=PB)
    finally:
        down.send_signal(signal.SIGKILL)
        down.wait(30)
    stderr = (tmp_path / "down.log").read_text()
    assert "unreachable" in stderr
    assert "secret" not in stderr  # the DSN's password never reaches the logs
    assert list((data_dir / "spool").glob("*.batch"))

    engine = tmp_path / "engine"
    up = _serve(data_dir, f"chdb://{engine}", port, tmp_path / "up.log")
    try:
        deadline = time.monotonic() + 30
        while list((data_dir / "spool").glob("*.batch")) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not list((data_dir / "spool").glob("*.batch")), "spool was not replayed"
        # clients that never saw their answer retry after the restart
        for body in payloads[:2]:
            assert httpx.post(f"http://127.0.0.1:{port}/v1/traces", content=body,
                              headers=PB).status_code == 200
        assert httpx.get(f"http://127.0.0.1:{port}/readyz").status_code == 200
        traces = httpx.get(f"http://127.0.0.1:{port}/api/traces", params={"limit": 100}).json()
        assert len(traces["items"]) == 15
        assert sum(t["span_count"] for t in traces["items"]) == 60
    finally:
        up.send_signal(signal.SIGTERM)
        up.wait(60)
    assert up.returncode in (0, -signal.SIGTERM)  # uvicorn re-raises SIGTERM after draining
    assert "error" not in (tmp_path / "up.log").read_text().lower()
    store = Store(f"chdb://{engine}", "durability")
    assert store.query_rows("SELECT count() FROM otel_traces")[0][0] == 60
    assert store.query_rows("SELECT count() FROM agent_spans")[0][0] == 60
    assert store.query_rows("SELECT uniqExact(SpanId) FROM otel_traces")[0][0] == 60
    store.close()


def test_store_down_and_spool_failing_is_503_with_retry_after(tmp_path: Path) -> None:
    import shutil

    from agentwatch.settings import StoreSettings

    from .conftest import make_settings, start_service

    unreachable = f"http://127.0.0.1:{_free_port()}/nowhere"
    settings = make_settings(tmp_path / "data", tmp_path / "unused",
                             store=StoreSettings(dsn=unreachable))
    svc = start_service(settings)
    try:
        spooled = httpx.post(f"{svc.url}/v1/traces", content=protobuf_body(record_spans()),
                             headers=PB, timeout=30)
        assert spooled.status_code == 200  # the store is down, the spool took it
        shutil.rmtree(settings.spool_dir)
        settings.spool_dir.write_text("the disk is gone")  # now the spool cannot be written
        refused = httpx.post(f"{svc.url}/v1/traces", content=protobuf_body(record_spans()),
                             headers=PB, timeout=30)
        assert refused.status_code == 503
        assert refused.headers["retry-after"] == "5"
        from google.rpc import status_pb2

        assert "spool failed" in status_pb2.Status.FromString(refused.content).message
    finally:
        svc.server.stop()
