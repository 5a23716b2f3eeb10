"""What a CI job reads from a run: pass rate with a Wilson 95% interval, JUnit XML, JSON."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

from scipy.stats import binomtest


def wilson_interval(passed: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for the pass rate; (0, 1) when nothing was graded."""
    if trials == 0:
        return 0.0, 1.0
    ci = binomtest(passed, trials).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def summary(run: dict[str, Any]) -> dict[str, Any]:
    graded = run["passed"] + run["failed"] + run["errors"]
    low, high = wilson_interval(run["passed"], graded)
    return {"run_id": run["id"], "status": run["status"], "agent": run["agent_name"],
            "dataset": run["dataset_name"], "cases": graded, "passed": run["passed"],
            "failed": run["failed"], "errors": run["errors"],
            "pass_rate": round(run["passed"] / graded, 4) if graded else None,
            "pass_rate_ci95": [round(low, 4), round(high, 4)],
            "avg_latency_ms": run.get("avg_latency_ms"), "total_tokens": run.get("total_tokens")}


def junit_xml(run: dict[str, Any]) -> str:
    s = summary(run)
    suite = ET.Element("testsuite", name=f"agentwatch eval: {run['agent_name']} on {run['dataset_name']}",
                       tests=str(s["cases"]), failures=str(s["failed"]), errors=str(s["errors"]),
                       time=str(round(sum(r["latency_ms"] for r in run["results"]) / 1000, 3)))
    properties = ET.SubElement(suite, "properties")
    for key in ("run_id", "pass_rate", "pass_rate_ci95", "total_tokens"):
        ET.SubElement(properties, "property", name=key, value=json.dumps(s[key]))
    for result in run["results"]:
        case = ET.SubElement(suite, "testcase", classname=run["dataset_name"],
                             name=f"{result['case_id']}#{result['repeat']}: {result['prompt'][:80]}",
                             time=str(round(result["latency_ms"] / 1000, 3)))
        if result["verdict"] == "fail":
            ET.SubElement(case, "failure", message=result["reasoning"][:500]).text = result["answer"]
        elif result["verdict"] == "error":
            ET.SubElement(case, "error", message=result["error"][:500])
    return ET.tostring(suite, encoding="unicode", xml_declaration=True)
