// The documents view: list (with filters and paging), upload a file as an ingest job and watch its progress,
// delete a document.

import { api } from "./api.js";
import { clear, el, setStatus } from "./dom.js";

const PAGE_SIZE = 20;
const POLL_MS = 500;
const DONE_STATES = new Set(["succeeded", "failed"]);

export class DocumentsView {
  constructor() {
    this.offset = 0;
    this.total = 0;
    this.status = document.getElementById("documents-status");
    this.tbody = document.querySelector("#documents tbody");
    document.getElementById("upload-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.upload();
    });
    document.getElementById("documents-filter").addEventListener("submit", (event) => {
      event.preventDefault();
      this.offset = 0;
      this.refresh();
    });
    document.getElementById("documents-prev").addEventListener("click", () => this.page(-1));
    document.getElementById("documents-next").addEventListener("click", () => this.page(1));
  }

  filters() {
    return {
      source: document.getElementById("filter-source").value.trim(),
      published_after: document.getElementById("filter-after").value,
      published_before: document.getElementById("filter-before").value,
      limit: PAGE_SIZE,
      offset: this.offset,
    };
  }

  page(step) {
    const next = this.offset + step * PAGE_SIZE;
    if (next < 0 || next >= this.total) return;
    this.offset = next;
    this.refresh();
  }

  // `done`: the message to leave once the list is loaded (e.g. what a delete did)
  async refresh(done = "") {
    setStatus(this.status, "Loading documents\u2026");
    try {
      const listing = await api("/v1/documents", { query: this.filters() });
      this.total = listing.total;
      this.render(listing);
      setStatus(this.status, done);
    } catch (error) {
      setStatus(this.status, error.message, true);
    }
  }

  render(listing) {
    clear(this.tbody);
    const first = listing.total ? this.offset + 1 : 0;
    document.getElementById("documents-caption").textContent =
      `${first}\u2013${this.offset + listing.items.length} of ${listing.total} documents`;
    for (const doc of listing.items) {
      const title = doc.url ? el("a", { href: doc.url, rel: "noopener noreferrer" }, doc.title) : doc.title;
      this.tbody.append(
        el("tr", { dataset: { documentId: doc.id } },
          el("td", {}, title),
          el("td", {}, doc.source || ""),
          el("td", {}, doc.published || ""),
          el("td", { class: "num" }, doc.chunks ?? ""),
          el("td", {}, this.deleteButton(doc))),
      );
    }
    document.getElementById("documents-prev").disabled = this.offset === 0;
    document.getElementById("documents-next").disabled = this.offset + PAGE_SIZE >= listing.total;
  }

  // two steps instead of window.confirm: the first press arms the button, the second deletes
  deleteButton(doc) {
    const button = el("button", { type: "button", class: "secondary small danger" }, "Delete");
    button.setAttribute("aria-label", `Delete ${doc.title}`);
    button.addEventListener("click", async () => {
      if (button.dataset.armed !== "true") {
        button.dataset.armed = "true";
        button.textContent = "Confirm delete";
        return;
      }
      button.disabled = true;
      try {
        await api(`/v1/documents/${encodeURIComponent(doc.id)}`, { method: "DELETE" });
        await this.refresh(`Deleted \u201c${doc.title}\u201d.`);
      } catch (error) {
        setStatus(this.status, error.message, true);
        button.disabled = false;
      }
    });
    return button;
  }

  async upload() {
    const input = document.getElementById("upload-file");
    if (!input.files.length) return;
    const form = new FormData();
    form.append("file", input.files[0]);
    const submit = document.getElementById("upload-submit");
    submit.disabled = true;
    try {
      const job = await api("/v1/documents", { method: "POST", body: form });
      this.showJob({ ...job, progress: { documents_total: job.documents, documents_done: 0 } });
      await this.watch(job.job_id);
      await this.refresh();
    } catch (error) {
      setStatus(this.status, error.message, true);
    } finally {
      submit.disabled = false;
    }
  }

  async watch(jobId) {
    for (;;) {
      const job = await api(`/v1/jobs/${encodeURIComponent(jobId)}`);
      this.showJob(job);
      if (DONE_STATES.has(job.state)) return job;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  showJob(job) {
    document.getElementById("job").hidden = false;
    const progress = job.progress || {};
    const total = progress.documents_total || 0;
    const done = progress.documents_done || 0;
    const state = document.getElementById("job-state");
    state.textContent = `Job ${job.job_id}: ${job.state}${job.error ? ` \u2014 ${job.error}` : ""}`;
    state.dataset.state = job.state;
    const bar = document.getElementById("job-progress");
    bar.max = Math.max(total, 1);
    bar.value = done;
    const rate = progress.chunks_per_s ? `, ${Number(progress.chunks_per_s).toFixed(1)} chunks/s` : "";
    document.getElementById("job-counts").textContent =
      `${done} of ${total} documents, ${progress.chunks ?? 0} chunks${rate}`;
    const failures = clear(document.getElementById("job-failures"));
    for (const f of job.failures || []) {
      failures.append(el("li", { class: "error" }, `record ${f.position}${f.title ? ` (${f.title})` : ""}: ${f.reason}`));
    }
  }
}
