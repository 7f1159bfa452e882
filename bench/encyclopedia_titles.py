"""Write tests/data/encyclopedia (35 original passages, 30 compositional questions) in the title-scored format that
`graphwire eval` reads: `<out>/corpus.json` (title, body) and `<out>/questions.json` (query, answer, gold_titles).

    python -m bench.encyclopedia_titles /tmp/encyclopedia   # then DATASET=encyclopedia bench/eval_offline.sh
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "tests" / "data" / "encyclopedia" / "corpus.json"


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/encyclopedia")
    data = json.loads(SOURCE.read_text(encoding="utf-8"))
    corpus = [{"title": p["title"], "body": p["text"], "category": "encyclopedia"} for p in data["passages"]]
    questions = [
        {
            "id": q["id"],
            "query": q["question"],
            "answer": q["answer"],
            "type": "compositional",
            "gold_titles": q["gold"],
        }
        for q in data["questions"]
    ]
    out.mkdir(parents=True, exist_ok=True)
    (out / "corpus.json").write_text(json.dumps(corpus, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "questions.json").write_text(json.dumps(questions, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(corpus)} passages, {len(questions)} questions in {out}")


if __name__ == "__main__":
    main()
