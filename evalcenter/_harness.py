"""Eval runs: every case through a fresh real agent (stage 1), a grader (stage 2), persisted
as it completes (stage 3), in the background, with bounded and adaptive concurrency."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from agent import AGENT_SPEC, Agent, AgentSpec, ExternalAgentSpec, ModelClient, RetryPolicy
from agent.tools import FetchPolicy, ToolConfig, build_tools
from instrumentation import Telemetry, configure, inject_headers
from schemas import Case, CaseResult, Run, RunStatus, Verdict
from store import Store

from ._grader import GraderError, grade

log = logging.getLogger("agentwatch.evalcenter")


@dataclass
class HarnessSettings:
    collector_url: str = ""  # where the agents' spans go: the service's own OTLP endpoint
    api_key: str | None = None
    grader_base_url: str = ""
    grader_model: str = ""
    grader_api_key: str | None = None
    concurrency: int = 5
    workspace: Path = field(default_factory=lambda: Path(".agentwatch") / "eval-workspaces")
    allow_private_fetch: bool = False


class AdaptiveLimit:
    """At most `limit` cases at once; a provider 429 halves it, successes let it grow back."""

    def __init__(self, limit: int) -> None:
        self.ceiling = max(1, limit)
        self.limit = self.ceiling
        self._active = 0
        self._cond = asyncio.Condition()

    async def __aenter__(self) -> None:
        async with self._cond:
            await self._cond.wait_for(lambda: self._active < self.limit)
            self._active += 1

    async def __aexit__(self, *exc: object) -> None:
        async with self._cond:
            self._active -= 1
            self._cond.notify_all()

    def throttled(self, _delay_s: float = 0.0) -> None:
        self.limit = max(1, self.limit // 2)

    async def succeeded(self) -> None:
        async with self._cond:
            if self.limit < self.ceiling:
                self.limit += 1
                self._cond.notify_all()


class Harness:
    def __init__(self, store: Store, settings: HarnessSettings) -> None:
        self.store = store
        self.settings = settings
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._cancelled: set[str] = set()

    async def start(self, tenant: str, agent: dict[str, Any], dataset_id: str, dataset_name: str,
                    cases: list[Case], repeat: int = 1) -> Run:
        run = Run(id=uuid.uuid4().hex[:16], agent_id=agent["id"], agent_name=agent["name"],
                  dataset_id=dataset_id, dataset_name=dataset_name, status=RunStatus.pending,
                  repeat=repeat, total=len(cases) * repeat, agent_snapshot=agent["spec"],
                  created_at=datetime.now(UTC))
        await asyncio.to_thread(self.store.eval.put_run, tenant, run)
        self._tasks[run.id] = asyncio.create_task(self._execute(tenant, run, cases))
        return run

    def cancel(self, run_id: str) -> bool:
        if run_id in self._tasks and not self._tasks[run_id].done():
            self._cancelled.add(run_id)
            return True
        return False

    async def wait(self, run_id: str) -> None:
        task = self._tasks.get(run_id)
        if task is not None:
            await task

    async def close(self) -> None:
        for run_id in list(self._tasks):
            self._cancelled.add(run_id)
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def fail_interrupted_runs(self) -> int:
        """On start-up: runs a previous process left pending or running are marked failed."""
        stale, _ = await asyncio.to_thread(self.store.eval.runs, None, None, ["pending", "running"])
        for tenant, run in stale:
            run.status = RunStatus.failed
            run.error = "the service restarted while this run was in progress; start it again"
            run.finished_at = datetime.now(UTC)
            await asyncio.to_thread(self.store.eval.put_run, tenant, run)
        return len(stale)

    # -- the pipeline ----------------------------------------------------------
    async def _execute(self, tenant: str, run: Run, cases: list[Case]) -> None:
        s = self.settings
        spec = AGENT_SPEC.validate_python(run.agent_snapshot)
        limit = AdaptiveLimit(s.concurrency)
        telemetry = (configure(spec.name, endpoint=s.collector_url, api_key=s.api_key,
                               service_version=spec.version, environment="eval", capture_content=True,
                               resource_attributes={"eval.run_id": run.id})
                     if s.collector_url else Telemetry())
        if isinstance(spec, AgentSpec):
            agent_client: ModelClient | None = ModelClient(
                spec.model.base_url, _key(spec.model.api_key_env), provider=spec.model.provider,
                timeout_s=spec.model.timeout_s, telemetry=telemetry, on_throttle=limit.throttled,
                retry=RetryPolicy(max_retries=6, base_delay_s=0.2))
            default_grader = spec.model.base_url
        else:
            agent_client = None
            default_grader = spec.url if spec.protocol == "openai" else ""
        grader_client = ModelClient(s.grader_base_url or default_grader, s.grader_api_key,
                                    telemetry=Telemetry(), on_throttle=limit.throttled,
                                    retry=RetryPolicy(max_retries=6, base_delay_s=0.2))
        run.status, run.started_at = RunStatus.running, datetime.now(UTC)
        await asyncio.to_thread(self.store.eval.put_run, tenant, run)
        lock = asyncio.Lock()
        try:
            async def one(case: Case, repeat: int) -> None:
                if run.id in self._cancelled:
                    return
                async with limit:
                    if run.id in self._cancelled:
                        return
                    result = await self._case(run, spec, case, repeat, agent_client, grader_client,
                                              telemetry)
                    await limit.succeeded()
                await asyncio.to_thread(self.store.eval.put_result, tenant, result)
                async with lock:
                    _count(run, result)
                    await asyncio.to_thread(self.store.eval.put_run, tenant, run)

            await asyncio.gather(*(one(c, r) for c in cases for r in range(run.repeat)))
            run.status = RunStatus.cancelled if run.id in self._cancelled else RunStatus.completed
        except Exception as exc:  # the run fails visibly, never spins
            log.exception("eval run %s failed", run.id)
            run.status, run.error = RunStatus.failed, f"{type(exc).__name__}: {exc}"[:1000]
        finally:
            if agent_client is not None:
                await agent_client.aclose()
            await grader_client.aclose()
            # off the event loop: the spans may be going to this very service
            await asyncio.to_thread(telemetry.flush)
            await asyncio.to_thread(telemetry.shutdown)
        _finish(run)
        await asyncio.to_thread(self.store.eval.put_run, tenant, run)

    async def _case(self, run: Run, spec: AgentSpec | ExternalAgentSpec, case: Case, repeat: int,
                    agent_client: ModelClient | None, grader_client: ModelClient,
                    telemetry: Telemetry) -> CaseResult:
        base = CaseResult(run_id=run.id, case_id=case.id, repeat=repeat, prompt=case.prompt,
                          expected_behavior=case.expected_behavior, assertions=case.assertions,
                          verdict=Verdict.error)
        marks = {"eval.run_id": run.id, "eval.case_id": case.id}
        started = time.perf_counter()
        if isinstance(spec, AgentSpec):
            assert agent_client is not None
            workspace = self.settings.workspace / run.id / f"{case.id}-{repeat}"
            tools = build_tools(spec.tools, ToolConfig(
                workspace, fetch=FetchPolicy(allow_private=self.settings.allow_private_fetch)))
            agent = Agent(spec, agent_client, tools, telemetry)  # a fresh instance: no shared history
            outcome = await agent.run(case.prompt, attributes=marks)
            base.tokens, base.answer, base.trace_id = outcome.total_tokens, outcome.answer, outcome.trace_id
            failure = outcome.error if outcome.status == "error" else ""
        else:
            failure = await self._external(spec, case, marks, base, telemetry)
        base.latency_ms = round((time.perf_counter() - started) * 1000, 1)
        if failure:
            base.error = f"the agent failed: {failure}"
            return base
        if not grader_client.base_url:
            base.error = "no grader model is configured: set [eval] grader_base_url and grader_model"
            return base
        graded = time.perf_counter()
        try:
            own_model = spec.model.model if isinstance(spec, AgentSpec) else spec.model
            verdict, reasoning = await grade(grader_client, self.settings.grader_model or own_model,
                                             case.prompt, case.expected_behavior, case.assertions,
                                             base.answer)
        except GraderError as exc:
            base.error = str(exc)
            return base
        finally:
            base.grader_latency_ms = round((time.perf_counter() - graded) * 1000, 1)
        base.verdict, base.reasoning = Verdict(verdict), reasoning
        return base


    async def _external(self, spec: ExternalAgentSpec, case: Case, marks: dict[str, str],
                        result: CaseResult, telemetry: Telemetry) -> str:
        """Call an agent over HTTP inside this case's trace; '' on success, else the failure."""
        key = _key(spec.api_key_env)
        with telemetry.invoke_agent(spec.name, version=spec.version, attributes=marks) as span:
            result.trace_id = span.trace_id
            headers = inject_headers({"authorization": f"Bearer {key}"} if key else {})
            try:
                async with httpx.AsyncClient(timeout=spec.timeout_s) as http:
                    if spec.protocol == "json":
                        response = await http.post(spec.url, headers=headers, json={
                            "prompt": case.prompt, "run_id": marks["eval.run_id"],
                            "case_id": case.id})
                        response.raise_for_status()
                        body = response.json()
                        result.answer = str(body["answer"])
                        result.tokens = int(body.get("tokens") or 0)
                    else:
                        response = await http.post(f"{spec.url.rstrip('/')}/chat/completions",
                                                   headers=headers, json={
                            "model": spec.model, "messages": [{"role": "user", "content": case.prompt}]})
                        response.raise_for_status()
                        body = response.json()
                        result.answer = str(body["choices"][0]["message"].get("content") or "")
                        result.tokens = int((body.get("usage") or {}).get("total_tokens") or 0)
            except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError) as exc:
                span.fail(type(exc).__name__, str(exc)[:300])
                return f"{type(exc).__name__}: {str(exc)[:300]}"
            span.set_answer(result.answer)
        return ""


def _key(env_name: str) -> str | None:
    import os

    return os.environ.get(env_name) if env_name else None


def _count(run: Run, result: CaseResult) -> None:
    previous = (run.avg_latency_ms or 0.0) * run.completed
    run.avg_latency_ms = round((previous + result.latency_ms) / (run.completed + 1), 1)
    run.total_tokens += result.tokens
    run.completed += 1
    run.passed += result.verdict == Verdict.passed
    run.failed += result.verdict == Verdict.failed
    run.errors += result.verdict == Verdict.error


def _finish(run: Run) -> None:
    run.finished_at = datetime.now(UTC)
    run.pass_rate = round(run.passed / run.completed, 4) if run.completed else None
    if run.status == RunStatus.running:
        run.status = RunStatus.failed
