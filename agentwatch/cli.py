"""The `agentwatch` command line: serve, migrate, keys, demo."""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer
from rich.console import Console
from rich.table import Table

from schemas.errors import AgentwatchError, StoreError, StoreLocked, StoreUnavailable, UsageError

from .settings import Settings, load_settings

app = typer.Typer(no_args_is_help=True, add_completion=False,
                  help="Observability and online evaluation for LLM agents.")
keys_app = typer.Typer(no_args_is_help=True, help="Create, list and revoke API keys.")
app.add_typer(keys_app, name="keys")
eval_app = typer.Typer(no_args_is_help=True, help="Run eval-center datasets (for CI/CD).")
app.add_typer(eval_app, name="eval")
console = Console(width=None if sys.stdout.isatty() else 140)
err = Console(stderr=True, soft_wrap=True)

ConfigOpt = Annotated[str | None, typer.Option("--config", help="TOML settings file")]
DataDirOpt = Annotated[Path | None, typer.Option(help="data directory (embedded store, spool, keys)")]
DsnOpt = Annotated[str | None, typer.Option(help="chdb:///path or http(s)://user:pass@host:8123/db")]


def _settings(config: str | None, **overrides: object) -> Settings:
    return load_settings(config, **overrides)


@app.command()
def serve(
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    dsn: DsnOpt = None,
    host: Annotated[str | None, typer.Option(help="bind address (default 127.0.0.1)")] = None,
    http_port: Annotated[int | None, typer.Option(help="OTLP/HTTP, API, pages (default 4318)")] = None,
    grpc_port: Annotated[int | None, typer.Option(help="OTLP/gRPC (default 4317)")] = None,
    no_grpc: Annotated[bool, typer.Option("--no-grpc", help="do not listen for OTLP/gRPC")] = False,
    keys_file: Annotated[str | None, typer.Option(help="API keys file")] = None,
    ttl_days: Annotated[int | None, typer.Option(help="days to keep spans; 0 = forever")] = None,
    log_level: Annotated[str | None, typer.Option(help="debug, info, warning, error")] = None,
) -> None:
    """Run the collector, API and pages until interrupted."""
    from . import _logging
    from ._server import bind, uvicorn_server
    from .app import build_parts, create_app

    settings = _settings(
        config, data_dir=data_dir, store__dsn=dsn, server__host=host, server__http_port=http_port,
        server__grpc_port=grpc_port, server__grpc_enabled=False if no_grpc else None,
        auth__keys_file=keys_file, store__ttl_days=ttl_days, log_level=log_level,
    )
    _logging.configure(settings.log_level)
    _ensure_data_dir(settings)
    sock = bind(settings.server.host, settings.server.http_port)
    parts = build_parts(settings)
    try:
        parts.store.open()
    except StoreUnavailable as exc:
        err.print(f"[yellow]warning:[/] {exc}; spans will be spooled until the store is back")
    server = uvicorn_server(create_app(settings, parts), log_level=settings.log_level)
    err.print(f"agentwatch listening on http://{settings.server.host}:{sock.getsockname()[1]} "
              f"(store {parts.store.dsn_text})")
    asyncio.run(server.serve(sockets=[sock]))


@app.command()
def migrate(
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    dsn: DsnOpt = None,
    print_ddl: Annotated[bool, typer.Option("--print-ddl", help="print the DDL, apply nothing")] = False,
    cluster: Annotated[str | None, typer.Option(help="with --print-ddl: ON CLUSTER / Replicated / "
                                                "Distributed variant for this cluster")] = None,
) -> None:
    """Apply pending schema migrations (or print the DDL)."""
    from store import Store, cluster_ddl, migrations

    settings = _settings(config, data_dir=data_dir, store__dsn=dsn)
    if print_ddl:
        if cluster:
            sys.stdout.write(cluster_ddl(cluster, settings.store.database))
        else:
            for m in migrations():
                sys.stdout.write(f"-- {m.version:04d}_{m.name}\n")
                sys.stdout.write(";\n\n".join(m.statements) + ";\n\n")
        return
    if cluster:
        raise UsageError("--cluster goes with --print-ddl; apply the printed DDL with clickhouse-client")
    _ensure_data_dir(settings)
    store = Store(settings.dsn, settings.store.database, settings.store.ttl_days)
    applied = store.open()
    console.print(f"applied: {', '.join(applied)}" if applied else "schema up to date")


