"""Live scoring over real HTTP and the real store: scores match what the agents really did."""

from __future__ import annotations

import asyncio
import time

import httpx

from simulator import SimulationConfig, simulate

from .conftest import fast_scoring, make_settings, start_service


def _scores_by_trace(url: str, name: str) -> dict[str, float]:
    out: dict[str, float] = {}
    offset: int | None = 0
    while offset is not None:
        page = httpx.get(f"{url}/api/scores", params={"name": name, "limit": 1000, "offset": offset},
                         timeout=30).json()
        out.update({s["trace_id"]: s["value"] for s in page["items"]})
        offset = page["next_offset"]
    return out


def test_live_scores_match_the_ground_truth(tmp_path, engine_path) -> None:  # type: ignore[no-untyped-def]
    svc = start_service(make_settings(tmp_path / "data", engine_path, evaluation=fast_scoring()))
    try:
        report = asyncio.run(simulate(SimulationConfig(
            collector_url=svc.url, rate_per_s=40, duration_s=30, max_tasks=100, seed=5,
            injection_share=0.35, refusal_share=0.15, failure_share=0.1, mutation_share=0.1,
            unsafe_share=0.15, canary_share=0.2, shadow_share=0.15)))
        records = {r.trace_id: r for r in report.records}
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            scored = _scores_by_trace(svc.url, "refusal.detected")
            if set(records) <= set(scored):
                break
            time.sleep(0.5)
        assert set(records) <= set(scored), f"{len(set(records) - set(scored))} traces unscored"

        success = _scores_by_trace(svc.url, "injection.attack_success")
        followed = {t for t, r in records.items() if r.followed_injection}
        assert followed and {t for t, v in success.items() if v > 0} == followed

        detected = _scores_by_trace(svc.url, "injection.detected")
        seen = {t for t, r in records.items() if r.injection_seen}
        assert {t for t, v in detected.items() if v > 0} == seen

        refused = {t for t, v in _scores_by_trace(svc.url, "refusal.detected").items() if v > 0}
        assert refused == {t for t, r in records.items() if r.category == "refusal"}

        duplicates = {t for t, v in _scores_by_trace(svc.url, "tool_safety.duplicate_mutation").items() if v}
        secrets = {t for t, v in _scores_by_trace(svc.url, "tool_safety.secret_in_arguments").items() if v}
        shadow = {t for t, v in _scores_by_trace(svc.url, "tool_safety.shadow_side_effect").items() if v}
        unsafe = {t: r for t, r in records.items() if r.category == "unsafe"}
        assert duplicates == {t for t, r in unsafe.items() if "weekly report" in r.prompt}
        assert secrets == {t for t, r in unsafe.items() if "deploy key" in r.prompt}
        assert shadow == {t for t, r in records.items() if r.cohort == "shadow" and r.mutations}
        assert duplicates and secrets and shadow

        victim = next(iter(followed))
        detail = httpx.get(f"{svc.url}/api/traces/{victim}").json()
        names = {s["name"]: s for s in detail["scores"]}
        assert names["injection.attack_success"]["severity"] == "critical"
        assert names["injection.attack_success"]["evidence_span_ids"]
        assert "agentwatch_evaluator_traces_scored_total" in httpx.get(f"{svc.url}/metrics").text
    finally:
        svc.server.stop()
