"""Compare fusion rules of dense, BM25, flat+ and PPR signals offline, on files `bench/joint_components.py` wrote.

python -m bench.joint_tune hotpot.pkl mhr.pkl
"""

from __future__ import annotations

import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from graphwire.eval.scorers import score_retrieval, score_titles
from graphwire.retrieval.flat.fusion import ranks_of

Rule = Callable[[dict[str, Any]], np.ndarray]
K = 60


def rrf(*pairs: tuple[float, np.ndarray]) -> np.ndarray:
    out = np.zeros(len(pairs[0][1]))
    for w, s in pairs:
        if w and s.any():
            out += np.where(s > 0, w / (K + ranks_of(s.astype(np.float64))), 0.0)
    return out


def norm(v: np.ndarray) -> np.ndarray:
    t = float(v.sum())
    return v / t if t > 0 else v


def ppr_mix(r: dict[str, Any], share: float) -> np.ndarray:
    e, p = norm(r["ppr_e"].astype(np.float64)), norm(r["ppr_p"].astype(np.float64))
    if not e.any():
        return p
    return (1 - share) * e + share * p


def diversify(order: list[int], doc_ids: list[str], k: int, per_doc: int) -> list[int]:
    """Best first, at most `per_doc` chunks of one document until k distinct places are filled, then the rest."""
    seen: dict[str, int] = {}
    head, tail = [], []
    for i in order:
        d = doc_ids[i]
        if seen.get(d, 0) < per_doc:
            head.append(i)
            seen[d] = seen.get(d, 0) + 1
        else:
            tail.append(i)
        if len(head) >= k:
            break
    return (head + tail)[:k]


def evaluate(data: dict[str, Any], rule: Rule, per_doc: int | None) -> dict[str, float]:
    meta, rows = data["meta"], data["rows"]
    titled_set = "gold_facts" not in rows[0] or not any(r["gold_facts"] for r in rows)
    acc: dict[str, list[float]] = {}
    for r in rows:
        if r["null"]:
            continue
        scores = rule(r)
        order = [int(i) for i in np.argsort(-scores, kind="stable")[:60]]
        top = diversify(order, meta["doc_ids"], 10, per_doc) if per_doc else order[:10]
        titles = [meta["titles"][i] for i in top]
        if titled_set:
            s = score_titles(titles, r["gold_titles"])
            vals = {"P@2": s.perfect_at_2, "P@5": s.perfect_at_5, "P@8": s.perfect_at_8, "P@10": s.perfect_at_10,
                    "R@2": s.recall_at_2, "R@5": s.recall_at_5, "MRR": s.mrr}  # fmt: skip
        else:
            m = score_retrieval([meta["texts"][i] for i in top], titles, r["gold_facts"], r["gold_titles"])
            tr = score_titles(titles, r["gold_titles"])
            vals = {"H@4": m.hits_at_4, "H@10": m.hits_at_10, "MRR": m.mrr_at_10, "P@4": m.perfect_at_4,
                    "P@10": m.perfect_at_10, "R@2": tr.recall_at_2, "R@5": tr.recall_at_5}  # fmt: skip
        for key, v in vals.items():
            acc.setdefault(key, []).append(v)
    return {k: float(np.mean(v)) for k, v in acc.items()}


