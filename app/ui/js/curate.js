// The entity panel of the graph view: fix the graph by hand through /v1/graph/edits (docs/curation.md). Each edit
// (edit_forms.js) and each undo is previewed first (dry_run=true: exactly what would change), then applied under a
// name remembered in localStorage; the entity's audit history (GET /v1/graph/edits?entity=KEY) lists every edit
// with an Undo. After an edit or undo, onChanged(key) redraws the graph: key is where the entity is now, or null.

import { api } from "./api.js";
import { clear, el, setStatus } from "./dom.js";
import { describeRequest, EDIT_ACTIONS } from "./edit_forms.js";

const EDITOR_STORAGE = "graphwire.editor";
const NOT_ENTITY_LABELS = new Set(["Entity", "Document", "Chunk", "Edit", "CurationRule"]);
const CHANGE_PARTS = [
  ["entities_removed", "entities removed"],
  ["entities_added", "entities added"],
  ["entities_changed", "entities changed"],
  ["relationships_removed", "relationships removed"],
  ["relationships_added", "relationships added"],
  ["relationships_changed", "relationships changed"],
];

// what an edit changes (or would change): each non-empty part with its count and its list
export function renderChange(change) {
  const parts = CHANGE_PARTS.filter(([part]) => change[part].length);
  if (!parts.length) return [el("p", {}, "Nothing changes.")];
  return parts.map(([part, words]) => el("section", { class: "change-part", dataset: { part } },
    el("p", {}, el("strong", {}, `${change.counts[part] ?? change[part].length} ${words}`)),
    el("ul", { class: "change-list" }, change[part].map((item) => el("li", {}, el("code", {}, item))))));
}

// where the entity is after a change: the same key, the merge's survivor, or the key that replaced it
function keyAfter(key, change, edit) {
  if (!change.entities_removed.includes(key)) return key;
  if (edit && edit.kind === "merge") return edit.survivor;
  return change.entities_added.length === 1 ? change.entities_added[0] : null;
}

export class EntityPanel {
  constructor({ container, onChanged, chunkInfo }) {
    this.container = container;
    this.onChanged = onChanged;
    this.chunkInfo = chunkInfo; // chunk id -> the answer's passage (title, document_id), or undefined
    this.entity = null;
    this.action = null; // { title, fields, send(dryRun, meta), edit? } of the open form
    this.previewed = null; // the request the preview showed, which Apply sends
    this.labels = null;
  }

  async open(entity, hood) {
    this.entity = entity;
    this.hood = hood;
    this.close();
    this.container.hidden = false;
    try {
      const [hit] = await Promise.all([this.lookup(entity), this.loadLabels()]);
      if (this.entity !== entity) return; // another entity was opened meanwhile
      this.aliases = hit ? hit.aliases : [];
      this.render(hit);
      await this.loadHistory();
    } catch (error) {
      clear(this.container).append(el("p", { class: "error", role: "alert" }, error.message));
    }
  }

  async lookup(entity) {
    const found = await api("/v1/entities", { query: { q: entity.name, label: entity.label, limit: 10 } });
    return found.entities.find((hit) => hit.key === entity.key);
  }

  async loadLabels() {
    if (this.labels) return;
    const stats = await api("/v1/graph/stats");
    this.labels = Object.keys(stats.labels).filter((label) => !NOT_ENTITY_LABELS.has(label)).sort();
  }

