"""Answer checking (retrieval/answer/checking.py) measured on the demo corpus, through the Python API's `ask`.

1. Planted sentences: the OpenAI-compatible stub (tests/support/openai_stub.py) is the LLM. For each answerable demo
   question it answers from the excerpts of its prompt, as a careful model would: the gold answer, cited, and the
   excerpt sentence that holds it, copied, cited; then it appends ONE invented sentence, of one of four kinds per
   answer (every question gets each kind): a copied excerpt sentence with its number changed (`number`), a copied
   sentence given a year no excerpt has (`date`), a copied sentence with one of its names replaced by an invented
   one (`entity`), and a made-up relation between two names of the excerpts, in words the corpus never uses
   (`relation`). Precision and recall of the check's flags over every sentence (planted = positive).
2. The local real model (`--real`): Qwen2.5-Coder-0.5B-Instruct Q4_K_M on llama.cpp (xllamacpp, one thread), the
   test_real_llm.py setup, answers every demo question; the share of its sentences the check flags, each listed.

Needs a Neo4j it may empty (NEO4J_URI, NEO4J_PASSWORD); the demo corpus is ingested offline into it:

    NEO4J_URI=bolt://127.0.0.1:7687 NEO4J_PASSWORD=... .venv/bin/python bench/answer_check.py --wipe --real
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from support.openai_stub import MODEL, OpenAIStub, StubReply, text  # noqa: E402

from bench._results import add_wipe_flag, command_line, finish_report, machine, require_wipe  # noqa: E402
from graphwire import DEMO_CORPUS, Graphwire  # noqa: E402
from graphwire.core.paths import DEMO_DIR  # noqa: E402
from graphwire.core.settings import Settings  # noqa: E402
from graphwire.retrieval.models import ABSTENTION, Answer  # noqa: E402

KINDS = ("number", "date", "entity", "relation")
INVENTED_NAMES = ("Tobias Wrenfield", "Halden Ostra")  # a person and a company no demo article names
# predicates no demo article uses, so the relation is invented whichever two names it joins
RELATIONS = ("{a} and {b} share a headquarters building in Lisbon's harbour district.",
             "{a} owes {b} unpaid royalties under a licensing dispute.")  # fmt: skip
_EXCERPT = re.compile(r"^\[(\d+)\] [^\n]*\n([^\n]*)$", re.MULTILINE)
_PREFIX = re.compile(r"^\[Source: [^\]]*\]\s*")  # the chunker's header line, before each chunk's text
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_NAME = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)+\b")
_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)?\b")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def _excerpts(prompt: str) -> list[tuple[int, list[str]]]:
    """The prompt's numbered excerpts (`retrieval/answer/llm.py` render_excerpt), each as its sentences."""
    body = prompt.split("EXCERPTS:", 1)[-1]
    return [(int(n), [s for s in _SENTENCE.split(_PREFIX.sub("", t.removesuffix(" ..."))) if s])
            for n, t in _EXCERPT.findall(body)]  # fmt: skip


def _with_answer(excerpts: list[tuple[int, list[str]]], gold: str) -> tuple[int, str]:
    """The first excerpt sentence holding the gold answer (or most of its words), and its excerpt number."""
    words = {w.lower() for w in re.findall(r"\w+", gold) if len(w) > 3}
    best = max(((len(words & {w.lower() for w in re.findall(r"\w+", s)}), -n, s) for n, ss in excerpts for s in ss),
               default=(0, -1, ""))  # fmt: skip
    return -best[1], best[2]


def plant(kind: str, excerpts: list[tuple[int, list[str]]], n: int) -> str:
    """One invented sentence of `kind`, from the excerpts (excerpt `n`'s first; cited as excerpt `n`)."""
    sentences = [s for m, ss in excerpts if m == n for s in ss] + [s for m, ss in excerpts if m != n for s in ss]
    everything = " ".join(sentences)
    if kind == "number":
        source = next((s for s in sentences if _NUMBER.search(s) and not _YEAR.search(s)), sentences[0])
        if _NUMBER.search(source):
            planted = _NUMBER.sub(lambda m: str(int(float(m.group(0).replace(",", ""))) * 3 + 7), source, count=1)
        else:
            planted = source.rstrip(".") + f", a deal worth {len(everything) % 90 + 11} million euros."
    elif kind == "date":
        year = next(y for y in range(2013, 1990, -1) if str(y) not in everything)
        source = next((s for s in sentences if _YEAR.search(s)), None)
        planted = _YEAR.sub(str(year), source, count=1) if source else sentences[0].rstrip(".") + f" in {year}."
    elif kind == "entity":
        source = next((s for s in sentences if len(_NAME.findall(s)) >= 2), sentences[0])
        names = _NAME.findall(source)
        target = names[-1] if names else source.split()[0]
        invented = INVENTED_NAMES[0] if len(target.split()) == 2 and not target.endswith(("Labs", "Group")) else \
            INVENTED_NAMES[1]  # fmt: skip
        planted = source.replace(target, invented, 1)
    else:
        names = list(dict.fromkeys(_NAME.findall(everything)))
        planted = RELATIONS[len(names) % 2].format(a=names[0], b=names[-1])
    return planted.rstrip(".") + f" [{n}]."


