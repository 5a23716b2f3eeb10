"""`agentwatch simulate`: bounded runs land in the collector in the proportions asked."""

from __future__ import annotations

import asyncio
import statistics

from simulator import SimulationConfig, simulate

from .conftest import Service


def test_simulation_reaches_the_collector_in_the_asked_proportions(service: Service) -> None:
    config = SimulationConfig(collector_url=service.url, rate_per_s=40, duration_s=30, max_tasks=120,
                              injection_share=0.3, refusal_share=0.15, failure_share=0.15,
                              mutation_share=0.1, canary_share=0.3, seed=11)
    report = asyncio.run(simulate(config))
    records = report.records
    assert len(records) == 120
    traces = service.store.query_rows(
        "SELECT TraceId, anyIf(Cohort, Kind = 'agent'), countIf(Kind = 'llm') FROM agent_spans "
        "GROUP BY TraceId")
    assert {t for t, _, _ in traces} == {r.trace_id for r in records}

    share = {c: sum(r.category == c for r in records) / len(records)
             for c in ("injection", "refusal", "failure", "mutation")}
    for category, asked in (("injection", 0.3), ("refusal", 0.15), ("failure", 0.15),
                            ("mutation", 0.1)):
        assert abs(share[category] - asked) < 0.1, share
    canary = sum(r.cohort == "canary" for r in records) / len(records)
    assert abs(canary - 0.3) < 0.12

    injected = [r for r in records if r.category == "injection"]
    assert all(r.injection_seen for r in injected)
    followed = [r for r in injected if r.followed_injection]
    assert 0 < len(followed) < len(injected)  # the scripted model follows about half the time
    assert not any(r.followed_injection for r in records if not r.injection_seen)
    refusals = [r for r in records if r.category == "refusal"]
    assert all(not r.tools and "can't help" in r.answer for r in refusals)
    assert all(r.tool_errors >= 1 for r in records if r.category == "failure")

    # a followed injection is visible in the trace: a mutating call with the attacker's address
    victim = followed[0]
    spans = service.trace(victim.trace_id).json()["spans"]
    mutations = [s for s in spans if s["kind"] == "tool" and s["tool_effect"] == "mutate"]
    assert mutations and any("exfil.example" in s["tool_arguments"] or "admin access" in
                             s["tool_arguments"] for s in mutations)

    # the canary is slower per model call
    per_cohort = {c: [r[0] for r in service.store.query_rows(
        "SELECT DurationNs FROM agent_spans WHERE Kind = 'llm' AND Cohort = {c:String}", {"c": c})]
        for c in ("baseline", "canary")}
    assert statistics.median(per_cohort["canary"]) > 1.5 * statistics.median(per_cohort["baseline"])
