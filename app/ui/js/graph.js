// The graph view: the answer's facts as a Cytoscape.js graph; a node click expands its neighbourhood through
// /v1/graph/neighborhood, an edge click shows its evidence sentences and chunks, and the path from the question's
// entities to the answer is highlighted. `onEntity(entity)`, when set, hears of each entity expanded (its key, name and
// label): the entity panel (curate.js) opens on it.

import { api, ApiError } from "./api.js";
import { chunkAnchor, clear, el, sourceLine } from "./dom.js";

const PALETTE = ["#0b5cad", "#7a3fc2", "#17743a", "#a64200", "#a2296d", "#4a5561", "#00737a", "#8a6100"];
const TIER_CLASS = { KEY: "key", BRIDGE: "bridge", DIRECT: "direct" };

export function nodeId(name, label) {
  return `${label}:${name}`;
}

function edgeId(fact) {
  return `${nodeId(fact.subject, fact.subject_label)}|${fact.relationship}|${nodeId(fact.object, fact.object_label)}`;
}

// a stable colour per label, whatever the schema's labels are
export function labelColour(label) {
  let hash = 0;
  for (const ch of label) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return PALETTE[hash % PALETTE.length];
}

const STYLE = [
  {
    selector: "node",
    style: {
      label: "data(caption)", "text-wrap": "wrap", "text-max-width": "140px", "font-size": 13,
      "text-valign": "bottom", "text-margin-y": 4, color: "#1f2328", "background-color": "data(colour)",
      width: 22, height: 22, "text-background-color": "#ffffff", "text-background-opacity": 0.85,
      "text-background-padding": 2,
    },
  },
  { selector: "node.question", style: { "border-width": 4, "border-color": "#1f2328", width: 28, height: 28 } },
  { selector: "node.answer", style: { "border-width": 5, "border-color": "#d4a72c", width: 30, height: 30 } },
  { selector: "node:selected", style: { "overlay-color": "#0969da", "overlay-opacity": 0.25 } },
  {
    selector: "edge",
    style: {
      width: 1.5, "line-color": "#6e7781", "target-arrow-color": "#6e7781", "target-arrow-shape": "triangle",
      "curve-style": "bezier", label: "data(relationship)", "font-size": 10, color: "#1f2328",
      "text-rotation": "autorotate", "text-background-color": "#ffffff", "text-background-opacity": 0.85,
      "text-background-padding": 1,
    },
  },
  { selector: "edge.key", style: { width: 3, "line-color": "#cf222e", "target-arrow-color": "#cf222e" } },
  {
    selector: "edge.bridge",
    style: { width: 3, "line-style": "dashed", "line-color": "#bc4c00", "target-arrow-color": "#bc4c00" },
  },
  { selector: "edge.neighbour", style: { "line-style": "dotted", "line-color": "#8c959f" } },
  {
    selector: "edge.on-path",
    style: { width: 6, "line-color": "#0969da", "target-arrow-color": "#0969da", "z-index": 10 },
  },
  { selector: "edge:selected", style: { "overlay-color": "#0969da", "overlay-opacity": 0.3 } },
];

export class FactGraph {
  constructor({ container, inspector, pathLine }) {
    this.container = container;
    this.inspector = inspector;
    this.pathLine = pathLine;
    this.cy = null;
    this.chunks = new Map(); // chunk_id -> chunk or excerpt of the current answer (title, outlet, date)
    this.onEntity = null;
  }

  show(result) {
    this.chunks = new Map();
    for (const item of [...(result.excerpts || []), ...(result.chunks || [])]) this.chunks.set(item.chunk_id, item);
    const questionIds = new Set((result.entities || []).map((e) => nodeId(e.node, e.label)));
    if (this.cy) this.cy.destroy();
    this.cy = cytoscape({
      container: this.container, style: STYLE, wheelSensitivity: 0.3, minZoom: 0.2, maxZoom: 3,
    });
    for (const entity of result.entities || []) this.addNode(entity.node, entity.label, "question");
    for (const fact of result.facts || []) this.addFact(fact, TIER_CLASS[fact.tier] || "direct");
    for (const id of questionIds) this.cy.getElementById(id).addClass("question");
    this.markAnswer(result, questionIds);
    this.layout();
    this.cy.on("tap", "node", (event) => this.expand(event.target));
    this.cy.on("tap", "edge", (event) => this.inspect(event.target));
    clear(this.inspector);
    if (this.cy.elements().empty()) {
      this.inspector.append(el("p", { class: "muted" }, "No graph facts: this mode or question matched no entity."));
    }
  }

  addNode(name, label, cls) {
    const id = nodeId(name, label);
    const existing = this.cy.getElementById(id);
    if (existing.nonempty()) return existing;
    return this.cy.add({
      group: "nodes",
      data: { id, name, label, caption: `${name}\n${label}`, colour: labelColour(label) },
      classes: cls === "question" ? "question" : "",
    });
  }

  addFact(fact, cls) {
    this.addNode(fact.subject, fact.subject_label);
    this.addNode(fact.object, fact.object_label);
    const id = edgeId(fact);
    if (this.cy.getElementById(id).nonempty()) return null;
    return this.cy.add({
      group: "edges",
      data: {
        id, source: nodeId(fact.subject, fact.subject_label), target: nodeId(fact.object, fact.object_label),
        relationship: fact.relationship, tier: fact.tier || "neighbourhood", chunkIds: fact.chunk_ids || [],
        evidence: fact.evidence || [],
      },
      classes: cls,
    });
  }

