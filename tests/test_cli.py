"""The CLI answers mistakes with one clear line and an exit code, never a traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


def cli(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agentwatch", *args], capture_output=True,
                          text=True, timeout=timeout, cwd=cwd)


def _clean(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stderr, done.stderr


def test_migrate_twice_and_print_ddl(tmp_path: Path) -> None:
    first = cli("migrate", "--data-dir", str(tmp_path))
    assert first.returncode == 0, first.stderr
    assert ("applied: 0001_otel_traces, 0002_agent_spans, 0003_otel_traces_ingest, 0004_scores, "
            "0005_eval_center") in first.stdout
    second = cli("migrate", "--data-dir", str(tmp_path))
    assert second.returncode == 0 and "schema up to date" in second.stdout
    ddl = cli("migrate", "--print-ddl")
    assert "CREATE TABLE IF NOT EXISTS otel_traces" in ddl.stdout
    clustered = cli("migrate", "--print-ddl", "--cluster", "prod")
    assert "ON CLUSTER 'prod'" in clustered.stdout and "Distributed(" in clustered.stdout


def test_bad_dsn(tmp_path: Path) -> None:
    done = cli("migrate", "--data-dir", str(tmp_path), "--dsn", "postgres://db/x")
    assert done.returncode == 2 and "invalid DSN" in done.stderr
    _clean(done)


def test_unreachable_server_dsn(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = cli("migrate", "--data-dir", str(tmp_path), "--dsn", f"http://u:pw@127.0.0.1:{port}")
    assert done.returncode == 1 and "unreachable" in done.stderr and "pw" not in done.stderr
    _clean(done)


def test_unwritable_data_dir(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    done = cli("migrate", "--data-dir", str(blocker / "sub"))
    assert done.returncode == 2 and "not writable" in done.stderr
    _clean(done)


def test_port_in_use(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        done = cli("serve", "--data-dir", str(tmp_path), "--http-port", str(port), "--no-grpc")
    assert done.returncode == 2 and "already in use" in done.stderr
    _clean(done)


def test_store_held_by_a_running_service(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log = (tmp_path / "serve.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "agentwatch", "serve", "--data-dir", str(tmp_path),
         "--http-port", str(port), "--no-grpc"], stdout=subprocess.DEVNULL, stderr=log)
    log.close()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        done = cli("migrate", "--data-dir", str(tmp_path))
        assert done.returncode == 3, done.stderr
        assert "in use by another process" in done.stderr
        _clean(done)
    finally:
        server.terminate()
        server.wait(60)


def test_config_file_and_environment(tmp_path: Path) -> None:
    config = tmp_path / "agentwatch.toml"
    config.write_text(f'data_dir = "{tmp_path / "from-toml"}"\n[store]\nttl_days = 3\n')
    done = cli("migrate", "--config", str(config))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "from-toml" / "chdb").is_dir()
    missing = cli("migrate", "--config", str(tmp_path / "nope.toml"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    env = {**os.environ, "AGENTWATCH_STORE__TTL_DAYS": "minus one"}
    bad = subprocess.run([sys.executable, "-m", "agentwatch", "migrate", "--data-dir",
                          str(tmp_path)], capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode == 2 and "ttl_days" in bad.stderr
    _clean(bad)


def test_demo_runs(tmp_path: Path) -> None:
    done = cli("demo", "--tasks", "6", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "6 latest traces" in done.stdout and "6 tasks;" in done.stdout
    assert (tmp_path / ".agentwatch" / "chdb").is_dir()


def test_evaluate_backfill_and_usage_errors(tmp_path: Path) -> None:
    assert cli("simulate", "--data-dir", str(tmp_path), "--max-tasks", "4", "--rate", "20").returncode == 0
    done = cli("evaluate", "--data-dir", str(tmp_path), "--since", "2020-01-01")
    assert done.returncode == 0 and "scored 4 traces" in done.stdout, done.stderr
    for args, words in ((["--since", "yesterday"], "not an ISO 8601 time"),
                        ([], "either --follow or --since"),
                        (["--follow", "--shard", "2", "--shards", "2"], "--shard must be below")):
        bad = cli("evaluate", "--data-dir", str(tmp_path), *args)
        assert bad.returncode == 2 and words in bad.stderr
        _clean(bad)
