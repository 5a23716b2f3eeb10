"""Shared fixtures: one embedded engine path per test process, a database per test,
the service and the model simulator on loopback ports."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

import modelsim
from agentwatch._server import BackgroundServer
from agentwatch.app import Parts, build_parts, create_app
from agentwatch.settings import (
    EvaluationSettings,
    ServerSettings,
    Settings,
    StoreSettings,
    WriterSettings,
)
from store import Store

EMITTER = Path(__file__).parent / "emitters" / "emit.py"


@pytest.fixture(scope="session")
def engine_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("chdb")


def make_settings(data_dir: Path, engine_path: Path, **sections: object) -> Settings:
    defaults: dict[str, object] = {
        "store": StoreSettings(dsn=f"chdb://{engine_path}", database=f"t_{uuid.uuid4().hex[:12]}",
                               ttl_days=0),
        "server": ServerSettings(grpc_port=0),
        "writer": WriterSettings(flush_interval_ms=20),
        "evaluation": EvaluationSettings(enabled=False),
    }
    defaults.update(sections)
    return Settings(data_dir=data_dir, **defaults)  # type: ignore[arg-type]


@pytest.fixture
def settings(tmp_path: Path, engine_path: Path) -> Settings:
    return make_settings(tmp_path / "data", engine_path)


def fast_scoring(**overrides: object) -> EvaluationSettings:
    """The streaming runner with short waits, for tests that watch it score."""
    values: dict[str, object] = {"enabled": True, "grace_s": 0.5, "incomplete_after_s": 4.0,
                                 "poll_interval_ms": 200}
    values.update(overrides)
    return EvaluationSettings(**values)  # type: ignore[arg-type]


@dataclass
class Service:
    url: str
    settings: Settings
    parts: Parts
    server: BackgroundServer

    @property
    def grpc_target(self) -> str:
        return f"127.0.0.1:{self.settings.server.grpc_port}"

    @property
    def store(self) -> Store:
        return self.parts.store

    def count(self, table: str = "otel_traces", where: str = "1") -> int:
        return int(self.store.query_rows(f"SELECT count() FROM {table} WHERE {where}")[0][0])

    def app_state(self):  # type: ignore[no-untyped-def]
        return self.server.server.config.app.state

    def trace(self, trace_id: str, headers: dict[str, str] | None = None) -> httpx.Response:
        return httpx.get(f"{self.url}/api/traces/{trace_id}", headers=headers, timeout=30)


def start_service(settings: Settings) -> Service:
    parts = build_parts(settings)
    server = BackgroundServer(create_app(settings, parts)).start()
    return Service(server.url, settings, parts, server)


@pytest.fixture
def service(settings: Settings) -> Iterator[Service]:
    svc = start_service(settings)
    yield svc
    svc.server.stop()


@pytest.fixture(scope="session")
def model_url() -> Iterator[str]:
    server = BackgroundServer(modelsim.create_app()).start()
    yield server.url
    server.stop()


def emit(style: str, collector: str, model: str, *flags: str) -> list[str]:
    """Run a real instrumentation in its own process; return the trace ids it produced."""
    done = subprocess.run(
        [sys.executable, str(EMITTER), style, collector, model, *flags],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    last = [line for line in done.stdout.splitlines() if line.startswith("{")][-1]
    return list(json.loads(last)["trace_ids"])
