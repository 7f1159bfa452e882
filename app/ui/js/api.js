// The one way the page talks to the API: JSON in and out, the API key and the chosen workspace from sessionStorage,
// errors as ApiError.

const KEY_STORAGE = "graphwire.apiKey";
const WORKSPACE_STORAGE = "graphwire.workspace";
const WORKSPACE_HEADER = "X-Graphwire-Workspace";
let settings = { api_key_required: false, workspace: "default" };
let keyPrompt = null; // set by main.js: async (reason) => key or null

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export function storedKey() {
  return sessionStorage.getItem(KEY_STORAGE);
}

export function storeKey(key) {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

// the workspace every request names (this tab's choice, else the server's)
export function currentWorkspace() {
  return sessionStorage.getItem(WORKSPACE_STORAGE) || settings.workspace;
}

// the server's UI settings (config.json), once loaded
export function config() {
  return settings;
}

export function chooseWorkspace(name) {
  if (name && name !== settings.workspace) sessionStorage.setItem(WORKSPACE_STORAGE, name);
  else sessionStorage.removeItem(WORKSPACE_STORAGE);
}

export function onKeyNeeded(prompt) {
  keyPrompt = prompt;
}

export async function loadConfig() {
  const response = await fetch("config.json", { headers: { Accept: "application/json" } });
  settings = await response.json();
  return settings;
}

let pendingKey = null; // one dialog at a time: parallel requests refused together wait for the same answer

function ensureKey(reason) {
  if (!keyPrompt) return Promise.resolve(null);
  if (!pendingKey) {
    pendingKey = keyPrompt(reason)
      .then((key) => {
        storeKey(key);
        return key;
      })
      .finally(() => {
        pendingKey = null;
      });
  }
  return pendingKey;
}

async function errorOf(response) {
  let code = "error";
  let message = `HTTP ${response.status}`;
  try {
    const body = await response.json();
    if (body && body.error) {
      code = body.error.code || code;
      message = body.error.message || message;
    }
  } catch {
    // not JSON: keep the status line
  }
  return new ApiError(response.status, code, message);
}

// fetch a /v1 path; body: an object (sent as JSON) or FormData; retries once after asking for the key on 401
async function send(path, { method = "GET", body, query, accept = "application/json" } = {}) {
  if (settings.api_key_required && !storedKey()) await ensureKey("This server asks for an API key.");
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(name, value);
  }
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const headers = { Accept: accept };
    const key = storedKey();
    if (key) headers["X-API-Key"] = key;
    headers[WORKSPACE_HEADER] = currentWorkspace();
    let payload = body;
    if (body !== undefined && !(body instanceof FormData)) {
      headers["Content-Type"] = "application/json";
      payload = JSON.stringify(body);
    }
    const response = await fetch(url, { method, headers, body: payload });
    if (response.ok) return response;
    const error = await errorOf(response);
    if (response.status === 401 && attempt === 0 && keyPrompt) {
      const renewed = await ensureKey(`The server refused the key: ${error.message}.`);
      if (renewed) continue;
    }
    throw error;
  }
  throw new ApiError(401, "unauthorized", "no API key given");
}

export async function api(path, options = {}) {
  return (await send(path, options)).json();
}

// a Server-Sent Events response (POST /v1/query with stream: true): onEvent(name, data) for each event, in order
export async function apiStream(path, options, onEvent) {
  const response = await send(path, { ...options, accept: "text/event-stream" });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    let end;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const name = (block.match(/^event: (.*)$/m) || [])[1] || "message";
      const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
      if (data) onEvent(name, JSON.parse(data));
    }
  }
}
