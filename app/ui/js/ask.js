// The ask view: a question in one mode, its answer, citations, timings, LLM usage, facts graph and passages.

import { api, ApiError, apiStream } from "./api.js";
import { EntityPanel } from "./curate.js";
import { chunkAnchor, clear, el, formatMs, rows, setStatus, sourceLine } from "./dom.js";
import { FactGraph, nodeId } from "./graph.js";

// How the answer was made (`answer_kind` of /v1/query), in words
const KIND_WORDS = {
  facts: "composed from graph facts",
  entity: "entity named by the passages",
  judgement: "judged from a sentence on each side",
  quote: "quoted from the passages",
  generated: "written by the LLM",
};

export function passagesOf(result) {
  // the ranked chunks first, then excerpts of fact chunks the ranking did not return
  const seen = new Set();
  const passages = [];
  for (const chunk of result.chunks || []) {
    seen.add(chunk.chunk_id);
    passages.push({ ...chunk, kind: "ranked" });
  }
  for (const excerpt of result.excerpts || []) {
    if (seen.has(excerpt.chunk_id)) continue;
    seen.add(excerpt.chunk_id);
    passages.push({ ...excerpt, kind: "excerpt" });
  }
  return passages;
}

export function renderPassage(passage, { anchorPrefix, cited, also }) {
  const badges = [];
  if (cited) badges.push(el("span", { class: "badge cited" }, "cited"));
  if (passage.kind === "excerpt") badges.push(el("span", { class: "badge" }, "fact excerpt"));
  if (also) badges.push(el("span", { class: "badge shared" }, also));
  const score = passage.score !== undefined ? ` \u00b7 score ${Number(passage.score).toFixed(3)}` : "";
  return el(
    "li", { id: chunkAnchor(anchorPrefix, passage.chunk_id), class: "passage", tabindex: "-1" },
    el("p", { class: "passage-title" }, el("strong", {}, passage.title), " ", badges),
    el("p", { class: "muted" }, `${sourceLine(passage)}${score}`),
    passage.text ? el("p", { class: "passage-text" }, passage.text) : null,
  );
}

export function renderCitations(list, citations, anchorPrefix) {
  clear(list);
  if (!citations.length) list.append(el("li", { class: "muted" }, "none"));
  for (const c of citations) {
    list.append(
      el("li", {}, el("a", { href: `#${chunkAnchor(anchorPrefix, c.chunk_id)}`, class: "citation" }, c.title),
        c.locator ? el("span", { class: "locator" }, ` (${c.locator})`) : "",
        sourceLine(c) ? ` \u2014 ${sourceLine(c)}` : "",
        c.quote ? el("blockquote", { class: "cited-quote" }, c.quote) : ""),
    );
  }
}

// The answer, sentence by sentence when it was checked: a sentence the evidence does not support is marked
// (class "unsupported", with what its evidence lacks as the tooltip); one that was removed is not shown.
export function renderAnswerText(node, result) {
  const check = result.check;
  if (!check || !check.sentences.length || check.dropped) {
    node.textContent = result.answer;
    return;
  }
  clear(node);
  check.sentences.forEach((sentence, i) => {
    const lacks = sentence.missing.length ? `: no evidence for ${sentence.missing.join(", ")}` : "";
    const title = sentence.supported
      ? `supported (score ${sentence.score.toFixed(2)}): ${sentence.evidence.join(" \u2026 ")}`
      : `not supported by the retrieved evidence (score ${sentence.score.toFixed(2)})${lacks}`;
    if (i) node.append(" ");
    node.append(el("span", { class: sentence.supported ? "sentence" : "sentence unsupported", title,
      dataset: { supported: String(sentence.supported) } }, sentence.text));
  });
}

function checkLine(check) {
  if (!check || !check.sentences.length) return "";
  const flagged = check.unsupported ? `${check.unsupported} of ${check.sentences.length} sentences unsupported` : "every sentence supported";
  const dropped = check.dropped ? ` (${check.dropped} removed)` : "";
  return ` \u00b7 check: ${flagged}${dropped}, score ${check.score.toFixed(2)}`;
}

