// The fields of each edit the entity panel offers and the request each makes (docs/curation.md): rename, relabel,
// add or remove an alias, merge into another entity (found by name through /v1/entities), split off a namesake,
// delete. A form's request() throws an Error with what is missing; the API checks the rest.

import { api } from "./api.js";
import { clear, el } from "./dom.js";

let fieldCount = 0;

function fieldId() {
  fieldCount += 1;
  return `edit-field-${fieldCount}`;
}

// a labelled control: { control, row }
function labelled(text, control) {
  control.id = fieldId();
  return { control, row: el("div", { class: "field" }, el("label", { for: control.id }, text), control) };
}

function textField(text, attrs = {}) {
  return labelled(text, el("input", { type: "text", autocomplete: "off", ...attrs }));
}

function required(value, what) {
  const trimmed = value.trim();
  if (!trimmed) throw new Error(`Enter ${what}.`);
  return trimmed;
}

function renameForm(entity) {
  const name = textField("New name", { name: "name", value: entity.name, maxlength: 300 });
  return {
    title: `Rename ${entity.name}`, fields: [name.row],
    request: () => ({ kind: "rename", key: entity.key, name: required(name.control.value, "the new name") }),
  };
}

function relabelForm(entity, { labels }) {
  const choices = labels.map((label) => el("option", { value: label, selected: label === entity.label }, label));
  const label = labelled("New label", el("select", { name: "label" }, choices));
  return {
    title: `Change the label of ${entity.name}`, fields: [label.row],
    request: () => ({ kind: "relabel", key: entity.key, label: label.control.value }),
  };
}

function aliasForm(entity, { aliases }) {
  const listId = fieldId();
  const alias = textField("Alias", { name: "alias", list: listId, maxlength: 300 });
  const action = labelled("Action", el("select", { name: "action" },
    el("option", { value: "add" }, "Add this alias"), el("option", { value: "remove" }, "Remove this alias")));
  const known = aliases.length ? `Known aliases: ${aliases.join(", ")}` : "No aliases yet.";
  return {
    title: `Aliases of ${entity.name}`,
    fields: [el("p", { class: "muted" }, known), el("datalist", { id: listId }, aliases.map((a) => el("option", { value: a }))),
      alias.row, action.row],
    request: () => ({ kind: "alias", key: entity.key, alias: required(alias.control.value, "the alias"),
      remove: action.control.value === "remove" }),
  };
}

function mergeForm(entity) {
  const query = textField("Find the entity to merge into", { name: "q", value: entity.name, maxlength: 200 });
  const results = el("fieldset", { class: "choices" }, el("legend", {}, "Merge into"),
    el("p", { class: "muted" }, "Find an entity by name, then choose it."));
  const find = async () => {
    const q = query.control.value.trim();
    if (!q) return;
    const found = await api("/v1/entities", { query: { q, limit: 10 } });
    clear(results).append(el("legend", {}, "Merge into"));
    if (!found.entities.length) results.append(el("p", { class: "muted" }, `No entity matches ${q}.`));
    for (const hit of found.entities) {
      const id = fieldId();
      results.append(el("div", { class: "choice" },
        el("input", { type: "radio", name: "survivor", id, value: hit.key }),
        el("label", { for: id }, `${hit.name} (${hit.label})`, el("span", { class: "muted" }, ` ${hit.key} \u00b7 ${hit.mentions} mentions`))));
    }
  };
  const findButton = el("button", { type: "button", class: "secondary small", onclick: () => find() }, "Find");
  query.control.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault(); // Enter here searches instead of previewing
    find();
  });
  return {
    title: `Merge ${entity.name} into another entity`,
    fields: [el("p", { class: "muted" }, `${entity.name} goes; its names become the chosen entity's aliases.`),
      el("div", { class: "search-row" }, query.row, findButton), results],
    request: () => {
      const chosen = results.querySelector("input[name='survivor']:checked");
      if (!chosen) throw new Error("Find and choose the entity to merge into.");
      return { kind: "merge", survivor: chosen.value, merged: entity.key };
    },
    ready: find,
  };
}

// the documents (when the answer's passages name them) and other chunks behind the entity's facts
function splitSources(entity, hood, chunkInfo) {
  const documents = new Map();
  const chunks = new Map();
  for (const fact of (hood.hops[0] || { facts: [] }).facts) {
    if (fact.subject_key !== entity.key && fact.object_key !== entity.key) continue;
    fact.chunk_ids.forEach((chunkId, i) => {
      const known = chunkInfo(chunkId);
      if (known && known.document_id) documents.set(known.document_id, known.title || known.document_id);
      else if (!chunks.has(chunkId)) chunks.set(chunkId, fact.evidence[i] || chunkId);
    });
  }
  return [...[...documents].map(([value, text]) => ({ kind: "documents", value, text })),
    ...[...chunks].map(([value, text]) => ({ kind: "chunks", value, text }))];
}

function splitForm(entity, { hood, chunkInfo }) {
  const name = textField("The new entity's name", { name: "name", maxlength: 300, placeholder: `${entity.name} (2)` });
  const sources = splitSources(entity, hood, chunkInfo);
  const choices = el("fieldset", { class: "choices" }, el("legend", {}, "Documents and passages that belong to it"));
  if (!sources.length) choices.append(el("p", { class: "muted" }, "No document of this entity is known here."));
  for (const source of sources) {
    const id = fieldId();
    const what = source.kind === "documents" ? "document" : "passage";
    choices.append(el("div", { class: "choice" },
      el("input", { type: "checkbox", id, value: source.value, dataset: { kind: source.kind } }),
      el("label", { for: id }, `${what}: ${source.text}`)));
  }
  return {
    title: `Split a namesake off ${entity.name}`, fields: [name.row, choices],
    request: () => {
      const picked = { documents: [], chunks: [] };
      for (const box of choices.querySelectorAll("input:checked")) picked[box.dataset.kind].push(box.value);
      if (!picked.documents.length && !picked.chunks.length) throw new Error("Choose the documents or passages of the namesake.");
      return { kind: "split", key: entity.key, name: required(name.control.value, "the new entity's name"), ...picked };
    },
  };
}

function deleteForm(entity) {
  return {
    title: `Delete ${entity.name}`,
    fields: [el("p", {}, `${entity.name} goes with its mentions and relationships; later ingests do not bring it back.`)],
    request: () => ({ kind: "delete-entity", key: entity.key }),
  };
}

// the panel's actions, in order: [kind, button text, form builder(entity, context)]
export const EDIT_ACTIONS = [
  ["rename", "Rename", renameForm],
  ["relabel", "Relabel", relabelForm],
  ["alias", "Aliases", aliasForm],
  ["merge", "Merge", mergeForm],
  ["split", "Split", splitForm],
  ["delete-entity", "Delete", deleteForm],
];

// one line for an audit record's request: what was asked
export function describeRequest(edit) {
  switch (edit.kind) {
    case "rename": return `${edit.key} renamed to ${edit.name}`;
    case "relabel": return `${edit.key} relabelled ${edit.label}`;
    case "alias": return `${edit.remove ? "alias removed" : "alias added"}: ${edit.alias}`;
    case "merge": return `${edit.merged} merged into ${edit.survivor}`;
    case "split": return `${edit.name} split off ${edit.key}`;
    case "delete-entity": return `${edit.key} deleted`;
    default: return edit.kind;
  }
}