  // the answer node: the longest node name the answer text contains, other than a question entity
  markAnswer(result, questionIds) {
    clear(this.pathLine);
    if (!result.answer || result.abstained) return;
    const text = result.answer.toLowerCase();
    const candidates = this.cy.nodes().filter((n) => !questionIds.has(n.id()) && text.includes(n.data("name").toLowerCase()));
    if (candidates.empty()) return;
    const answer = candidates.sort((a, b) => b.data("name").length - a.data("name").length)[0];
    answer.addClass("answer");
    this.highlightPath(answer, questionIds);
  }

  highlightPath(answer, questionIds) {
    const steps = [];
    for (const id of questionIds) {
      const root = this.cy.getElementById(id);
      if (root.empty()) continue;
      const search = this.cy.elements().aStar({ root, goal: answer, directed: false });
      if (!search.found) continue;
      search.path.edges().addClass("on-path");
      steps.push(this.describePath(search.path));
    }
    if (steps.length) {
      this.pathLine.append(el("strong", {}, "Path: "), steps.join("; "));
    }
  }

  describePath(path) {
    const nodes = path.nodes();
    const parts = [nodes[0].data("name")];
    path.edges().forEach((edge, i) => {
      const forward = edge.source().id() === nodes[i].id();
      const rel = edge.data("relationship");
      parts.push(forward ? ` \u2014${rel}\u2192 ` : ` \u2190${rel}\u2014 `, nodes[i + 1].data("name"));
    });
    return parts.join("");
  }

  layout(fit = true) {
    this.cy.layout({ name: "circle", animate: false, fit: false }).run();
    this.cy.layout({
      name: "cose", animate: false, randomize: false, fit, padding: 30, nodeRepulsion: () => 400000,
      idealEdgeLength: () => 110, edgeElasticity: () => 100, gravity: 0.6, componentSpacing: 60, numIter: 2000,
    }).run();
  }

  fit() {
    if (this.cy) this.cy.fit(undefined, 30);
  }

  selectEdgeById(id) {
    const edge = this.cy && this.cy.getElementById(id);
    if (!edge || edge.empty()) return;
    this.cy.elements().unselect();
    edge.select();
    this.inspect(edge);
  }

  async expandByName(name, label) {
    const node = this.cy && this.cy.getElementById(nodeId(name, label));
    if (node && node.nonempty()) await this.expand(node);
  }

  // draw an entity by key (after an edit renamed or merged it, say) with its neighbourhood, and expand it
  async showEntity(key) {
    const { entity } = await api("/v1/graph/neighborhood", { query: { entity: key, hops: 1, limit: 1 } });
    if (!this.cy) return;
    const node = this.addNode(entity.name, entity.label);
    node.data("key", entity.key);
    await this.expand(node);
  }

  async expand(node) {
    const name = node.data("name");
    this.inspector.replaceChildren(el("p", { class: "muted" }, `Loading the neighbourhood of ${name}\u2026`));
    try {
      const hood = await this.neighbourhood(node.data("key") || name, node.data("label"));
      const added = [];
      const centre = node.position();
      for (const hop of hood.hops) {
        for (const fact of hop.facts) {
          const before = this.cy.nodes().length;
          const edge = this.addFact(fact, "neighbour");
          if (edge) added.push(edge);
          if (this.cy.nodes().length > before) this.placeNear(centre, this.cy.nodes().length - before);
        }
      }
      node.data("expanded", true);
      this.layout();
      this.inspector.replaceChildren(
        el("p", {}, `${name} (${hood.entity.label}): ${added.length} new relationship(s) from its neighbourhood.`),
      );
      if (this.onEntity) this.onEntity(hood.entity, hood);
    } catch (error) {
      this.inspector.replaceChildren(el("p", { class: "error", role: "alert" }, error.message));
    }
  }

  placeNear(centre, count) {
    const fresh = this.cy.nodes().slice(-count);
    fresh.forEach((n, i) => {
      const angle = (2 * Math.PI * i) / Math.max(count, 1);
      n.position({ x: centre.x + 80 * Math.cos(angle), y: centre.y + 80 * Math.sin(angle) });
    });
  }

  // a display name can be ambiguous (409): take the candidate with this label and name
  async neighbourhood(name, label) {
    try {
      return await api("/v1/graph/neighborhood", { query: { entity: name, hops: 1, limit: 25 } });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 409) throw error;
      const candidates = await api("/v1/entities", { query: { q: name, label, limit: 5 } });
      const match = candidates.entities.find((c) => c.name === name) || candidates.entities[0];
      if (!match) throw error;
      return api("/v1/graph/neighborhood", { query: { entity: match.key, hops: 1, limit: 25 } });
    }
  }

  inspect(edge) {
    const data = edge.data();
    const items = data.chunkIds.map((chunkId, i) => {
      const chunk = this.chunks.get(chunkId);
      const where = chunk
        ? el("a", { href: `#${chunkAnchor("passage", chunkId)}` }, chunk.title)
        : el("code", {}, chunkId);
      return el(
        "li", {},
        el("blockquote", {}, data.evidence[i] || "(no evidence sentence stored)"),
        el("p", { class: "muted" }, where, chunk && sourceLine(chunk) ? ` \u2014 ${sourceLine(chunk)}` : ""),
      );
    });
    this.inspector.replaceChildren(
      el("h4", {}, `${edge.source().data("name")} \u2014${data.relationship}\u2192 ${edge.target().data("name")}`),
      el("p", { class: "muted" }, `tier ${data.tier}`),
      items.length ? el("ul", { class: "evidence" }, items) : el("p", {}, "No chunk recorded for this fact."),
    );
  }
}