export class AskView {
  constructor() {
    this.form = document.getElementById("ask-form");
    this.status = document.getElementById("ask-status");
    this.result = document.getElementById("ask-result");
    this.graph = new FactGraph({
      container: document.getElementById("graph"),
      inspector: document.getElementById("graph-inspector"),
      pathLine: document.getElementById("graph-path"),
    });
    this.entityPanel = new EntityPanel({
      container: document.getElementById("entity-panel"),
      chunkInfo: (chunkId) => this.graph.chunks.get(chunkId),
      onChanged: (key) => this.refresh(key),
    });
    this.graph.onEntity = (entity, hood) => this.entityPanel.open(entity, hood);
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.ask();
    });
    document.getElementById("graph-fit").addEventListener("click", () => this.graph.fit());
  }

  request() {
    return {
      question: document.getElementById("ask-question").value.trim(),
      mode: document.getElementById("ask-mode").value,
      answerer: document.getElementById("ask-answerer").value,
      top_k: Number(document.getElementById("ask-top-k").value) || 10,
      include_context: true,
    };
  }

  async ask() {
    const body = this.request();
    if (!body.question) return;
    const submit = document.getElementById("ask-submit");
    submit.disabled = true;
    setStatus(this.status, "Asking\u2026");
    try {
      const streaming = document.getElementById("ask-stream").checked;
      const result = streaming ? await this.askStreaming(body) : await api("/v1/query", { method: "POST", body });
      this.render(result);
      setStatus(this.status, `Answered in ${formatMs(result.timings_ms.request ?? result.timings_ms.total)} ms.`);
    } catch (error) {
      setStatus(this.status, error.message, true);
    } finally {
      submit.disabled = false;
    }
  }

  // after an edit or undo: the question again on the graph as it is now, and the edited entity where it is now
  async refresh(key) {
    await this.ask();
    if (key) await this.graph.showEntity(key);
  }

  // POST /v1/query with stream: true: the answer text grows as tokens arrive; the result is retrieval + answer
  async askStreaming(body) {
    const text = document.getElementById("answer-text");
    let retrieval = null;
    let answer = null;
    await apiStream("/v1/query", { method: "POST", body: { ...body, stream: true } }, (name, data) => {
      if (name === "retrieval") {
        retrieval = data;
        this.result.hidden = false;
        text.textContent = "";
        document.getElementById("answer-meta").textContent = "streaming\u2026";
      } else if (name === "token") {
        text.textContent += data.text;
      } else if (name === "answer") {
        answer = data;
      } else if (name === "error") {
        throw new ApiError(504, data.error.code, data.error.message);
      }
    });
    if (!retrieval || !answer) throw new ApiError(502, "incomplete_stream", "the answer stream ended early");
    return { ...retrieval, ...answer };
  }

  render(result) {
    this.result.hidden = false;
    const answer = document.getElementById("answer-text");
    renderAnswerText(answer, result);
    answer.classList.toggle("abstained", result.abstained);
    const failed = result.answer_status === "llm_failed"; // an abstention because the model failed, not the evidence
    answer.classList.toggle("llm-failed", failed);
    answer.classList.toggle("quote", result.answer_kind === "quote"); // quoted passages, not a composed answer
    const router = result.details && result.details.router; // auto: which mode it chose, and why
    const routed = router ? ` \u2192 ${router.mode} (${router.reason})` : "";
    const reason = failed ? ` \u00b7 the LLM failed: ${result.llm_error}` : result.abstain_reason ? ` \u00b7 ${result.abstain_reason}` : "";
    const kind = result.answer_kind && !result.abstained ? ` \u00b7 ${KIND_WORDS[result.answer_kind] ?? result.answer_kind}` : "";
    document.getElementById("answer-meta").textContent = `${result.answerer}${kind} \u00b7 mode ${result.mode}${routed}${reason}${checkLine(result.check)}`;
    renderCitations(document.getElementById("citations"), result.citations, "passage");
    rows(document.querySelector("#timings tbody"),
      Object.entries(result.timings_ms).map(([stage, ms]) => [stage, formatMs(ms)]));
    rows(document.querySelector("#usage tbody"), Object.entries(result.usage).map(([k, v]) => [k.replaceAll("_", " "), v]));
    this.renderFacts(result);
    const cited = new Set(result.citations.map((c) => c.chunk_id));
    const list = clear(document.getElementById("passages"));
    for (const passage of passagesOf(result)) {
      list.append(renderPassage(passage, { anchorPrefix: "passage", cited: cited.has(passage.chunk_id) }));
    }
    this.graph.show(result);
  }

  renderFacts(result) {
    const tbody = clear(document.querySelector("#facts tbody"));
    if (!result.facts.length) {
      tbody.append(el("tr", {}, el("td", { colspan: 5, class: "muted" }, "No graph facts for this mode.")));
      return;
    }
    for (const fact of result.facts) {
      const id = `${nodeId(fact.subject, fact.subject_label)}|${fact.relationship}|${nodeId(fact.object, fact.object_label)}`;
      tbody.append(
        el("tr", {},
          el("td", {}, el("span", { class: `tier ${fact.tier.toLowerCase()}` }, fact.tier)),
          el("td", {}, this.entityButton(fact.subject, fact.subject_label)),
          el("td", {}, fact.relationship),
          el("td", {}, this.entityButton(fact.object, fact.object_label)),
          el("td", {}, el("button", { type: "button", class: "secondary small", onclick: () => this.graph.selectEdgeById(id) },
            "Evidence"))),
      );
    }
  }

  entityButton(name, label) {
    return el("button", {
      type: "button", class: "link", title: `Expand the neighbourhood of ${name} (${label})`,
      onclick: () => this.graph.expandByName(name, label),
    }, name);
  }
}