RULES: dict[str, Rule] = {
    "dense": lambda r: r["dense"],
    "hybrid": lambda r: r["hybrid"],
    "graph": lambda r: r["graph"] + 1e-9 * r["flat_plus"],
    "rrf(h,l,p)": lambda r: rrf((2, r["hybrid"]), (0.5, r["ppr_l"]), (0.5, r["ppr_p"])),
    "rrf(h4,d,b,l,p)": lambda r: rrf(
        (4, r["hybrid"]), (1, r["dense"]), (1, r["bm25"]), (1, r["ppr_l"]), (1, r["ppr_p"])
    ),
    "bm25": lambda r: r["bm25"],
    "flat_plus": lambda r: r["flat_plus"],
    "ppr_e": lambda r: r["ppr_e"] + 1e-9 * r["dense"],
    "ppr_p": lambda r: r["ppr_p"] + 1e-9 * r["dense"],
    "ppr_l": lambda r: r["ppr_l"] + 1e-9 * r["dense"],
    "rrf(d,b,l,p)": lambda r: rrf((1, r["dense"]), (1, r["bm25"]), (1, r["ppr_l"]), (1, r["ppr_p"])),
    "rrf(fp,d,b,l,p)": lambda r: rrf(
        (1, r["flat_plus"]), (1, r["dense"]), (1, r["bm25"]), (1, r["ppr_l"]), (1, r["ppr_p"])
    ),
    "rrf(fp,d,b,e,p)": lambda r: rrf(
        (1, r["flat_plus"]), (1, r["dense"]), (1, r["bm25"]), (1, r["ppr_e"]), (1, r["ppr_p"])
    ),
    "ppr_mix.5": lambda r: ppr_mix(r, 0.5) + 1e-9 * r["dense"],
    "ppr_mix.2": lambda r: ppr_mix(r, 0.2) + 1e-9 * r["dense"],
    "rrf(d,b)": lambda r: rrf((1, r["dense"]), (1, r["bm25"])),
    "rrf(fp,mix.5)": lambda r: rrf((1, r["flat_plus"]), (1, ppr_mix(r, 0.5))),
    "rrf(d,b,mix.5)": lambda r: rrf((1, r["dense"]), (1, r["bm25"]), (1, ppr_mix(r, 0.5))),
    "rrf(d,b,e,p)": lambda r: rrf((1, r["dense"]), (1, r["bm25"]), (1, r["ppr_e"]), (1, r["ppr_p"])),
    "rrf(fp,e,p)": lambda r: rrf((2, r["flat_plus"]), (1, r["ppr_e"]), (1, r["ppr_p"])),
}


def main() -> None:
    for path in sys.argv[1:]:
        data = pickle.loads(Path(path).read_bytes())
        print(f"\n## {path} ({sum(not r['null'] for r in data['rows'])} scored)")
        header = None
        for name, rule in RULES.items():
            for per_doc in (None, 2, 3):
                res = evaluate(data, rule, per_doc)
                if header is None:
                    header = list(res)
                    print(f"{'rule':28}" + "".join(f"{h:>7}" for h in header))
                label = name + (f" div{per_doc}" if per_doc else "")
                print(f"{label:28}" + "".join(f"{res[h]:7.3f}" for h in header))


FLAT_RULES = ("dense", "bm25", "rrf(d,b)", "flat_plus")
SIGNALS = ("flat_plus", "dense", "bm25", "ppr_l", "ppr_p")
UNTITLED = "hybrid"  # the ranking of questions that name no title entity
GRIDS = ((0.0, 0.5, 1.0, 2.0), (0.0, 0.5, 1.0), (0.0, 0.5, 1.0, 2.0), (0.0, 0.5, 1.0), (0.0, 0.5, 1.0))


def weighted(w: tuple[float, ...]) -> Rule:
    """The signals fused with weights `w` when the question names a title entity; the base signal alone otherwise."""
    return lambda r: rrf(*((wi, r[n]) for wi, n in zip(w, SIGNALS, strict=True))) if r["titled"] else r[UNTITLED]


def grid(paths: list[str], per_doc: int | None = None) -> None:
    """Every weight combination; margin = the worst (joint - best flat) over the metrics and corpora."""
    import itertools

    sets = [pickle.loads(Path(p).read_bytes()) for p in paths]
    best_flat = []
    for data in sets:
        flat = [evaluate(data, RULES[name], None) for name in FLAT_RULES]
        best_flat.append({k: max(f[k] for f in flat) for k in flat[0]})
    results = []
    for w in itertools.product(*GRIDS):
        res = [evaluate(data, weighted(w), per_doc) for data in sets]
        margins = [min(r[k] - b[k] for k in b if k != "MRR") for r, b in zip(res, best_flat, strict=True)]
        results.append((min(margins), w, margins, res))
    results.sort(key=lambda item: -item[0])
    for margin, w, margins, res in results[:25]:
        print(f"{w} worst margin {margin:+.3f}  per set {[round(m, 3) for m in margins]}")
        for r in res:
            print("    " + " ".join(f"{k} {v:.3f}" for k, v in r.items()))


if __name__ == "__main__":
    if sys.argv[1] == "--grid":
        grid(sys.argv[2:])
    else:
        main()