def stub_answers(questions: dict[str, dict[str, Any]], kinds: list[str]) -> Any:
    """The stub's responder: alias calls find nothing; answer calls get gold + copied sentence + one planted."""

    def respond(request: dict[str, Any]) -> StubReply:
        if "response_format" in request:
            return text('{"entities": []}')(request)
        prompt = request["messages"][-1]["content"]
        question = prompt.rsplit("QUESTION:", 1)[-1].strip()
        excerpts = _excerpts(prompt)
        gold = questions[question]["answer"]
        if not excerpts or gold == ABSTENTION:
            return text(ABSTENTION)(request)
        n, copied = _with_answer(excerpts, gold)
        answer = f"{gold} [{n}]. {copied.rstrip('.')} [{n}]. {plant(kinds[0], excerpts, n)}"
        return text(answer)(request)

    return respond


def _sentences(answer: Answer) -> list[dict[str, Any]]:
    assert answer.check is not None
    return [{"text": s.text, "supported": s.supported, "score": s.score, "missing": s.missing}
            for s in answer.check.sentences]  # fmt: skip


def measure_planted(settings: Settings, questions: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    by_text = {" ".join(q["question"].split()): q for q in questions}
    answerable = [q for q in questions if q["answer"] != ABSTENTION]
    rows, kinds = [], [KINDS[0]]
    with OpenAIStub() as stub, Graphwire(settings.model_copy(update={"llm_base_url": stub.base_url,
                                                                      "llm_model": MODEL})) as gw:  # fmt: skip
        stub.fallback = stub_answers(by_text, kinds)
        for kind in KINDS:
            kinds[0] = kind
            for q in answerable:
                started = time.perf_counter()
                answer = gw.ask(q["question"], mode=mode, answerer="llm")
                elapsed = time.perf_counter() - started
                sentences = _sentences(answer)
                for i, s in enumerate(sentences):
                    s["planted"] = i == len(sentences) - 1 and len(sentences) == 3
                rows.append({"id": q["id"], "kind": kind, "answer": answer.text, "sentences": sentences,
                             "ask_s": round(elapsed, 3)})  # fmt: skip
    return {"answers": rows, **_scores(rows)}


def _scores(rows: list[dict[str, Any]]) -> dict[str, Any]:
    sentences = [s | {"kind": r["kind"]} for r in rows for s in r["sentences"]]
    tp = sum(s["planted"] and not s["supported"] for s in sentences)
    fp = sum(not s["planted"] and not s["supported"] for s in sentences)
    fn = sum(s["planted"] and s["supported"] for s in sentences)
    per_kind = {}
    for kind in KINDS:
        planted = [s for s in sentences if s["kind"] == kind and s["planted"]]
        per_kind[kind] = {"planted": len(planted), "flagged": sum(not s["supported"] for s in planted)}
    return {
        "sentences": len(sentences),
        "planted": tp + fn,
        "flagged": tp + fp,
        "precision": round(tp / (tp + fp), 3) if tp + fp else None,
        "recall": round(tp / (tp + fn), 3) if tp + fn else None,
        "false_flags": [s["text"] for s in sentences if not s["planted"] and not s["supported"]],
        "missed": [s["text"] for s in sentences if s["planted"] and s["supported"]],
        "recall_by_kind": per_kind,
        "malformed_answers": sum(len(r["sentences"]) != 3 for r in rows),
    }


def measure_real(settings: Settings, questions: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    from graphwire.core.servers.llm_model import MODEL_NAME, model_path
    from graphwire.core.servers.llm_server import LocalLLMServer, ServerOptions
    from graphwire.core.servers.neo4j_server import free_port

    options = ServerOptions(model_path(settings.local_llm_dir), free_port(), threads=1)
    rows = []
    with tempfile.TemporaryDirectory() as logs, LocalLLMServer(options, log_path=Path(logs) / "server.log") as server:
        real = settings.model_copy(update={"llm_base_url": server.base_url, "llm_model": MODEL_NAME,
                                           "llm_max_retries": 0})  # fmt: skip
        with Graphwire(real) as gw:
            for q in questions:
                started = time.perf_counter()
                answer = gw.ask(q["question"], mode=mode, answerer="llm")
                elapsed = round(time.perf_counter() - started, 1)
                rows.append({"id": q["id"], "answer": answer.text, "status": answer.status.value,
                             "sentences": _sentences(answer), "ask_s": elapsed})  # fmt: skip
    sentences = [s for r in rows for s in r["sentences"]]
    flagged = sum(not s["supported"] for s in sentences)
    return {"model": MODEL_NAME, "answers": rows, "sentences": len(sentences), "flagged": flagged,
            "flagged_share": round(flagged / len(sentences), 3) if sentences else None,
            "abstentions": sum(r["answer"] == ABSTENTION for r in rows)}  # fmt: skip


def render(report: dict[str, Any]) -> str:
    planted = report["planted"]
    lines = [
        "# Answer checking: flags on planted sentences, and on a real small model's answers",
        "",
        f"Command: `{report['command']}`  ",
        f"Machine: {report['machine']} (2 CPU cores shared with other work; load average at the end "
        f"{report['load_average']}). Mode `{report['mode']}`, demo corpus ingested offline.",
        "",
        "## Planted unsupported sentences (stub LLM)",
        "",
        f"{len(planted['answers'])} answers ({planted['malformed_answers']} not of three sentences): "
        f"{planted['sentences']} sentences, {planted['planted']} planted, {planted['flagged']} flagged.",
        "",
        "| precision | recall | " + " | ".join(f"recall `{k}`" for k in KINDS) + " |",
        "|---|---|" + "---|" * len(KINDS),
        f"| {planted['precision']} | {planted['recall']} | "
        + " | ".join(f"{v['flagged']}/{v['planted']}" for v in planted["recall_by_kind"].values())
        + " |",
        "",
        "Correct sentences flagged (false positives): " + ("none" if not planted["false_flags"] else ""),
        *[f"- {t}" for t in planted["false_flags"]],
        "",
        "Planted sentences not flagged (misses): " + ("none" if not planted["missed"] else ""),
        *[f"- {t}" for t in planted["missed"]],
    ]
    real = report.get("real")
    if real:
        lines += [
            "",
            f"## The local real model ({real['model']}, llama.cpp, one thread)",
            "",
            f"{len(real['answers'])} demo questions, {real['abstentions']} abstentions; {real['sentences']} answer "
            f"sentences, {real['flagged']} flagged: **{real['flagged_share']:.0%}** of sentences.",
            "",
            "| question | answer sentence | supported | score | missing |",
            "|---|---|---|---|---|",
        ]
        for row in real["answers"]:
            for s in row["sentences"] or [{"text": row["answer"], "supported": "-", "score": "-", "missing": []}]:
                lines.append(f"| {row['id']} | {s['text'].replace('|', '/')} | {s['supported']} | {s['score']} | "
                             f"{', '.join(s['missing'])} |")  # fmt: skip
    if report.get("notes"):
        lines += ["", report["notes"]]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_wipe_flag(parser)
    parser.add_argument("--mode", default="graph", help="retrieval mode (the demo's: graph)")
    parser.add_argument("--real", action="store_true", help="also measure the local real model's answers")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "answer_check")
    parser.add_argument("--notes", type=Path, help="markdown appended to the report")
    args = parser.parse_args()
    require_wipe(parser, args)
    questions = json.loads((DEMO_DIR / "questions.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as stores:
        settings = Settings(chroma_path=Path(stores) / "chroma", ingest_state_path=Path(stores) / "state",
                            extraction_cache_path=Path(stores) / "cache.sqlite", llm_timeout_s=600,
                            request_timeout_s=900)  # fmt: skip
        with Graphwire(settings) as gw:
            gw.graph.write("admin/wipe")
            gw.ingest(DEMO_CORPUS, extractor="offline")
        report: dict[str, Any] = {"command": command_line(), "machine": machine(), "mode": args.mode}
        report["planted"] = measure_planted(settings, questions, args.mode)
        print(json.dumps({k: v for k, v in report["planted"].items() if k != "answers"}, indent=2), flush=True)
        if args.real:
            report["real"] = measure_real(settings, questions, args.mode)
    finish_report(args.out, report, render, args.notes)


if __name__ == "__main__":
    main()
