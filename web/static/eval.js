// agentwatch Eval Center pages: plain JavaScript over the REST API, no build step.
"use strict";
const main = document.getElementById("main");
const keyInput = document.getElementById("api-key");
keyInput.value = localStorage.getItem("agentwatch-key") || "";
keyInput.addEventListener("change", () => { localStorage.setItem("agentwatch-key", keyInput.value); route(); });

function esc(text) {
  const span = document.createElement("span");
  span.textContent = text == null ? "" : String(text);
  return span.innerHTML;
}
function say(message) { document.getElementById("status").textContent = message; }

async function api(path, options = {}) {
  const headers = { "content-type": "application/json", ...(options.headers || {}) };
  if (keyInput.value) headers.authorization = `Bearer ${keyInput.value}`;
  const response = await fetch(path, { ...options, headers });
  if (response.status === 204) return null;
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const detail = Array.isArray(body.detail) ? body.detail.map(d => `${d.loc.slice(1).join(".")}: ${d.msg}`).join("; ") : body.detail;
    throw new Error(detail || `HTTP ${response.status}`);
  }
  return body;
}

function showError(error) {
  const box = document.getElementById("error") || main.insertAdjacentElement("afterbegin", Object.assign(document.createElement("p"), { id: "error", role: "alert" }));
  box.className = "badge fail";
  box.textContent = error.message;
}

function truncated(text, length = 120) {
  const value = text || "";
  if (value.length <= length) return `<span>${esc(value)}</span>`;
  return `<details><summary>${esc(value.slice(0, length))}…</summary><div>${esc(value)}</div></details>`;
}

// -- datasets --------------------------------------------------------------------
async function datasetsPage() {
  document.title = "Datasets · agentwatch";
  const page = await api("/api/eval/datasets?size=200");
  main.innerHTML = `
    <h1>Datasets</h1>
    <form class="card" id="new-dataset" aria-labelledby="new-dataset-title">
      <h2 id="new-dataset-title">New Dataset</h2>
      <label>Name <input name="name" required maxlength="200"></label>
      <label>Description <textarea name="description" rows="2" maxlength="5000"></textarea></label>
      <div><button type="submit">Create dataset</button></div>
    </form>
    <div class="table-wrap"><table><caption class="visually-hidden">Datasets</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Cases</th><th scope="col" class="hide-narrow">Description</th></tr></thead>
      <tbody>${page.items.map(d => `<tr><td><a href="/eval/datasets/${esc(d.id)}">${esc(d.name)}</a></td>
        <td>${d.case_count}</td><td class="hide-narrow">${esc(d.description)}</td></tr>`).join("") ||
        `<tr><td colspan="3" class="muted">No datasets yet.</td></tr>`}</tbody></table></div>`;
  document.getElementById("new-dataset").addEventListener("submit", async event => {
    event.preventDefault();
    const form = new FormData(event.target);
    try {
      const created = await api("/api/eval/datasets", { method: "POST", body: JSON.stringify({ name: form.get("name"), description: form.get("description") }) });
      history.pushState({}, "", `/eval/datasets/${created.id}`); route();
    } catch (error) { showError(error); }
  });
}