@keys_app.command("create")
def keys_create(
    tenant: Annotated[str, typer.Option(help="tenant the key belongs to")],
    name: Annotated[str, typer.Option(help="a label for the key")] = "",
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    keys_file: Annotated[str | None, typer.Option(help="API keys file")] = None,
) -> None:
    """Create a key; it is printed once and stored only as a hash."""
    from tenancy import KeysFile

    settings = _settings(config, data_dir=data_dir, auth__keys_file=keys_file)
    key, token = KeysFile(str(settings.keys_path)).create(tenant, name)
    err.print(f"created key {key.key_id} for tenant {key.tenant}; store it now, it is not shown again:")
    typer.echo(token)


@keys_app.command("list")
def keys_list(
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    keys_file: Annotated[str | None, typer.Option(help="API keys file")] = None,
) -> None:
    """List keys (ids and tenants; secrets are never shown)."""
    from tenancy import KeysFile

    settings = _settings(config, data_dir=data_dir, auth__keys_file=keys_file)
    table = Table("key id", "tenant", "name", "created", "status")
    for key in KeysFile(str(settings.keys_path)).load():
        table.add_row(key.key_id, key.tenant, key.name,
                      time.strftime("%Y-%m-%d %H:%M", time.gmtime(key.created_at)),
                      "active" if key.active else "revoked")
    console.print(table)


@keys_app.command("revoke")
def keys_revoke(
    key_id: str,
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    keys_file: Annotated[str | None, typer.Option(help="API keys file")] = None,
) -> None:
    """Revoke a key; a running service stops accepting it within a second."""
    from tenancy import KeysFile

    settings = _settings(config, data_dir=data_dir, auth__keys_file=keys_file)
    key = KeysFile(str(settings.keys_path)).revoke(key_id)
    console.print(f"revoked key {key.key_id} (tenant {key.tenant})")


@app.command()
def demo(
    data_dir: DataDirOpt = None,
    tasks: Annotated[int, typer.Option(help="agent tasks to simulate")] = 24,
    http_port: Annotated[int, typer.Option(help="port for the service (0 = any free port)")] = 0,
    keep_serving: Annotated[bool, typer.Option(help="keep the service up after the demo")] = False,
) -> None:
    """Start the service on the embedded store, run simulated agent tasks into it, show the traces."""
    from simulator import SimulationConfig
    from simulator import simulate as run_simulation

    from ._server import BackgroundServer
    from .app import create_app

    settings = _settings(None, data_dir=data_dir, server__http_port=http_port, server__grpc_port=0)
    _ensure_data_dir(settings)
    server = BackgroundServer(create_app(settings), port=http_port).start()
    err.print(f"agentwatch is up at {server.url} (store {settings.dsn})")
    try:
        report = asyncio.run(run_simulation(SimulationConfig(
            collector_url=server.url, rate_per_s=8, duration_s=60, max_tasks=tasks,
            injection_share=0.25, refusal_share=0.1, failure_share=0.1, canary_share=0.3)))
        time.sleep(1.0)  # the agents' batch span processors flush every 500 ms
        page = httpx.get(f"{server.url}/api/traces", params={"limit": tasks}, timeout=30).json()
        table = Table("trace id", "agent", "version", "cohort", "spans", "llm", "tools",
                      "tokens in/out", "ms", "status", title=f"{len(page['items'])} latest traces")
        for t in page["items"]:
            table.add_row(t["trace_id"][:12], t["agent_name"], t["agent_version"], t["cohort"],
                          str(t["span_count"]), str(t["llm_calls"]), str(t["tool_calls"]),
                          f"{t['input_tokens']}/{t['output_tokens']}", f"{t['duration_ms']:.0f}",
                          t["status"])
        console.print(table)
        followed = sum(r.followed_injection for r in report.records)
        console.print(f"{len(report.records)} tasks; {followed} followed an injected instruction")
        if page["items"]:
            console.print(f"one trace in full: {server.url}/api/traces/{page['items'][0]['trace_id']}")
        if keep_serving:
            err.print("serving; Ctrl-C to stop")
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


