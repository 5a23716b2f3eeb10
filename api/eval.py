"""The eval-center REST API (the seed's table, plus agents, import/export and cancel).

Every id is looked up within the caller's tenant, so another tenant's id is a 404.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Generic, Literal, TypeVar

from fastapi import APIRouter, Depends, HTTPException, Query, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel

from agent import AnyAgentSpec
from evalcenter import Harness, ImportError_, export_csv, export_jsonl, parse_csv, parse_jsonl
from schemas import Case, CaseIn, Dataset, DatasetIn, Run, RunDetail, RunIn, RunStatus

from ._deps import StoreDep, TenantDep

router = APIRouter(prefix="/api/eval", tags=["eval center"])
T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    items: list[T]
    total: int
    page: int
    size: int


class AgentRecord(BaseModel):
    id: str
    name: str
    spec: AnyAgentSpec


def get_harness(request: Request) -> Harness:
    return request.app.state.harness  # type: ignore[no-any-return]


HarnessDep = Annotated[Harness, Depends(get_harness)]
PageQ = Annotated[int, Query(ge=1, le=100_000)]
SizeQ = Annotated[int, Query(ge=1, le=200)]


def _new_id() -> str:
    return uuid.uuid4().hex[:16]


async def _dataset(store: Any, tenant: str, dataset_id: str) -> Dataset:
    found, _ = await run_in_threadpool(store.eval.datasets, tenant, dataset_id)
    if not found:
        raise HTTPException(404, f"dataset {dataset_id} not found")
    return found[0]  # type: ignore[no-any-return]


async def _agent(store: Any, tenant: str, agent_id: str) -> dict[str, Any]:
    found = await run_in_threadpool(store.eval.agents, tenant, agent_id)
    if not found:
        raise HTTPException(404, f"agent {agent_id} not found")
    return found[0]  # type: ignore[no-any-return]


# -- agents ---------------------------------------------------------------------
@router.post("/agents", response_model=AgentRecord, status_code=201, summary="Register an agent")
async def create_agent(spec: AnyAgentSpec, store: StoreDep, tenant: TenantDep) -> AgentRecord:
    agent_id = _new_id()
    await run_in_threadpool(store.eval.put_agent, tenant, agent_id, spec.name, spec.model_dump())
    return AgentRecord(id=agent_id, name=spec.name, spec=spec)


@router.get("/agents", response_model=list[AgentRecord], summary="List agents")
async def list_agents(store: StoreDep, tenant: TenantDep) -> list[AgentRecord]:
    return [AgentRecord(id=a["id"], name=a["name"], spec=a["spec"])
            for a in await run_in_threadpool(store.eval.agents, tenant)]


@router.get("/agents/{agent_id}", response_model=AgentRecord, summary="Get an agent")
async def get_agent(agent_id: str, store: StoreDep, tenant: TenantDep) -> AgentRecord:
    a = await _agent(store, tenant, agent_id)
    return AgentRecord(id=a["id"], name=a["name"], spec=a["spec"])


@router.put("/agents/{agent_id}", response_model=AgentRecord, summary="Update an agent")
async def update_agent(agent_id: str, spec: AnyAgentSpec, store: StoreDep, tenant: TenantDep) -> AgentRecord:
    await _agent(store, tenant, agent_id)
    await run_in_threadpool(store.eval.put_agent, tenant, agent_id, spec.name, spec.model_dump())
    return AgentRecord(id=agent_id, name=spec.name, spec=spec)


@router.delete("/agents/{agent_id}", status_code=204, summary="Delete an agent")
async def delete_agent(agent_id: str, store: StoreDep, tenant: TenantDep) -> Response:
    a = await _agent(store, tenant, agent_id)
    await run_in_threadpool(store.eval.put_agent, tenant, agent_id, a["name"], a["spec"], None, True)
    return Response(status_code=204)


# -- datasets ---------------------------------------------------------------------
@router.post("/datasets", response_model=Dataset, status_code=201, summary="Create a dataset")
async def create_dataset(data: DatasetIn, store: StoreDep, tenant: TenantDep) -> Dataset:
    dataset_id = _new_id()
    await run_in_threadpool(store.eval.put_dataset, tenant, dataset_id, data)
    return await _dataset(store, tenant, dataset_id)


@router.get("/datasets", response_model=Page[Dataset], summary="List datasets (paginated)")
async def list_datasets(store: StoreDep, tenant: TenantDep, page: PageQ = 1,
                        size: SizeQ = 20) -> Page[Dataset]:
    items, total = await run_in_threadpool(store.eval.datasets, tenant, None, None, size, (page - 1) * size)
    return Page[Dataset](items=items, total=total, page=page, size=size)


@router.get("/datasets/{dataset_id}", response_model=Dataset, summary="Get a dataset")
async def get_dataset(dataset_id: str, store: StoreDep, tenant: TenantDep) -> Dataset:
    return await _dataset(store, tenant, dataset_id)


@router.put("/datasets/{dataset_id}", response_model=Dataset, summary="Update a dataset")
async def update_dataset(dataset_id: str, data: DatasetIn, store: StoreDep, tenant: TenantDep) -> Dataset:
    await _dataset(store, tenant, dataset_id)
    await run_in_threadpool(store.eval.put_dataset, tenant, dataset_id, data)
    return await _dataset(store, tenant, dataset_id)


@router.delete("/datasets/{dataset_id}", status_code=204, summary="Delete a dataset and its cases")
async def delete_dataset(dataset_id: str, store: StoreDep, tenant: TenantDep) -> Response:
    dataset = await _dataset(store, tenant, dataset_id)
    cases, _ = await run_in_threadpool(store.eval.cases, tenant, dataset_id)
    await run_in_threadpool(store.eval.put_cases, tenant, dataset_id,
                            [(c.id, CaseIn.model_validate(c.model_dump())) for c in cases], None, True)
    await run_in_threadpool(store.eval.put_dataset, tenant, dataset_id,
                            DatasetIn(name=dataset.name, description=dataset.description), None, True)
    return Response(status_code=204)


# -- cases -------------------------------------------------------------------------
@router.post("/datasets/{dataset_id}/cases", response_model=Case, status_code=201, summary="Add a case")
async def add_case(dataset_id: str, data: CaseIn, store: StoreDep, tenant: TenantDep) -> Case:
    await _dataset(store, tenant, dataset_id)
    case_id = _new_id()
    await run_in_threadpool(store.eval.put_case, tenant, dataset_id, case_id, data)
    found, _ = await run_in_threadpool(store.eval.cases, tenant, dataset_id, case_id)
    return found[0]  # type: ignore[no-any-return]


@router.get("/datasets/{dataset_id}/cases", response_model=Page[Case], summary="List cases (paginated)")
async def list_cases(dataset_id: str, store: StoreDep, tenant: TenantDep, page: PageQ = 1,
                     size: SizeQ = 20) -> Page[Case]:
    await _dataset(store, tenant, dataset_id)
    items, total = await run_in_threadpool(store.eval.cases, tenant, dataset_id, None, size,
                                           (page - 1) * size)
    return Page[Case](items=items, total=total, page=page, size=size)


@router.put("/datasets/{dataset_id}/cases/{case_id}", response_model=Case, summary="Update a case")
async def update_case(dataset_id: str, case_id: str, data: CaseIn, store: StoreDep,
                      tenant: TenantDep) -> Case:
    found, _ = await run_in_threadpool(store.eval.cases, tenant, dataset_id, case_id)
    if not found:
        raise HTTPException(404, f"case {case_id} not found in dataset {dataset_id}")
    created = int(found[0].created_at.timestamp() * 1000)
    await run_in_threadpool(store.eval.put_case, tenant, dataset_id, case_id, data, created)
    found, _ = await run_in_threadpool(store.eval.cases, tenant, dataset_id, case_id)
    return found[0]  # type: ignore[no-any-return]


@router.delete("/datasets/{dataset_id}/cases/{case_id}", status_code=204, summary="Delete a case")
async def delete_case(dataset_id: str, case_id: str, store: StoreDep, tenant: TenantDep) -> Response:
    found, _ = await run_in_threadpool(store.eval.cases, tenant, dataset_id, case_id)
    if not found:
        raise HTTPException(404, f"case {case_id} not found in dataset {dataset_id}")
    await run_in_threadpool(store.eval.put_case, tenant, dataset_id, case_id,
                            CaseIn.model_validate(found[0].model_dump()), None, True)
    return Response(status_code=204)


@router.get("/datasets/{dataset_id}/export", summary="Export cases as JSON Lines or CSV",
            response_class=Response)
async def export_cases(dataset_id: str, store: StoreDep, tenant: TenantDep,
                       format: Literal["jsonl", "csv"] = "jsonl") -> Response:
    await _dataset(store, tenant, dataset_id)
    cases, _ = await run_in_threadpool(store.eval.cases, tenant, dataset_id)
    if format == "csv":
        return Response(export_csv(cases), media_type="text/csv")
    return Response(export_jsonl(cases), media_type="application/x-ndjson")


class ImportResult(BaseModel):
    imported: int


@router.post("/datasets/{dataset_id}/import", response_model=ImportResult,
             summary="Import cases: JSON Lines (application/x-ndjson) or CSV (text/csv)")
async def import_cases(dataset_id: str, request: Request, store: StoreDep, tenant: TenantDep) -> ImportResult:
    await _dataset(store, tenant, dataset_id)
    body = await request.body()
    if len(body) > 20 * 1024 * 1024:
        raise HTTPException(413, "import is above 20 MiB")
    kind = request.headers.get("content-type", "").split(";")[0].strip()
    try:
        text = body.decode("utf-8")
        if kind == "text/csv":
            cases = parse_csv(text)
        elif kind in ("application/x-ndjson", "application/jsonl", "application/json"):
            cases = parse_jsonl(text)
        else:
            raise HTTPException(415, "send application/x-ndjson (JSON Lines) or text/csv")
    except UnicodeDecodeError:
        raise HTTPException(400, "the body is not UTF-8") from None
    except ImportError_ as exc:
        raise HTTPException(422, str(exc)) from None
    await run_in_threadpool(store.eval.put_cases, tenant, dataset_id, [(_new_id(), c) for c in cases])
    return ImportResult(imported=len(cases))


# -- runs ----------------------------------------------------------------------------
@router.post("/runs", response_model=Run, status_code=202, summary="Start an eval run (returns at once)")
async def start_run(data: RunIn, store: StoreDep, tenant: TenantDep, harness: HarnessDep) -> Run:
    agent = await _agent(store, tenant, data.agent_id)
    dataset = await _dataset(store, tenant, data.dataset_id)
    cases, _ = await run_in_threadpool(store.eval.cases, tenant, data.dataset_id)
    if not cases:
        raise HTTPException(409, f"dataset {dataset.name!r} has no cases; add at least one")
    return await harness.start(tenant, agent, dataset.id, dataset.name, cases, data.repeat)


@router.get("/runs", response_model=Page[Run], summary="List runs (paginated)")
async def list_runs(store: StoreDep, tenant: TenantDep, page: PageQ = 1, size: SizeQ = 20) -> Page[Run]:
    items, total = await run_in_threadpool(store.eval.runs, tenant, None, None, size, (page - 1) * size)
    return Page[Run](items=[r for _, r in items], total=total, page=page, size=size)


async def _run(store: Any, tenant: str, run_id: str) -> Run:
    found, _ = await run_in_threadpool(store.eval.runs, tenant, run_id)
    if not found:
        raise HTTPException(404, f"run {run_id} not found")
    return found[0][1]  # type: ignore[no-any-return]


@router.get("/runs/{run_id}", response_model=RunDetail, summary="A run with all its case results")
async def get_run(run_id: str, store: StoreDep, tenant: TenantDep) -> RunDetail:
    run = await _run(store, tenant, run_id)
    results = await run_in_threadpool(store.eval.results, tenant, run_id)
    from store import ScoreFilter

    scores = await run_in_threadpool(store.list_scores, tenant, ScoreFilter(eval_run_id=run_id), 100_000)
    by_trace: dict[str, dict[str, float]] = {}
    for s in scores:
        by_trace.setdefault(s.trace_id, {})[s.name] = s.value
    for r in results:
        r.scores = by_trace.get(r.trace_id, {})
    return RunDetail(**run.model_dump(), results=results)


@router.post("/runs/{run_id}/cancel", response_model=Run, summary="Cancel a pending or running run")
async def cancel_run(run_id: str, store: StoreDep, tenant: TenantDep, harness: HarnessDep) -> Run:
    run = await _run(store, tenant, run_id)
    if run.status not in (RunStatus.pending, RunStatus.running) or not harness.cancel(run_id):
        raise HTTPException(409, f"run {run_id} is {run.status.value}; only a pending or running run "
                                 "can be cancelled")
    return run


@router.delete("/runs/{run_id}", status_code=204, summary="Delete a run and its results")
async def delete_run(run_id: str, store: StoreDep, tenant: TenantDep, harness: HarnessDep) -> Response:
    run = await _run(store, tenant, run_id)
    harness.cancel(run_id)
    await run_in_threadpool(store.eval.delete_results, tenant, run_id)
    await run_in_threadpool(store.eval.put_run, tenant, run, True)
    return Response(status_code=204)


