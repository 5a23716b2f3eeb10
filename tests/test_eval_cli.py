"""`agentwatch eval run` for CI/CD: progress, table, JUnit XML, JSON, Wilson interval, exit code."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import httpx
import pytest

from evalcenter import wilson_interval

from .conftest import Service
from .helpers import scripted_model
from .test_eval_center import GRADER_AND_AGENT, _spec


def test_wilson_interval() -> None:
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-3) and high == pytest.approx(0.9433, abs=1e-3)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_cli_against_a_running_service(service: Service, tmp_path: Path) -> None:
    service.app_state().harness.settings.collector_url = service.url
    api = f"{service.url}/api/eval"
    with scripted_model(GRADER_AND_AGENT) as model:
        httpx.post(f"{api}/agents", json=_spec(model.url))
        dataset = httpx.post(f"{api}/datasets", json={"name": "tier-1"}).json()
        for kind in ("good", "good", "good", "bad"):
            httpx.post(f"{api}/datasets/{dataset['id']}/cases", json={
                "prompt": f"[{kind}] refund window?", "expected_behavior": "30 days"})

        def cli(*extra: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [sys.executable, "-m", "agentwatch", "eval", "run", "--agent", "refund-bot",
                 "--dataset", "tier-1", "--url", service.url, *extra],
                capture_output=True, text=True, timeout=180)

        ok = cli("--min-pass-rate", "0.7", "--repeat", "2", "--junit", str(tmp_path / "j.xml"),
                 "--json", str(tmp_path / "r.json"))
        below = cli("--min-pass-rate", "0.8")
        missing = cli("--agent", "nobody")
    assert ok.returncode == 0, ok.stderr
    assert "pass rate 0.75 (95% CI" in ok.stdout
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"]["cases"] == 8 and report["summary"]["passed"] == 6
    suite = ET.parse(tmp_path / "j.xml").getroot()
    assert suite.get("tests") == "8" and suite.get("failures") == "2" and suite.get("errors") == "0"
    assert len(suite.findall("testcase/failure")) == 2
    assert below.returncode == 1 and "below the required 0.8" in below.stderr
    assert missing.returncode == 2 and "no agent named" in missing.stderr
    assert "Traceback" not in below.stderr + missing.stderr


def test_cli_on_the_embedded_store(tmp_path: Path) -> None:
    """A CI job with no service running: the records live in the data directory."""
    import signal
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    data_dir = tmp_path / "data"
    serve = subprocess.Popen([sys.executable, "-m", "agentwatch", "serve", "--data-dir", str(data_dir),
                              "--http-port", str(port), "--no-grpc"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    with scripted_model(GRADER_AND_AGENT) as model:
        try:
            for _ in range(300):
                try:
                    if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                import time

                time.sleep(0.1)
            httpx.post(f"{url}/api/eval/agents", json=_spec(model.url))
            dataset = httpx.post(f"{url}/api/eval/datasets", json={"name": "nightly"}).json()
            for kind in ("good", "bad"):
                httpx.post(f"{url}/api/eval/datasets/{dataset['id']}/cases", json={
                    "prompt": f"[{kind}] refund window?", "expected_behavior": "30 days"})
        finally:
            serve.send_signal(signal.SIGTERM)
            serve.wait(60)
        done = subprocess.run(
            [sys.executable, "-m", "agentwatch", "eval", "run", "--agent", "refund-bot", "--dataset",
             "nightly", "--data-dir", str(data_dir), "--min-pass-rate", "0.5"],
            capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert "pass rate 0.5 (95% CI" in done.stdout
