"""Eval-center records in ClickHouse, every read scoped to one tenant.

Writes are upserts (a newer UpdatedAt replaces the row) and deletes are
tombstones (Deleted = 1); reads use FINAL, which applies both.
"""

from __future__ import annotations

import functools
import json
import time
from datetime import UTC, datetime
from typing import Any

from clickhouse_connect.driver.client import Client

from schemas import Case, CaseIn, CaseResult, Dataset, DatasetIn, Run

from ._client import translate_errors


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def _dt(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def _translated(cls: type) -> type:
    """Every public method's ClickHouse errors become agentwatch store errors, as in Store."""
    for name, method in list(vars(cls).items()):
        if callable(method) and not name.startswith("_"):
            def wrap(fn: Any) -> Any:
                @functools.wraps(fn)
                def call(*args: Any, **kwargs: Any) -> Any:
                    with translate_errors():
                        return fn(*args, **kwargs)
                return call
            setattr(cls, name, wrap(method))
    return cls


@_translated
class EvalRecords:
    def __init__(self, client_factory: Any) -> None:
        self._client = client_factory  # () -> Client for the current thread

    @property
    def c(self) -> Client:
        return self._client()  # type: ignore[no-any-return]

    # -- agents ---------------------------------------------------------
    def put_agent(self, tenant: str, agent_id: str, name: str, spec: dict[str, Any],
                  created_ms: int | None = None, deleted: bool = False) -> None:
        now = _now_ms()
        self.c.insert("eval_agents", [[tenant, agent_id, name, json.dumps(spec), created_ms or now, now,
                                       int(deleted)]],
                      column_names=["Tenant", "Id", "Name", "Spec", "CreatedAt", "UpdatedAt", "Deleted"])

    def agents(self, tenant: str, agent_id: str | None = None,
               name: str | None = None) -> list[dict[str, Any]]:
        where, params = ["Tenant = {t:String}"], {"t": tenant}
        if agent_id is not None:
            where.append("Id = {id:String}")
            params["id"] = agent_id
        if name is not None:
            where.append("Name = {name:String}")
            params["name"] = name
        rows = self.c.query(
            "SELECT Id, Name, Spec, toUnixTimestamp64Milli(CreatedAt), toUnixTimestamp64Milli(UpdatedAt) "
            f"FROM eval_agents FINAL WHERE {' AND '.join(where)} ORDER BY CreatedAt DESC",
            parameters=params).result_rows
        return [{"id": r[0], "name": r[1], "spec": json.loads(r[2]), "created_at": _dt(r[3]),
                 "updated_at": _dt(r[4])} for r in rows]

    # -- datasets and cases -------------------------------------------------
    def put_dataset(self, tenant: str, dataset_id: str, data: DatasetIn, created_ms: int | None = None,
                    deleted: bool = False) -> None:
        now = _now_ms()
        self.c.insert("eval_datasets", [[tenant, dataset_id, data.name, data.description,
                                         created_ms or now, now, int(deleted)]],
                      column_names=["Tenant", "Id", "Name", "Description", "CreatedAt", "UpdatedAt",
                                    "Deleted"])

    def datasets(self, tenant: str, dataset_id: str | None = None, name: str | None = None,
                 limit: int = 1000, offset: int = 0) -> tuple[list[Dataset], int]:
        where, params = ["Tenant = {t:String}"], {"t": tenant, "limit": limit, "offset": offset}
        if dataset_id is not None:
            where.append("Id = {id:String}")
            params["id"] = dataset_id
        if name is not None:
            where.append("Name = {name:String}")
            params["name"] = name
        total = int(self.c.query(f"SELECT count() FROM eval_datasets FINAL WHERE {' AND '.join(where)}",
                                 parameters=params).result_rows[0][0])
        rows = self.c.query(
            "SELECT Id, Name, Description, toUnixTimestamp64Milli(CreatedAt), "
            f"toUnixTimestamp64Milli(UpdatedAt) FROM eval_datasets FINAL WHERE {' AND '.join(where)} "
            "ORDER BY CreatedAt DESC LIMIT {limit:UInt32} OFFSET {offset:UInt32}",
            parameters=params).result_rows
        counts: dict[str, int] = dict(self.c.query(  # type: ignore[arg-type]
            "SELECT DatasetId, count() FROM eval_cases FINAL WHERE Tenant = {t:String} "
            "AND DatasetId IN {ids:Array(String)} GROUP BY DatasetId",
            parameters={"t": tenant, "ids": [r[0] for r in rows]}).result_rows) if rows else {}
        return [Dataset(id=r[0], name=r[1], description=r[2], created_at=_dt(r[3]), updated_at=_dt(r[4]),
                        case_count=int(counts.get(r[0], 0))) for r in rows], total

    def put_case(self, tenant: str, dataset_id: str, case_id: str, data: CaseIn,
                 created_ms: int | None = None, deleted: bool = False) -> None:
        self.put_cases(tenant, dataset_id, [(case_id, data)], created_ms, deleted)

    def put_cases(self, tenant: str, dataset_id: str, cases: list[tuple[str, CaseIn]],
                  created_ms: int | None = None, deleted: bool = False) -> None:
        now = _now_ms()
        rows = [[tenant, dataset_id, case_id, c.prompt, c.expected_behavior, c.assertions, c.tags,
                 created_ms or now, now, int(deleted)] for case_id, c in cases]
        if rows:
            self.c.insert("eval_cases", rows, column_names=[
                "Tenant", "DatasetId", "Id", "Prompt", "ExpectedBehavior", "Assertions", "Tags",
                "CreatedAt", "UpdatedAt", "Deleted"])

    def cases(self, tenant: str, dataset_id: str, case_id: str | None = None, limit: int = 100_000,
              offset: int = 0) -> tuple[list[Case], int]:
        where = "Tenant = {t:String} AND DatasetId = {d:String}"
        params: dict[str, Any] = {"t": tenant, "d": dataset_id, "limit": limit, "offset": offset}
        if case_id is not None:
            where += " AND Id = {id:String}"
            params["id"] = case_id
        total = int(self.c.query(f"SELECT count() FROM eval_cases FINAL WHERE {where}",
                                 parameters=params).result_rows[0][0])
        rows = self.c.query(
            "SELECT Id, Prompt, ExpectedBehavior, Assertions, Tags, toUnixTimestamp64Milli(CreatedAt), "
            f"toUnixTimestamp64Milli(UpdatedAt) FROM eval_cases FINAL WHERE {where} "
            "ORDER BY CreatedAt, Id LIMIT {limit:UInt32} OFFSET {offset:UInt32}",
            parameters=params).result_rows
        return [Case(id=r[0], dataset_id=dataset_id, prompt=r[1], expected_behavior=r[2],
                     assertions=list(r[3]), tags=list(r[4]), created_at=_dt(r[5]), updated_at=_dt(r[6]))
                for r in rows], total

    # -- runs and results ----------------------------------------------------
    def put_run(self, tenant: str, run: Run, deleted: bool = False) -> None:
        self.c.insert("eval_runs", [[tenant, run.id, run.model_dump_json(), run.status.value,
                                     int(run.created_at.timestamp() * 1000), _now_ms(), int(deleted)]],
                      column_names=["Tenant", "Id", "Document", "Status", "CreatedAt", "UpdatedAt",
                                    "Deleted"])

    def runs(self, tenant: str | None, run_id: str | None = None, statuses: list[str] | None = None,
             limit: int = 1000, offset: int = 0) -> tuple[list[tuple[str, Run]], int]:
        where: list[str] = ["1"]
        params: dict[str, Any] = {"limit": limit, "offset": offset}
        if tenant is not None:
            where.append("Tenant = {t:String}")
            params["t"] = tenant
        if run_id is not None:
            where.append("Id = {id:String}")
            params["id"] = run_id
        if statuses:
            where.append("Status IN {st:Array(String)}")
            params["st"] = statuses
        clause = " AND ".join(where)
        total = int(self.c.query(f"SELECT count() FROM eval_runs FINAL WHERE {clause}",
                                 parameters=params).result_rows[0][0])
        rows = self.c.query(
            f"SELECT Tenant, Document FROM eval_runs FINAL WHERE {clause} "
            "ORDER BY CreatedAt DESC LIMIT {limit:UInt32} OFFSET {offset:UInt32}",
            parameters=params).result_rows
        return [(r[0], Run.model_validate_json(r[1])) for r in rows], total

    def put_result(self, tenant: str, result: CaseResult, deleted: bool = False) -> None:
        self.c.insert("eval_results", [[tenant, result.run_id, result.case_id, result.repeat,
                                        result.model_dump_json(), result.verdict.value, result.trace_id,
                                        _now_ms(), int(deleted)]],
                      column_names=["Tenant", "RunId", "CaseId", "Repeat", "Document", "Verdict",
                                    "TraceId", "UpdatedAt", "Deleted"])

    def results(self, tenant: str, run_id: str) -> list[CaseResult]:
        rows = self.c.query(
            "SELECT Document FROM eval_results FINAL WHERE Tenant = {t:String} AND RunId = {r:String} "
            "ORDER BY CaseId, Repeat", parameters={"t": tenant, "r": run_id}).result_rows
        return [CaseResult.model_validate_json(r[0]) for r in rows]

    def delete_results(self, tenant: str, run_id: str) -> None:
        for result in self.results(tenant, run_id):
            self.put_result(tenant, result, deleted=True)
