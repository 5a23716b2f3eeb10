"""Evaluator benchmark: freshness under live traffic, throughput of one runner, validity.

1. Freshness: `agentwatch serve` (streaming runner inside) is fed by the
   simulator at a fixed rate; for every trace, the seconds from its root span
   being accepted (IngestedAt) to its first scores being written (ScoredAt).
2. Throughput: traces written straight into a fresh store (1 agent, 4 LLM and
   5 tool spans each, with arguments and results), then one runner scores
   them all with the deterministic evaluators; traces/s end to end (load,
   evaluate, write).
3. Validity: the confusion matrix of each judgement on tests/corpus/traces.jsonl.

    python bench/evaluate.py [--rate 50] [--seconds 20] [--traces 5000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench._payloads import payloads  # noqa: E402
from bench._service import start_serve  # noqa: E402
from collector import parse_protobuf, to_columns  # noqa: E402
from evaluators import RunnerSettings, StreamingRunner  # noqa: E402
from evaluators._validity import load_corpus, validate  # noqa: E402
from schemas import SpanColumns  # noqa: E402
from simulator import SimulationConfig, simulate  # noqa: E402
from store import Store  # noqa: E402


def freshness(rate: float, seconds: float) -> dict[str, float]:
    server, url, data_dir = start_serve("aw-bench-eval-")
    report = asyncio.run(simulate(SimulationConfig(
        collector_url=url, rate_per_s=rate, duration_s=seconds, concurrency=64, seed=3,
        failure_share=0.05)))
    time.sleep(8)  # let the last traces go quiet and be scored
    server.send_signal(signal.SIGTERM)
    server.wait(120)
    store = Store(f"chdb://{data_dir / 'chdb'}", "bench")
    rows = store.query_rows("""
        SELECT (min(s.first) - r.accepted) / 1000
        FROM (SELECT TraceId, min(toUnixTimestamp64Milli(IngestedAt)) AS accepted
              FROM agent_spans WHERE ParentSpanId = '' GROUP BY TraceId) AS r
        JOIN (SELECT TraceId, min(toUnixTimestamp64Milli(ScoredAt)) AS first
              FROM scores GROUP BY TraceId) AS s USING TraceId
        GROUP BY TraceId, r.accepted""")
    delays = sorted(float(r[0]) for r in rows)
    store.close()
    return {"traces_sent": len(report.records), "traces_scored": len(delays),
            "achieved_rate_per_s": round(len(report.records) / report.seconds, 1),
            "freshness_p50_s": round(statistics.median(delays), 2),
            "freshness_p95_s": round(delays[int(0.95 * (len(delays) - 1))], 2),
            "freshness_max_s": round(delays[-1], 2)}


def throughput(traces: int) -> dict[str, float]:
    path = Path(tempfile.mkdtemp(prefix="aw-bench-runner-"))
    store = Store(f"chdb://{path}", "throughput")
    store.open()
    per_request = 50
    bodies = payloads(max(1, traces // per_request), per_request, seed=9)
    columns = SpanColumns.concat([to_columns(parse_protobuf(b), "default", 32_768).columns
                                  for b in bodies])
    store.insert_spans(columns, token="bench")
    now = time.time_ns()
    runner = StreamingRunner(store, RunnerSettings(batch_traces=1000))
    started = time.perf_counter()
    scored = asyncio.run(runner.backfill(now - 3 * 3600 * 10**9, now + 10**9))
    elapsed = time.perf_counter() - started
    scores = store.query_rows("SELECT count() FROM scores")[0][0]
    store.close()
    return {"traces_scored": scored, "scores_written": scores, "seconds": round(elapsed, 2),
            "traces_per_s": round(scored / elapsed)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=50)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--traces", type=int, default=5000)
    parser.add_argument("--skip-freshness", action="store_true")
    args = parser.parse_args()
    result: dict[str, object] = {}
    if not args.skip_freshness:
        result["freshness"] = freshness(args.rate, args.seconds)
    result["throughput"] = throughput(args.traces)
    confusion = validate(load_corpus(ROOT / "tests" / "corpus" / "traces.jsonl"))
    result["validity"] = {name: {"tp": c.tp, "fp": c.fp, "fn": c.fn, "tn": c.tn,
                                 "precision": round(c.precision, 3), "recall": round(c.recall, 3)}
                          for name, c in confusion.items()}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
