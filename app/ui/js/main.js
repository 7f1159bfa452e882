// Start-up: the server's UI config, the API key dialog, the views and the #hash router.

import {
  api, chooseWorkspace, config, currentWorkspace, loadConfig, onKeyNeeded, storeKey, storedKey,
} from "./api.js";
import { AskView } from "./ask.js";
import { CompareView } from "./compare.js";
import { fillSelect } from "./dom.js";
import { DocumentsView } from "./documents.js";

const VIEWS = ["ask", "compare", "documents"];

function askForKey(reason) {
  const dialog = document.getElementById("api-key-dialog");
  const input = document.getElementById("api-key-input");
  document.getElementById("api-key-reason").textContent =
    `${reason} It is sent as the X-API-Key header and kept for this browser tab only.`;
  input.value = storedKey() || "";
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "save" ? input.value.trim() || null : null),
      { once: true });
    dialog.showModal();
    input.focus();
  });
}

function setUpKeyDialog() {
  onKeyNeeded(askForKey);
  document.getElementById("api-key-open").addEventListener("click", async () => {
    const key = await askForKey("Enter the server's API key.");
    if (key) storeKey(key);
  });
  document.getElementById("api-key-clear").addEventListener("click", () => {
    storeKey(null);
    document.getElementById("api-key-dialog").close("clear");
  });
}

function showView(name, views) {
  for (const view of VIEWS) {
    document.getElementById(`view-${view}`).hidden = view !== name;
    const link = document.querySelector(`[data-view-link="${view}"]`);
    if (view === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (name === "documents") views.documents.refresh();
  if (name === "ask" && views.ask.graph.cy) views.ask.graph.cy.resize();
}

function route(views) {
  const name = window.location.hash.slice(1) || "ask";
  if (VIEWS.includes(name)) showView(name, views);
}

// in-page links to passages move focus there without touching the #view route
function followAnchors(event) {
  const link = event.target.closest("a[href^='#']");
  if (!link || link.hasAttribute("data-view-link")) return;
  const target = document.getElementById(link.getAttribute("href").slice(1));
  if (!target) return;
  event.preventDefault();
  target.scrollIntoView({ block: "center" });
  target.focus();
  target.classList.add("flash");
  setTimeout(() => target.classList.remove("flash"), 1500);
}

async function loadChoices() {
  const { modes, answerers } = await api("/v1/modes");
  fillSelect(document.getElementById("ask-mode"), modes, "joint");
  fillSelect(document.getElementById("compare-mode-a"), modes, "graph");
  fillSelect(document.getElementById("compare-mode-b"), modes, modes.includes("vector") ? "vector" : modes[0]);
  for (const id of ["ask-answerer", "compare-answerer"]) fillSelect(document.getElementById(id), answerers, "auto");
}

async function loadStats() {
  const stats = await api("/v1/graph/stats");
  const rels = Object.values(stats.relationship_types || {}).reduce((a, b) => a + b, 0);
  const docs = stats.labels.Document ?? 0;
  document.getElementById("graph-stats").textContent = `${docs} documents \u00b7 ${rels} relationships`;
}

// the workspaces this caller holds a role in; choosing another reloads the page in it (this tab only)
async function loadWorkspaces() {
  const select = document.getElementById("workspace-select");
  const names = (await api("/v1/workspaces")).map((w) => w.name);
  let current = currentWorkspace();
  if (!names.includes(current) && current !== config().workspace) {
    chooseWorkspace(null); // this tab's choice is gone (deleted, or no role there any more): the server's
    current = currentWorkspace();
  }
  if (!names.includes(current)) names.push(current);
  fillSelect(select, names.sort(), current);
  document.getElementById("workspace-picker").hidden = names.length < 2;
  select.addEventListener("change", () => {
    chooseWorkspace(select.value);
    window.location.reload();
  });
}

async function start() {
  setUpKeyDialog();
  await loadConfig();
  const views = { ask: new AskView(), compare: new CompareView(), documents: new DocumentsView() };
  window.graphwire = { views }; // for the browser tests and the curious: views.ask.graph.cy is the graph
  document.addEventListener("click", followAnchors);
  window.addEventListener("hashchange", () => route(views));
  await loadWorkspaces().catch(() => {}); // the picker stays hidden: the page works in its workspace
  await loadChoices();
  route(views);
  loadStats().catch((error) => {
    document.getElementById("graph-stats").textContent = `graph: ${error.message}`;
  });
  document.body.dataset.ready = "true";
}

start().catch((error) => {
  const status = document.getElementById("ask-status");
  status.textContent = `The page could not start: ${error.message}`;
  status.classList.add("error");
  status.setAttribute("role", "alert");
});