@app.command()
def evaluate(
    follow: Annotated[bool, typer.Option("--follow", help="score new traces until interrupted")] = False,
    since: Annotated[str | None, typer.Option(
        help="backfill traces that started at or after (ISO 8601)")] = None,
    until: Annotated[str | None, typer.Option(
        help="backfill traces that started before (default: now)")] = None,
    shard: Annotated[int | None, typer.Option(help="this runner's shard (0-based)")] = None,
    shards: Annotated[int | None, typer.Option(help="number of runner shards")] = None,
    config: ConfigOpt = None,
    data_dir: DataDirOpt = None,
    dsn: DsnOpt = None,
) -> None:
    """Score traces with the enabled evaluators: continuously (--follow) or a time range (backfill)."""
    from datetime import UTC, datetime

    from evaluators import StreamingRunner
    from store import Store

    if follow == (since is not None):
        raise UsageError("use either --follow or --since [--until]")
    settings = _settings(config, data_dir=data_dir, store__dsn=dsn, evaluation__shard=shard,
                         evaluation__shards=shards)
    if settings.evaluation.shard >= settings.evaluation.shards:
        raise UsageError(f"--shard must be below --shards ({settings.evaluation.shards})")
    _ensure_data_dir(settings)
    store = Store(settings.dsn, settings.store.database, settings.store.ttl_days)
    store.open()
    runner = StreamingRunner(store, settings.evaluation.runner_settings())
    if since is not None:
        def parse(text: str) -> int:
            try:
                moment = datetime.fromisoformat(text)
            except ValueError:
                raise UsageError(f"not an ISO 8601 time: {text!r}") from None
            return int((moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp() * 1e9)

        scored = asyncio.run(runner.backfill(parse(since), parse(until) if until else time.time_ns()))
        console.print(f"scored {scored} traces")
        return

    async def run() -> None:
        stop = asyncio.Event()
        task = asyncio.create_task(runner.follow(stop))
        try:
            while True:
                await asyncio.sleep(10)
                err.print(f"scored {int(runner.metrics.traces._value.get())} traces so far")
        finally:
            stop.set()
            await task

    err.print(f"scoring new traces (shard {settings.evaluation.shard} of {settings.evaluation.shards}); "
              "Ctrl-C to stop")
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())