async function datasetPage(id) {
  const dataset = await api(`/api/eval/datasets/${id}`);
  const cases = await api(`/api/eval/datasets/${id}/cases?size=200`);
  document.title = `${dataset.name} · agentwatch`;
  main.innerHTML = `
    <h1>${esc(dataset.name)}</h1><p class="muted">${esc(dataset.description)}</p>
    <form class="card" id="case-form" aria-labelledby="case-form-title">
      <h2 id="case-form-title">Add a test case</h2>
      <input type="hidden" name="case_id">
      <label>Prompt <textarea name="prompt" rows="2" required></textarea></label>
      <label>Expected behavior <textarea name="expected_behavior" rows="2" required></textarea></label>
      <label>Assertions (one per line, optional) <textarea name="assertions" rows="2"></textarea></label>
      <div><button type="submit" id="save-case">Add case</button></div>
    </form>
    <div class="table-wrap"><table><caption class="visually-hidden">Test cases</caption>
      <thead><tr><th scope="col">Prompt</th><th scope="col">Expected behavior</th><th scope="col" class="hide-narrow">Assertions</th><th scope="col">Actions</th></tr></thead>
      <tbody>${cases.items.map(c => `<tr data-case="${esc(c.id)}"><td>${truncated(c.prompt)}</td><td>${truncated(c.expected_behavior)}</td>
        <td class="hide-narrow">${esc(c.assertions.join("; "))}</td>
        <td><button type="button" class="secondary" data-edit="${esc(c.id)}">Edit</button>
            <button type="button" class="danger" data-delete="${esc(c.id)}">Delete</button></td></tr>`).join("") ||
        `<tr><td colspan="4" class="muted">No cases yet.</td></tr>`}</tbody></table></div>`;
  const form = document.getElementById("case-form");
  form.addEventListener("submit", async event => {
    event.preventDefault();
    const data = new FormData(form);
    const body = JSON.stringify({ prompt: data.get("prompt"), expected_behavior: data.get("expected_behavior"),
      assertions: String(data.get("assertions") || "").split("\n").map(s => s.trim()).filter(Boolean) });
    const caseId = data.get("case_id");
    try {
      await api(`/api/eval/datasets/${id}/cases${caseId ? "/" + caseId : ""}`, { method: caseId ? "PUT" : "POST", body });
      say(caseId ? "Case updated" : "Case added"); await datasetPage(id);
    } catch (error) { showError(error); }
  });
  main.querySelectorAll("[data-edit]").forEach(button => button.addEventListener("click", () => {
    const c = cases.items.find(item => item.id === button.dataset.edit);
    form.case_id.value = c.id; form.prompt.value = c.prompt; form.expected_behavior.value = c.expected_behavior;
    form.assertions.value = c.assertions.join("\n");
    document.getElementById("save-case").textContent = "Save case"; form.prompt.focus();
  }));
  main.querySelectorAll("[data-delete]").forEach(button => button.addEventListener("click", async () => {
    if (!confirm("Delete this case?")) return;
    try { await api(`/api/eval/datasets/${id}/cases/${button.dataset.delete}`, { method: "DELETE" }); say("Case deleted"); await datasetPage(id); }
    catch (error) { showError(error); }
  }));
}

// -- runs ----------------------------------------------------------------------------
const pct = value => value == null ? "–" : `${Math.round(value * 1000) / 10}%`;

async function runsPage() {
  document.title = "Eval Runs · agentwatch";
  const [runs, agents, datasets] = await Promise.all([api("/api/eval/runs?size=100"), api("/api/eval/agents"), api("/api/eval/datasets?size=200")]);
  main.innerHTML = `
    <h1>Eval Runs</h1>
    <form class="card" id="new-run" aria-labelledby="new-run-title">
      <h2 id="new-run-title">New Evaluation</h2>
      <label>Agent <select name="agent_id" required>${agents.map(a => `<option value="${esc(a.id)}">${esc(a.name)} ${esc(a.spec.version)}</option>`).join("")}</select></label>
      <label>Dataset <select name="dataset_id" required>${datasets.items.filter(d => d.case_count > 0).map(d => `<option value="${esc(d.id)}">${esc(d.name)} (${d.case_count})</option>`).join("")}</select></label>
      <div><button type="submit">Start Evaluation</button></div>
    </form>
    <div class="table-wrap"><table><caption class="visually-hidden">Runs</caption>
      <thead><tr><th scope="col">Run</th><th scope="col">Agent</th><th scope="col">Dataset</th><th scope="col">Status</th><th scope="col">Pass rate</th></tr></thead>
      <tbody>${runs.items.map(r => `<tr><td><a href="/eval/runs/${esc(r.id)}">${esc(r.id)}</a></td><td>${esc(r.agent_name)}</td>
        <td>${esc(r.dataset_name)}</td><td><span class="badge ${esc(r.status)}">${esc(r.status)}</span></td><td>${pct(r.pass_rate)}</td></tr>`).join("") ||
        `<tr><td colspan="5" class="muted">No runs yet.</td></tr>`}</tbody></table></div>`;
  document.getElementById("new-run").addEventListener("submit", async event => {
    event.preventDefault();
    const data = new FormData(event.target);
    try {
      const run = await api("/api/eval/runs", { method: "POST", body: JSON.stringify({ agent_id: data.get("agent_id"), dataset_id: data.get("dataset_id") }) });
      history.pushState({}, "", `/eval/runs/${run.id}`); route();
    } catch (error) { showError(error); }
  });
}

