"""Eval-run benchmark: how much the harness adds on top of the model calls it waits for.

200 cases against the scripted model with 300 ms per model call (one agent call
and one grader call per case), concurrency 5. The ideal wall time is the sum of
every case's own agent and grader latency divided by the concurrency; the
harness overhead is how far the measured wall time is above it.

    python bench/eval_run.py [--cases 200] [--latency-ms 300] [--concurrency 5]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from agentwatch._server import BackgroundServer
from agentwatch.app import create_app
from agentwatch.settings import EvalCenterSettings, EvaluationSettings, Settings
from modelsim import Script
from modelsim import create_app as model_app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--latency-ms", type=float, default=300)
    parser.add_argument("--concurrency", type=int, default=5)
    args = parser.parse_args()
    script = Script.model_validate({"latency": {"mean_ms": args.latency_ms}, "scenarios": [
        {"name": "grade", "match": "^Original prompt:", "turns": [{"tool_calls": [
            {"name": "submit_verdict", "arguments": {"verdict": "pass", "reasoning": "ok"}}]}]},
        {"name": "answer", "match": ".", "turns": [{"text": "Refunds within 30 days."}]}]})
    model = BackgroundServer(model_app(script)).start()
    root = Path(tempfile.mkdtemp(prefix="aw-bench-evalrun-"))
    settings = Settings(data_dir=root, server={"grpc_enabled": False},
                        eval=EvalCenterSettings(concurrency=args.concurrency),
                        evaluation=EvaluationSettings(enabled=False))
    app = create_app(settings)
    server = BackgroundServer(app).start()
    app.state.harness.settings.collector_url = server.url
    api = f"{server.url}/api/eval"
    try:
        agent = httpx.post(f"{api}/agents", json={"name": "bench", "model": {
            "base_url": f"{model.url}/v1", "model": "sim"}}).json()
        dataset = httpx.post(f"{api}/datasets", json={"name": "bench"}).json()
        lines = "".join(json.dumps({"prompt": f"Refund window, case {n}?",
                                    "expected_behavior": "30 days"}) + "\n" for n in range(args.cases))
        httpx.post(f"{api}/datasets/{dataset['id']}/import", content=lines,
                   headers={"content-type": "application/x-ndjson"}, timeout=60)
        run = httpx.post(f"{api}/runs", json={"agent_id": agent["id"], "dataset_id": dataset["id"]}).json()
        while run["status"] in ("pending", "running"):
            time.sleep(0.5)
            run = httpx.get(f"{api}/runs/{run['id']}", timeout=60).json()
    finally:
        server.stop()
        model.stop()
    from datetime import datetime

    started, finished = (datetime.fromisoformat(run[k]) for k in ("started_at", "finished_at"))
    wall = (finished - started).total_seconds()
    own = sum(r["latency_ms"] + r["grader_latency_ms"] for r in run["results"]) / 1000
    ideal = own / args.concurrency
    floor = len(run["results"]) * 2 * args.latency_ms / 1000 / args.concurrency
    print(json.dumps({"cases": len(run["results"]), "status": run["status"], "passed": run["passed"],
                      "wall_s": round(wall, 2), "ideal_s": round(ideal, 2),
                      "overhead": round(wall / ideal - 1, 3),
                      "model_latency_floor_s": round(floor, 2),
                      "wall_over_latency_floor": round(wall / floor - 1, 3)}, indent=1))


if __name__ == "__main__":
    main()