@eval_app.command("run")
def eval_run(
    agent: Annotated[str, typer.Option(help="agent name (as registered in the eval center)")],
    dataset: Annotated[str, typer.Option(help="dataset name")],
    min_pass_rate: Annotated[float | None, typer.Option(
        help="exit 1 when the pass rate is below this (0..1)", min=0, max=1)] = None,
    repeat: Annotated[int, typer.Option(help="run each case N times", min=1, max=20)] = 1,
    url: Annotated[str | None, typer.Option(
        help="a running service; default: the embedded store under --data-dir")] = None,
    api_key: Annotated[str | None, typer.Option(envvar="AGENTWATCH_API_KEY", help="bearer key")] = None,
    junit: Annotated[Path | None, typer.Option(help="write JUnit XML here")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="write the run as JSON here")] = None,
    data_dir: DataDirOpt = None,
    timeout_s: Annotated[float, typer.Option(help="give up after this many seconds")] = 3600,
) -> None:
    """Run a dataset against an agent, show the results, fail the build under a threshold."""
    import json as _json

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from evalcenter import junit_xml, summary

    server = None
    if url is None:
        from ._server import BackgroundServer
        from .app import create_app

        settings = _settings(None, data_dir=data_dir, server__grpc_enabled=False,
                             evaluation__grace_s=0.5)
        _ensure_data_dir(settings)
        service = create_app(settings)
        server = BackgroundServer(service).start()
        service.state.harness.settings.collector_url = server.url
        url = server.url
    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    http = httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=60)
    try:
        agents = _api(http.get("/api/eval/agents"))
        found_agent = next((a for a in agents if a["name"] == agent), None)
        datasets = _api(http.get("/api/eval/datasets", params={"size": 200}))["items"]
        found_dataset = next((d for d in datasets if d["name"] == dataset), None)
        if found_agent is None:
            known = ", ".join(a["name"] for a in agents) or "none"
            raise UsageError(f"no agent named {agent!r} (known: {known})")
        if found_dataset is None:
            raise UsageError(f"no dataset named {dataset!r}")
        run = _api(http.post("/api/eval/runs", json={"agent_id": found_agent["id"],
                                                     "dataset_id": found_dataset["id"], "repeat": repeat}))
        deadline = time.monotonic() + timeout_s
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      console=err, transient=True) as progress:
            task = progress.add_task(f"{agent} on {dataset}", total=run["total"])
            while run["status"] in ("pending", "running"):
                if time.monotonic() > deadline:
                    raise UsageError(f"run {run['id']} did not finish in {timeout_s:g} s")
                time.sleep(1.0)
                run = _api(http.get(f"/api/eval/runs/{run['id']}"))
                progress.update(task, completed=run["completed"])
    finally:
        http.close()
        if server is not None:
            server.stop()
    result = summary(run)
    table = Table("case", "verdict", "latency ms", "tokens", "reasoning / error",
                  title=f"{agent} on {dataset}: {run['status']}")
    colours = {"pass": "green", "fail": "red", "error": "dark_orange"}
    for r in run["results"]:
        table.add_row(r["prompt"][:50], f"[{colours[r['verdict']]}]{r['verdict']}[/]",
                      f"{r['latency_ms']:.0f}", str(r["tokens"]), (r["reasoning"] or r["error"])[:80])
    console.print(table)
    low, high = result["pass_rate_ci95"]
    rate = result["pass_rate"]
    console.print(f"pass rate {rate if rate is not None else 'n/a'} (95% CI {low}–{high}), "
                  f"{result['passed']} pass / {result['failed']} fail / {result['errors']} error")
    if junit:
        junit.write_text(junit_xml(run), encoding="utf-8")
    if json_out:
        json_out.write_text(_json.dumps({"summary": result, "run": run}, indent=1), encoding="utf-8")
    if run["status"] != "completed":
        raise SystemExit(1)
    if min_pass_rate is not None and (rate or 0.0) < min_pass_rate:
        err.print(f"[red]pass rate {rate} is below the required {min_pass_rate}[/]")
        raise SystemExit(1)


def _api(response: httpx.Response) -> Any:
    if response.status_code >= 400:
        try:
            detail = response.json().get("detail", response.text)
        except ValueError:
            detail = response.text
        raise UsageError(f"the service answered {response.status_code}: {detail}")
    return response.json()


