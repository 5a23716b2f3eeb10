"""The eval center over real HTTP: API, background runs with a real agent and a grader model."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from fastapi import FastAPI, Request

from tenancy import KeysFile

from .conftest import Service, start_service
from .helpers import scripted_model

GRADER_AND_AGENT = {"scenarios": [
    # the grader (its requests start with the grading message)
    {"name": "grade-garbage", "match": r"^Original prompt:.*\[garbage\]", "turns": [
        {"tool_calls": [{"name": "submit_verdict", "arguments": {"verdict": "maybe"}}]}]},
    {"name": "grade-pass", "match": r"^Original prompt:.*Actual answer from the agent:\n.*30 days", "turns": [
        {"tool_calls": [{"name": "submit_verdict", "arguments": {
            "verdict": "pass", "reasoning": "States the 30-day window."}}]}]},
    {"name": "grade-fail", "match": r"^Original prompt:", "turns": [
        {"tool_calls": [{"name": "submit_verdict", "arguments": {
            "verdict": "fail", "reasoning": "Does not give the refund window."}}]}]},
    # the agent under test
    {"name": "knows", "match": r"^\[good\]", "turns": [
        {"tool_calls": [{"name": "calculator", "arguments": {"expression": "15 * 2"}}]},
        {"text": "Refunds are accepted within 30 days."}]},
    {"name": "unsure", "match": r"^\[bad\]", "turns": [{"text": "I do not know."}]},
    {"name": "garbage", "match": r"^\[garbage\]", "turns": [{"text": "Refunds: 30 days."}]},
]}


def _spec(model_url: str) -> dict:  # type: ignore[type-arg]
    return {"name": "refund-bot", "version": "3.0.0", "tools": ["calculator"],
            "instructions": "Answer refund questions.",
            "model": {"base_url": f"{model_url}/v1", "model": "sim-agent"}}


def _wait(svc: Service, run_id: str, headers: dict[str, str] | None = None) -> dict:  # type: ignore[type-arg]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        run = httpx.get(f"{svc.url}/api/eval/runs/{run_id}", headers=headers).json()
        if run["status"] not in ("pending", "running"):
            return run  # type: ignore[no-any-return]
        time.sleep(0.2)
    raise AssertionError("run did not finish")


def test_run_grades_cases_pass_fail_and_error(service: Service) -> None:
    service.app_state().harness.settings.collector_url = service.url
    api = f"{service.url}/api/eval"
    with scripted_model(GRADER_AND_AGENT) as model:
        agent = httpx.post(f"{api}/agents", json=_spec(model.url)).json()
        dataset = httpx.post(f"{api}/datasets", json={"name": "Refunds tier 1"}).json()
        kinds = ["good"] * 6 + ["bad"] * 4 + ["garbage"] * 2
        for n, kind in enumerate(kinds[:8]):
            created = httpx.post(f"{api}/datasets/{dataset['id']}/cases", json={
                "prompt": f"[{kind}] What is the refund window for plan {n}?",
                "expected_behavior": "States the 30-day refund window.",
                "assertions": ["mentions 30 days"], "tags": [kind]})
            assert created.status_code == 201, created.text
        lines = "".join(json.dumps({"prompt": f"[{kind}] Refund window, case {n}?",
                                    "expected_behavior": "States the 30-day refund window."}) + "\n"
                        for n, kind in enumerate(kinds[8:], 8))
        imported = httpx.post(f"{api}/datasets/{dataset['id']}/import", content=lines,
                              headers={"content-type": "application/x-ndjson"})
        assert imported.json() == {"imported": 4}
        started = httpx.post(f"{api}/runs", json={"agent_id": agent["id"], "dataset_id": dataset["id"]})
        assert started.status_code == 202 and started.json()["status"] == "pending"
        run = _wait(service, started.json()["id"])
    assert run["status"] == "completed" and run["total"] == run["completed"] == 12
    verdicts = {r["prompt"]: r["verdict"] for r in run["results"]}
    for prompt, verdict in verdicts.items():
        expected = {"good": "pass", "bad": "fail", "garbage": "error"}[prompt[1:prompt.index("]")]]
        assert verdict == expected, (prompt, verdict)
    assert (run["passed"], run["failed"], run["errors"]) == (6, 4, 2)
    assert run["pass_rate"] == 0.5 and run["avg_latency_ms"] > 0 and run["total_tokens"] > 0
    good = next(r for r in run["results"] if r["verdict"] == "pass")
    assert good["reasoning"] == "States the 30-day window." and "30 days" in good["answer"]
    garbage = next(r for r in run["results"] if r["verdict"] == "error")
    assert "grader failed" in garbage["error"]
    assert run["agent_snapshot"]["version"] == "3.0.0"
    # the agents' spans went through the collector, marked with the run and the case
    time.sleep(1.0)
    rows = service.store.query_rows(
        "SELECT DISTINCT EvalRunId, EvalCaseId FROM agent_spans WHERE Kind = 'agent'")
    assert {r[0] for r in rows} == {run["id"]} and len({r[1] for r in rows}) == 12
    assert {r["trace_id"] for r in run["results"]} <= set(
        t for (t,) in service.store.query_rows("SELECT DISTINCT TraceId FROM agent_spans"))


def test_api_validation_cascades_and_tenancy(settings) -> None:  # type: ignore[no-untyped-def]
    keys = KeysFile(str(settings.keys_path))
    _, key_a = keys.create("tenant-a")
    _, key_b = keys.create("tenant-b")
    svc = start_service(settings)
    a, b = {"authorization": f"Bearer {key_a}"}, {"authorization": f"Bearer {key_b}"}
    api = f"{svc.url}/api/eval"
    try:
        assert httpx.post(f"{api}/datasets", json={"name": "x"}).status_code == 401
        missing = httpx.post(f"{api}/datasets", json={}, headers=a)
        assert missing.status_code == 422 and missing.json()["detail"][0]["loc"] == ["body", "name"]
        dataset = httpx.post(f"{api}/datasets", json={"name": "Mine"}, headers=a).json()
        base = f"{api}/datasets/{dataset['id']}"
        no_expected = httpx.post(f"{base}/cases", json={"prompt": "hi"}, headers=a)
        assert no_expected.status_code == 422
        assert "expected_behavior" in json.dumps(no_expected.json())
        huge = httpx.post(f"{base}/cases", json={"prompt": "x" * 40_000, "expected_behavior": "y"},
                          headers=a)
        assert huge.status_code == 422
        agent = httpx.post(f"{api}/agents", headers=a, json={
            "name": "bot", "model": {"base_url": "http://127.0.0.1:9/v1", "model": "m"}}).json()
        empty = httpx.post(f"{api}/runs", json={"agent_id": agent["id"], "dataset_id": dataset["id"]},
                           headers=a)
        assert empty.status_code == 409 and "no cases" in empty.json()["detail"]
        unknown = httpx.post(f"{api}/runs", json={"agent_id": "nope", "dataset_id": dataset["id"]},
                             headers=a)
        assert unknown.status_code == 404
        for n in range(25):
            httpx.post(f"{base}/cases", json={"prompt": f"q{n}", "expected_behavior": "e"}, headers=a)
        page = httpx.get(f"{base}/cases", params={"page": 2, "size": 10}, headers=a).json()
        assert (page["total"], page["page"], len(page["items"])) == (25, 2, 10)
        case_id = page["items"][0]["id"]
        edited = httpx.put(f"{base}/cases/{case_id}", json={"prompt": "new", "expected_behavior": "e2"},
                           headers=a)
        assert edited.json()["prompt"] == "new"
        exported = httpx.get(f"{base}/export", params={"format": "csv"}, headers=a)
        assert exported.text.startswith("prompt,expected_behavior") and exported.text.count("\n") == 26
        # another tenant sees nothing and gets 404 for these ids
        assert httpx.get(base, headers=b).status_code == 404
        assert httpx.get(f"{base}/cases", headers=b).status_code == 404
        assert httpx.get(f"{api}/agents/{agent['id']}", headers=b).status_code == 404
        assert httpx.get(f"{api}/datasets", headers=b).json()["total"] == 0
        # deleting the dataset deletes its cases
        assert httpx.delete(f"{base}/cases/{case_id}", headers=a).status_code == 204
        assert httpx.delete(base, headers=a).status_code == 204
        assert httpx.get(base, headers=a).status_code == 404
        assert svc.store.query_rows("SELECT count() FROM eval_cases FINAL")[0][0] == 0
    finally:
        svc.server.stop()


def test_interrupted_runs_are_failed_on_restart(settings) -> None:  # type: ignore[no-untyped-def]
    from datetime import UTC, datetime

    from schemas import Run, RunStatus

    svc = start_service(settings)
    svc.store.eval.put_run("default", Run(id="r1", agent_id="a", agent_name="bot", dataset_id="d",
                                          dataset_name="ds", status=RunStatus.running, total=3,
                                          created_at=datetime.now(UTC)))
    svc.server.stop()
    again = start_service(settings)
    try:
        run = httpx.get(f"{again.url}/api/eval/runs/r1").json()
        assert run["status"] == "failed" and "restarted" in run["error"]
        assert httpx.post(f"{again.url}/api/eval/runs/r1/cancel").status_code == 409
        assert httpx.delete(f"{again.url}/api/eval/runs/r1").status_code == 204
        assert httpx.get(f"{again.url}/api/eval/runs/r1").status_code == 404
    finally:
        again.server.stop()


@pytest.mark.parametrize("body,kind,code", [
    ('{"prompt": "x"}\n', "application/x-ndjson", 422),
    ("not json\n", "application/x-ndjson", 422),
    ("prompt\nx\n", "text/csv", 422),
    ("x", "text/plain", 415),
])
def test_bad_imports(service: Service, body: str, kind: str, code: int) -> None:
    dataset = httpx.post(f"{service.url}/api/eval/datasets", json={"name": "d"}).json()
    response = httpx.post(f"{service.url}/api/eval/datasets/{dataset['id']}/import", content=body,
                          headers={"content-type": kind})
    assert response.status_code == code
    assert httpx.get(f"{service.url}/api/eval/datasets/{dataset['id']}").json()["case_count"] == 0


def test_external_http_agent_joins_the_case_trace(tmp_path, engine_path) -> None:  # type: ignore[no-untyped-def]
    from agentwatch._server import BackgroundServer
    from agentwatch.settings import EvalCenterSettings
    from instrumentation import configure, continue_trace

    from .conftest import make_settings

    with scripted_model(GRADER_AND_AGENT) as model:
        settings = make_settings(tmp_path / "data", engine_path, eval=EvalCenterSettings(
            grader_base_url=f"{model.url}/v1", grader_model="fast"))
        svc = start_service(settings)
        svc.app_state().harness.settings.collector_url = svc.url
        telemetry = configure("remote-refund-agent", endpoint=svc.url)
        remote = FastAPI()

        @remote.post("/answer")
        async def answer(request: Request) -> dict:  # type: ignore[type-arg]
            body = await request.json()
            with continue_trace(request.headers), telemetry.invoke_agent("remote-refund-agent"):
                good = body["prompt"].startswith("[good]")
                return {"answer": "Refunds within 30 days." if good else "No idea.", "tokens": 7}

        agent_server = BackgroundServer(remote).start()
        try:
            api = f"{svc.url}/api/eval"
            agent = httpx.post(f"{api}/agents", json={
                "kind": "http", "name": "remote", "url": f"{agent_server.url}/answer"}).json()
            assert agent["spec"]["kind"] == "http"
            dataset = httpx.post(f"{api}/datasets", json={"name": "remote"}).json()
            for kind in ("good", "bad"):
                httpx.post(f"{api}/datasets/{dataset['id']}/cases", json={
                    "prompt": f"[{kind}] refund window?", "expected_behavior": "30 days"})
            run_id = httpx.post(f"{api}/runs", json={"agent_id": agent["id"],
                                                     "dataset_id": dataset["id"]}).json()["id"]
            run = _wait(svc, run_id)
            telemetry.flush()
        finally:
            agent_server.stop()
            svc.server.stop()
            telemetry.shutdown()
    errors = [r["error"] for r in run["results"]]
    assert sorted(r["verdict"] for r in run["results"]) == ["fail", "pass"], errors
    assert all(r["tokens"] == 7 for r in run["results"])
    trace_id = run["results"][0]["trace_id"]
    from store import Store

    store = Store(settings.dsn, settings.store.database)
    services = {r[0] for r in store.query_rows(
        "SELECT ServiceName FROM agent_spans WHERE TraceId = {t:String}", {"t": trace_id})}
    assert "remote-refund-agent" in services and len(services) == 2  # the remote agent joined the trace


def test_provider_429_slows_the_run_instead_of_failing_cases(service: Service) -> None:
    throttled = {**GRADER_AND_AGENT, "errors": [{"kind": "429", "attempts": [1], "retry_after_s": 0.05}]}
    api = f"{service.url}/api/eval"
    with scripted_model(throttled) as model:
        agent = httpx.post(f"{api}/agents", json=_spec(model.url)).json()
        dataset = httpx.post(f"{api}/datasets", json={"name": "busy provider"}).json()
        for n in range(6):
            httpx.post(f"{api}/datasets/{dataset['id']}/cases", json={
                "prompt": f"[good] refund window {n}?", "expected_behavior": "30 days"})
        run = _wait(service, httpx.post(f"{api}/runs", json={
            "agent_id": agent["id"], "dataset_id": dataset["id"]}).json()["id"])
        assert model.app.state.requests > 6 * 3  # every first attempt was refused, then retried
    assert run["status"] == "completed" and run["errors"] == 0 and run["passed"] == 6


def test_openapi_documents_the_eval_api(service: Service) -> None:
    paths = httpx.get(f"{service.url}/openapi.json").json()["paths"]
    expected = {
        "/api/eval/datasets": {"post", "get"}, "/api/eval/datasets/{dataset_id}": {"get", "put", "delete"},
        "/api/eval/datasets/{dataset_id}/cases": {"post", "get"},
        "/api/eval/datasets/{dataset_id}/cases/{case_id}": {"put", "delete"},
        "/api/eval/runs": {"post", "get"}, "/api/eval/runs/{run_id}": {"get", "delete"},
        "/api/eval/runs/{run_id}/cancel": {"post"}, "/api/eval/agents": {"post", "get"},
        "/api/eval/agents/{agent_id}": {"get", "put", "delete"},
        "/api/eval/datasets/{dataset_id}/export": {"get"}, "/api/eval/datasets/{dataset_id}/import": {"post"},
    }
    for path, methods in expected.items():
        assert methods <= set(paths[path]), path
    run_schema = paths["/api/eval/runs/{run_id}"]["get"]["responses"]["200"]["content"]["application/json"]
    assert run_schema["schema"]["$ref"].endswith("RunDetail")