  render(hit) {
    const entity = this.entity;
    const facts = hit ? ` \u00b7 ${hit.mentions} mentions \u00b7 ${hit.degree} relationships` : "";
    const aliases = this.aliases.length ? ` \u00b7 also ${this.aliases.join(", ")}` : "";
    this.form = el("form", { class: "edit-form", hidden: true, novalidate: true, "aria-labelledby": "edit-form-heading" });
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.preview();
    });
    this.history = el("ol", { id: "entity-history", class: "edit-history" });
    this.status = el("p", { id: "entity-status", class: "status", role: "status", "aria-live": "polite" });
    clear(this.container).append(
      el("h4", { id: "entity-heading" }, `${entity.name} `, el("span", { class: "muted" }, `(${entity.label})`)),
      el("p", { class: "muted" }, el("code", {}, entity.key), facts, aliases),
      el("div", { class: "entity-actions", role: "group", "aria-label": `Edit ${entity.name}` },
        EDIT_ACTIONS.map(([kind, text, build]) => el("button", {
          type: "button", class: kind === "delete-entity" ? "secondary small danger" : "secondary small",
          dataset: { edit: kind }, onclick: () => this.openEdit(build),
        }, text))),
      this.status, this.form,
      el("h5", {}, "History"), this.history,
    );
  }

  openEdit(build) {
    const context = { labels: this.labels || [], aliases: this.aliases, hood: this.hood, chunkInfo: this.chunkInfo };
    const form = build(this.entity, context);
    this.show({
      title: form.title, fields: form.fields,
      request: () => form.request(),
      send: (edit, meta, dryRun) => api("/v1/graph/edits", {
        method: "POST", query: { dry_run: dryRun || undefined }, body: { edit, ...meta } }),
    });
    if (form.ready) form.ready().catch((error) => this.fail(error));
  }

  openUndo(record) {
    this.show({
      title: `Undo ${record.kind} of ${record.at}`,
      fields: [el("p", {}, `Writes back the state before ${describe(record)}.`)],
      request: () => ({ kind: "undo", undoes: record.id }),
      send: (_edit, meta, dryRun) => api(`/v1/graph/edits/${encodeURIComponent(record.id)}/undo`, {
        method: "POST", query: { dry_run: dryRun || undefined }, body: meta }),
    });
  }

  // the form of one action: its fields, who and why, Preview and Apply (enabled by a preview of these fields)
  show(action) {
    this.action = action;
    this.previewed = null;
    setStatus(this.status, "");
    const by = el("input", { id: "edit-by", name: "by", type: "text", "aria-required": "true", maxlength: 300,
      autocomplete: "name", value: localStorage.getItem(EDITOR_STORAGE) || "", dataset: { meta: "true" } });
    const reason = el("input", { id: "edit-reason", name: "reason", type: "text", maxlength: 2000,
      dataset: { meta: "true" } });
    this.applyButton = el("button", { type: "button", id: "edit-apply", disabled: true, onclick: () => this.apply() },
      "Apply");
    this.previewBox = el("div", { id: "edit-preview", class: "edit-preview", "aria-live": "polite" });
    clear(this.form).append(
      el("h5", { id: "edit-form-heading" }, action.title), ...action.fields,
      el("div", { class: "form-row" },
        el("label", { for: "edit-by" }, "By (your name)", by),
        el("label", { for: "edit-reason" }, "Reason (optional)", reason)),
      el("div", { class: "form-row" },
        el("button", { type: "submit", id: "edit-preview-button", class: "secondary" }, "Preview"), this.applyButton,
        el("button", { type: "button", class: "secondary", onclick: () => this.close() }, "Cancel")),
      this.previewBox,
    );
    this.form.oninput = (event) => {
      if (!event.target.dataset.meta) this.invalidate(); // who and why do not change what the edit does
    };
    this.form.onchange = this.form.oninput;
    this.form.hidden = false;
    (this.form.querySelector(".field input, .field select, fieldset input") || by).focus();
  }

  invalidate() {
    this.previewed = null;
    if (this.applyButton) this.applyButton.disabled = true;
  }

  close() {
    this.action = null;
    this.invalidate();
    if (this.form) this.form.hidden = true;
  }

  meta() {
    const by = this.form.querySelector("#edit-by").value.trim();
    const reason = this.form.querySelector("#edit-reason").value.trim();
    return { ...(by ? { by } : {}), reason };
  }

  async preview() {
    const action = this.action;
    this.invalidate();
    clear(this.previewBox);
    try {
      const edit = action.request();
      const result = await action.send(edit, this.meta(), true);
      if (this.action !== action) return;
      this.previewed = edit;
      this.previewBox.append(el("p", {}, el("strong", {}, "Preview: "), "applying would change this."),
        ...renderChange(result.change));
      this.applyButton.disabled = false;
      setStatus(this.status, "Previewed: check the changes, then Apply.");
    } catch (error) {
      this.fail(error);
    }
  }

  async apply() {
    const action = this.action;
    const edit = this.previewed;
    if (!action || !edit) return;
    const meta = this.meta();
    if (!meta.by) {
      this.fail(new Error("Enter your name in By: every applied edit records who made it."));
      this.form.querySelector("#edit-by").focus();
      return;
    }
    this.applyButton.disabled = true;
    try {
      const result = await action.send(edit, meta, false);
      localStorage.setItem(EDITOR_STORAGE, meta.by);
      const key = keyAfter(this.entity.key, result.change, edit);
      this.close();
      this.notice = `Applied: ${describe(result.record)}.`; // shown once the panel has its history again
      setStatus(this.status, this.notice);
      await this.onChanged(key); // the graph is drawn again and, where the entity still is, the panel reopens there
      if (!key) await this.loadHistory();
    } catch (error) {
      this.applyButton.disabled = false;
      this.fail(error);
    }
  }

  fail(error) {
    setStatus(this.status, error.message, true);
  }

  async loadHistory() {
    const records = await api("/v1/graph/edits", { query: { entity: this.entity.key, limit: 50 } });
    clear(this.history);
    if (this.notice) {
      setStatus(this.status, this.notice);
      this.notice = null;
    }
    if (!records.length) this.history.append(el("li", { class: "muted" }, "No edits yet."));
    for (const record of records) {
      const done = record.undone_by ? el("span", { class: "badge" }, `undone by ${record.undone_by}`) : null;
      const undo = record.undone_by ? null : el("button", {
        type: "button", class: "secondary small", "aria-label": `Undo: ${describe(record)}`,
        onclick: () => this.openUndo(record),
      }, "Undo");
      this.history.append(el("li", { class: "edit-record", dataset: { edit: record.id } },
        el("p", {}, el("strong", {}, describe(record)), " ", done, " ", undo),
        el("p", { class: "muted" }, `${record.at} by ${record.by}${record.reason ? `: ${record.reason}` : ""}`)));
    }
  }
}

function describe(record) {
  if (record.request && record.request.edit) return describeRequest(record.request.edit);
  return record.undoes ? `undo of ${record.undoes}` : record.kind;
}