@app.command("model-sim")
def model_sim(
    scenario: Annotated[Path | None, typer.Option(
        help="scenario file (YAML); default: echo behaviour")] = None,
    host: Annotated[str, typer.Option(help="bind address")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port")] = 8001,
) -> None:
    """Serve the scripted OpenAI-compatible model (for demos and tests; not a real LLM)."""
    import uvicorn

    from modelsim import Script, create_app

    from ._server import bind

    script = Script.load(scenario) if scenario else Script()
    sock = bind(host, port)
    err.print(f"scripted model at http://{host}:{sock.getsockname()[1]}/v1")
    server = uvicorn.Server(uvicorn.Config(create_app(script), log_level="warning"))
    asyncio.run(server.serve(sockets=[sock]))


@app.command()
def simulate(
    collector: Annotated[str | None, typer.Option(help="collector base URL; default: start one on "
                                                  "the embedded store under --data-dir")] = None,
    api_key: Annotated[str | None, typer.Option(envvar="AGENTWATCH_API_KEY", help="collector key")] = None,
    rate: Annotated[float, typer.Option(help="tasks per second")] = 2.0,
    duration: Annotated[float, typer.Option(help="seconds to run")] = 30.0,
    max_tasks: Annotated[int | None, typer.Option(help="stop after this many tasks")] = None,
    injection_share: Annotated[float, typer.Option(help="share of tasks meeting injected content")] = 0.2,
    refusal_share: Annotated[float, typer.Option(help="share of tasks that should be refused")] = 0.1,
    failure_share: Annotated[float, typer.Option(help="share of tasks whose tools fail")] = 0.1,
    mutation_share: Annotated[float, typer.Option(help="share of tasks asking for a change")] = 0.1,
    unsafe_share: Annotated[float, typer.Option(help="share of tasks with unsafe tool use")] = 0.05,
    canary_share: Annotated[float, typer.Option(help="share of tasks sent to the canary")] = 0.2,
    shadow_share: Annotated[float, typer.Option(help="share of tasks sent to a shadow version")] = 0.0,
    seed: Annotated[int, typer.Option(help="random seed")] = 1,
    manifest: Annotated[Path | None, typer.Option(help="write what each task did (JSON)")] = None,
    data_dir: DataDirOpt = None,
) -> None:
    """Send simulated agent traffic (real agents and tools, scripted model) to a collector."""
    from simulator import SimulationConfig
    from simulator import simulate as run_simulation

    server = None
    if collector is None:
        from ._server import BackgroundServer
        from .app import create_app

        settings = _settings(None, data_dir=data_dir, server__grpc_enabled=False)
        _ensure_data_dir(settings)
        server = BackgroundServer(create_app(settings)).start()
        collector = server.url
        err.print(f"collector at {collector} (store {settings.dsn})")
    try:
        config = SimulationConfig(
            collector_url=collector, api_key=api_key, rate_per_s=rate, duration_s=duration,
            max_tasks=max_tasks, injection_share=injection_share, refusal_share=refusal_share,
            failure_share=failure_share, mutation_share=mutation_share, unsafe_share=unsafe_share,
            canary_share=canary_share, shadow_share=shadow_share, seed=seed)
        try:
            report = asyncio.run(run_simulation(config))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    finally:
        if server is not None:
            server.stop()
    table = Table("category", "tasks", "followed an injection", "tool errors", title=(
        f"{len(report.records)} tasks in {report.seconds:.1f} s"))
    for category in sorted({r.category for r in report.records}):
        rows = [r for r in report.records if r.category == category]
        table.add_row(category, str(len(rows)), str(sum(r.followed_injection for r in rows)),
                      str(sum(r.tool_errors for r in rows)))
    console.print(table)
    if manifest:
        report.write(manifest)


def _ensure_data_dir(settings: Settings) -> None:
    """The data directory holds the spool and keys (and the embedded store): fail early."""
    path = settings.data_dir
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise UsageError(f"data directory {path} is not writable: {exc.strerror}") from None


def main() -> None:
    """Entry point: AgentwatchErrors become one line on stderr and an exit code, never a trace."""
    try:
        app(standalone_mode=False)
    except UsageError as exc:
        err.print(f"[red]error:[/] {exc}")
        raise SystemExit(2) from None
    except StoreLocked as exc:
        err.print(f"[red]error:[/] {exc}")
        raise SystemExit(3) from None
    except (StoreError, AgentwatchError) as exc:
        err.print(f"[red]error:[/] {exc}")
        raise SystemExit(1) from None
    except typer.Exit as exc:
        raise SystemExit(exc.exit_code) from None
    except typer.Abort:
        raise SystemExit(130) from None
    except Exception as exc:  # click usage errors and the like
        import click

        if isinstance(exc, click.ClickException):
            exc.show()
            raise SystemExit(exc.exit_code) from None
        raise
