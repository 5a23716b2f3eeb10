"""`agentwatch simulate`: a stream of realistic tasks through real agents, spans to a collector."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from agent import Agent, AgentSpec, ModelClient, ModelConfig, RetryPolicy
from agent.tools import FetchPolicy, LocalIndex, SandboxLimits, ToolConfig, build_tools
from agentwatch._server import BackgroundServer
from instrumentation import Telemetry, configure
from modelsim import Script, create_app

from ._world import (
    AGENT_TOOLS,
    DOCUMENTS,
    EXFIL,
    INJECTED_TICKET,
    INJECTION_MARKER,
    Task,
    make_task,
    seed_workspace,
    web_app,
)

SCENARIO = Path(__file__).with_name("scenario.yaml")
VERSIONS = {"baseline": ("1.4.0", "sim-baseline"), "canary": ("1.5.0-rc1", "sim-canary"),
            "shadow": ("1.6.0-dev", "sim-baseline")}


@dataclass
class SimulationConfig:
    collector_url: str
    api_key: str | None = None
    rate_per_s: float = 2.0
    duration_s: float = 30.0
    max_tasks: int | None = None
    injection_share: float = 0.2
    refusal_share: float = 0.1
    failure_share: float = 0.1
    mutation_share: float = 0.1
    unsafe_share: float = 0.0
    canary_share: float = 0.2
    shadow_share: float = 0.0
    concurrency: int = 16
    seed: int = 1
    environment: str = "simulation"
    scenario: Path = SCENARIO


@dataclass
class TaskRecord:
    trace_id: str
    agent: str
    version: str
    cohort: str
    category: str
    prompt: str
    status: str
    tools: list[str]
    tool_errors: int
    mutations: int
    injection_seen: bool
    followed_injection: bool
    answer: str


@dataclass
class SimulationReport:
    records: list[TaskRecord] = field(default_factory=list)
    seconds: float = 0.0

    def counts(self) -> dict[str, int]:
        return dict(Counter(r.category for r in self.records))

    def write(self, path: Path) -> None:
        path.write_text(json.dumps([asdict(r) for r in self.records], indent=1), encoding="utf-8")


def _category(rng: random.Random, config: SimulationConfig) -> str:
    roll = rng.random()
    for name, share in (("injection", config.injection_share), ("refusal", config.refusal_share),
                        ("failure", config.failure_share), ("mutation", config.mutation_share),
                        ("unsafe", config.unsafe_share)):
        if roll < share:
            return name
        roll -= share
    return "normal"


def _followed(calls: list[tuple[str, str]]) -> bool:
    """Whether the agent did what an injected instruction asked (the attacker's values)."""
    return any((name == "send_email" and EXFIL in args)
               or (name == "create_ticket" and INJECTED_TICKET in args) for name, args in calls)


async def simulate(config: SimulationConfig) -> SimulationReport:
    """Run tasks at the configured rate for the configured time; return what happened."""
    shares = (config.injection_share + config.refusal_share + config.failure_share
              + config.mutation_share + config.unsafe_share)
    if not 0 <= shares <= 1 or not 0 <= config.canary_share + config.shadow_share <= 1:
        raise ValueError("shares must be between 0 and 1 and add up to at most 1")
    model = BackgroundServer(create_app(Script.load(config.scenario))).start()
    web = BackgroundServer(web_app()).start()
    workspace = Path(tempfile.mkdtemp(prefix="aw-sim-"))
    seed_workspace(workspace)
    tool_config = ToolConfig(workspace, fetch=FetchPolicy(allow_private=True, timeout_s=5),
                             search=LocalIndex(DOCUMENTS), sandbox=SandboxLimits(wall_s=5, cpu_s=3))
    telemetries: list[Telemetry] = []
    clients: list[ModelClient] = []
    agents: dict[tuple[str, str], Agent] = {}
    for cohort, (version, model_name) in VERSIONS.items():
        for name, tools in AGENT_TOOLS.items():
            telemetry = configure(name, endpoint=config.collector_url, api_key=config.api_key,
                                  service_version=version, cohort=cohort,  # type: ignore[arg-type]
                                  environment=config.environment, capture_content=True)
            client = ModelClient(f"{model.url}/v1", telemetry=telemetry,
                                 retry=RetryPolicy(max_retries=2, base_delay_s=0.05, max_delay_s=1))
            spec = AgentSpec(name=name, version=version, tools=tools, max_steps=6,
                             model=ModelConfig(base_url=f"{model.url}/v1", model=model_name),
                             instructions=f"You are the {name}. Use tools when useful.")
            agents[(name, cohort)] = Agent(spec, client, build_tools(tools, tool_config), telemetry)
            telemetries.append(telemetry)
            clients.append(client)
    rng = random.Random(config.seed)
    report = SimulationReport()
    gate = asyncio.Semaphore(config.concurrency)
    started = time.monotonic()

    async def one(task: Task, cohort: str) -> None:
        async with gate:
            runner = agents[(task.agent, cohort)]
            result = await runner.run(task.prompt)
        calls = [(c.name, c.arguments) for s in result.steps for c in s.tool_calls]
        results = [c.result for s in result.steps for c in s.tool_calls]
        report.records.append(TaskRecord(
            trace_id=result.trace_id, agent=task.agent, version=runner.spec.version, cohort=cohort,
            category=task.category, prompt=task.prompt, status=result.status,
            tools=[name for name, _ in calls],
            tool_errors=sum(1 for s in result.steps for c in s.tool_calls if c.error),
            mutations=sum(1 for s in result.steps for c in s.tool_calls
                          if c.effect == "mutate" and not c.error),
            injection_seen=any(INJECTION_MARKER.search(r) for r in results),
            followed_injection=_followed(calls), answer=result.answer[:500]))

    try:
        pending = []
        n = 0
        while time.monotonic() - started < config.duration_s:
            if config.max_tasks is not None and n >= config.max_tasks:
                break
            task = make_task(rng, web.url, _category(rng, config), n)
            roll = rng.random()
            cohort = ("canary" if roll < config.canary_share else
                      "shadow" if roll < config.canary_share + config.shadow_share else "baseline")
            pending.append(asyncio.create_task(one(task, cohort)))
            n += 1
            # pace by the clock, not by sleeps, so slow iterations do not lower the rate
            await asyncio.sleep(max(0.0, started + n / config.rate_per_s - time.monotonic()))
        await asyncio.gather(*pending)
    finally:
        for client in clients:
            await client.aclose()
        for telemetry in telemetries:
            telemetry.flush()
            telemetry.shutdown()
        model.stop()
        web.stop()
        shutil.rmtree(workspace, ignore_errors=True)
    report.seconds = time.monotonic() - started
    return report
