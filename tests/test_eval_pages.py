"""The eval-center pages in real headless Chromium: build a dataset, start a run, watch it fill."""

from __future__ import annotations

import os
import shutil
import time

import httpx
import pytest

from agentwatch.settings import EvalCenterSettings

from .conftest import make_settings, start_service
from .helpers import scripted_model
from .test_eval_center import GRADER_AND_AGENT, _spec

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    if os.environ.get("CI"):
        raise RuntimeError("CI must install Debian's chromium for the browser tests")
    pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)",
                allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SLOW = {**GRADER_AND_AGENT, "latency": {"mean_ms": 250}}


@pytest.fixture
def browser():  # type: ignore[no-untyped-def]
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def test_build_a_dataset_run_it_and_watch_the_results(browser, tmp_path, engine_path) -> None:  # type: ignore[no-untyped-def]
    settings = make_settings(tmp_path / "data", engine_path,
                             eval=EvalCenterSettings(concurrency=1))
    svc = start_service(settings)
    svc.app_state().harness.settings.collector_url = svc.url
    try:
        with scripted_model(SLOW) as model:
            httpx.post(f"{svc.url}/api/eval/agents", json=_spec(model.url))
            page = browser.new_page()
            page.goto(f"{svc.url}/eval/datasets")
            page.get_by_label("Name").fill("Refunds tier 1")
            page.get_by_role("button", name="Create dataset").click()
            expect(page.get_by_role("heading", name="Refunds tier 1")).to_be_visible()
            rows = page.locator("tbody tr[data-case]")
            for n, kind in enumerate(("good", "good", "bad", "good"), 1):
                page.get_by_label("Prompt").fill(f"[{kind}] What is the refund window?")
                page.get_by_label("Expected behavior").fill("States the 30-day window.")
                page.get_by_role("button", name="Add case").click()
                expect(rows).to_have_count(n)
            page.once("dialog", lambda dialog: dialog.accept())
            page.locator("[data-delete]").last.click()
            expect(rows).to_have_count(3)
            page.locator("[data-edit]").first.click()
            page.get_by_label("Expected behavior").fill("Mentions 30 days.")
            page.get_by_role("button", name="Save case").click()
            expect(page.get_by_text("Mentions 30 days.")).to_be_visible()

            page.get_by_role("link", name="Eval Runs").click()
            page.get_by_label("Dataset").select_option(label="Refunds tier 1 (3)")
            page.get_by_role("button", name="Start Evaluation").click()
            progress = page.locator("#progress")
            expect(progress).to_be_visible()
            seen = set()
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                seen.add(progress.get_attribute("aria-valuenow"))
                if page.locator("#run-status").inner_text() == "completed":
                    break
                time.sleep(0.3)
            assert page.locator("#run-status").inner_text() == "completed"
            assert len(seen - {None}) >= 2, f"the progress bar never moved: {seen}"
            verdicts = page.locator(".verdict").all_inner_texts()
            assert sorted(verdicts) == ["Fail", "Pass", "Pass"]
            assert page.locator("#pass-rate").inner_text() == "66.7%"
            expect(page.get_by_role("link", name="trace")).to_have_count(3)

            # keyboard: the form can be reached and used without a mouse
            page.goto(f"{svc.url}/eval/datasets")
            page.keyboard.press("Tab")
            for _ in range(10):
                if page.evaluate("document.activeElement.name") == "name":
                    break
                page.keyboard.press("Tab")
            assert page.evaluate("document.activeElement.name") == "name"
            # narrow screen: nothing overflows sideways
            page.set_viewport_size({"width": 360, "height": 740})
            page.goto(page.url)
            assert page.evaluate("document.documentElement.scrollWidth") <= 360
    finally:
        svc.server.stop()
