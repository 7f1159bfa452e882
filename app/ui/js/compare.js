// The compare view: one question in two modes side by side, each with its answer and the passages it retrieved;
// passages both modes retrieved are marked.

import { api } from "./api.js";
import { el, formatMs, setStatus } from "./dom.js";
import { passagesOf, renderCitations, renderPassage } from "./ask.js";

export class CompareView {
  constructor() {
    this.form = document.getElementById("compare-form");
    this.status = document.getElementById("compare-status");
    this.result = document.getElementById("compare-result");
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.compare();
    });
  }

  async compare() {
    const question = document.getElementById("compare-question").value.trim();
    if (!question) return;
    const modes = [document.getElementById("compare-mode-a").value, document.getElementById("compare-mode-b").value];
    const answerer = document.getElementById("compare-answerer").value;
    const submit = document.getElementById("compare-submit");
    submit.disabled = true;
    setStatus(this.status, `Asking ${modes.join(" and ")}\u2026`);
    try {
      const results = await Promise.all(
        modes.map((mode) => api("/v1/query", { method: "POST", body: { question, mode, answerer, include_context: true } })),
      );
      this.render(results);
      setStatus(this.status, `Compared ${modes[0]} and ${modes[1]}.`);
    } catch (error) {
      setStatus(this.status, error.message, true);
    } finally {
      submit.disabled = false;
    }
  }

  render(results) {
    this.result.hidden = false;
    const ids = results.map((r) => new Set(passagesOf(r).map((p) => p.chunk_id)));
    ["compare-a", "compare-b"].forEach((side, i) => {
      const other = results[1 - i];
      this.renderSide(document.getElementById(side), results[i], ids[1 - i], other.mode, side);
    });
  }

  renderSide(container, result, otherIds, otherMode, side) {
    const cited = new Set(result.citations.map((c) => c.chunk_id));
    const passages = passagesOf(result);
    const shared = passages.filter((p) => otherIds.has(p.chunk_id)).length;
    const citations = el("ol", { class: "citations" });
    renderCitations(citations, result.citations, `${side}-passage`);
    container.replaceChildren(
      el("h3", {}, `Mode ${result.mode}`),
      el("p", { class: `answer-text${result.abstained ? " abstained" : ""}`, dataset: { role: "answer" } }, result.answer),
      el("p", { class: "muted" }, `${result.answerer} \u00b7 ${formatMs(result.timings_ms.request ?? result.timings_ms.total)} ms \u00b7 `
        + `${result.facts.length} facts \u00b7 ${passages.length} passages, ${shared} also in ${otherMode}`),
      el("h4", {}, "Citations"),
      citations,
      el("h4", {}, "Passages"),
      el("ol", { class: "passages" },
        passages.map((p) => renderPassage(p, {
          anchorPrefix: `${side}-passage`, cited: cited.has(p.chunk_id), also: otherIds.has(p.chunk_id) ? `also in ${otherMode}` : "",
        }))),
    );
  }
}