// the streaming evaluators' findings on the case's trace, beside the verdict
function flags(scores) {
  const shown = Object.entries(scores || {}).filter(([name, value]) => value > 0 &&
    (name === "injection.attack_success" || name === "injection.detected" || name === "refusal.detected" || name.startsWith("tool_safety.")));
  return shown.map(([name]) => `<span class="badge ${name === "injection.attack_success" || name.startsWith("tool_safety.") ? "fail" : "error"}">${esc(name)}</span>`).join(" ") || `<span class="muted">none</span>`;
}

let refreshTimer = null;
async function runPage(id) {
  const run = await api(`/api/eval/runs/${id}`);
  document.title = `Run ${run.id} · agentwatch`;
  const done = run.completed, total = run.total || 1;
  const open = new Set([...main.querySelectorAll("details[open]")].map(d => d.dataset.key));
  main.innerHTML = `
    <h1>${esc(run.agent_name)} on ${esc(run.dataset_name)} <span class="badge ${esc(run.status)}" id="run-status">${esc(run.status)}</span></h1>
    <dl class="stats">
      <div><dt>Pass rate</dt><dd id="pass-rate">${pct(run.pass_rate ?? (run.completed ? run.passed / run.completed : null))}</dd></div>
      <div><dt>Average latency</dt><dd>${run.avg_latency_ms == null ? "–" : Math.round(run.avg_latency_ms) + " ms"}</dd></div>
      <div><dt>Total tokens</dt><dd>${run.total_tokens}</dd></div>
      <div><dt>Cases</dt><dd>${done} / ${run.total}</dd></div>
    </dl>
    <div class="progress" role="progressbar" aria-label="Cases completed" aria-valuemin="0" aria-valuemax="${run.total}" aria-valuenow="${done}" id="progress">
      <span class="passed" style="width:${100 * run.passed / total}%"></span><span class="other" style="width:${100 * (done - run.passed) / total}%"></span>
    </div>
    ${run.error ? `<p role="alert" class="badge fail">${esc(run.error)}</p>` : ""}
    <div class="table-wrap"><table id="results"><caption class="visually-hidden">Case results</caption>
      <thead><tr><th scope="col">Prompt</th><th scope="col">Verdict</th><th scope="col">Answer</th><th scope="col" class="hide-narrow">Grader reasoning</th>
        <th scope="col">Latency</th><th scope="col" class="hide-narrow">Tokens</th><th scope="col" class="hide-narrow">Evaluator flags</th><th scope="col">Trace</th></tr></thead>
      <tbody>${run.results.map(r => `<tr><td>${truncated(r.prompt, 80)}</td>
        <td><span class="badge ${esc(r.verdict)} verdict">${{ pass: "Pass", fail: "Fail", error: "Error" }[r.verdict]}</span></td>
        <td>${truncated(r.answer || r.error, 100)}</td><td class="hide-narrow">${esc(r.reasoning || r.error)}</td>
        <td>${Math.round(r.latency_ms)} ms</td><td class="hide-narrow">${r.tokens}</td>
        <td class="hide-narrow">${flags(r.scores)}</td>
        <td>${r.trace_id ? `<a href="/api/traces/${esc(r.trace_id)}">trace</a>` : ""}</td></tr>`).join("")}</tbody></table></div>`;
  main.querySelectorAll("details").forEach((d, i) => { d.dataset.key = String(i); if (open.has(String(i))) d.open = true; });
  clearTimeout(refreshTimer);
  if (run.status === "pending" || run.status === "running") {
    refreshTimer = setTimeout(() => runPage(id).catch(showError), 3000);
  } else { say(`Run ${run.status}`); }
}

// -- routing ---------------------------------------------------------------------------
async function route() {
  clearTimeout(refreshTimer);
  const path = location.pathname.replace(/\/+$/, "");
  let match;
  try {
    if ((match = path.match(/^\/eval\/datasets\/([\w-]+)$/))) await datasetPage(match[1]);
    else if ((match = path.match(/^\/eval\/runs\/([\w-]+)$/))) await runPage(match[1]);
    else if (path === "/eval/runs") await runsPage();
    else await datasetsPage();
    main.focus();
  } catch (error) { main.innerHTML = ""; showError(error); }
}
document.addEventListener("click", event => {
  const link = event.target.closest("a[href^='/eval']");
  if (link && !event.metaKey && !event.ctrlKey) { event.preventDefault(); history.pushState({}, "", link.getAttribute("href")); route(); }
});
window.addEventListener("popstate", route);
route();
