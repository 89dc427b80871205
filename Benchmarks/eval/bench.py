#!/usr/bin/env python3
"""Peer side of `make bench-eval`: 10,000 seeded utterance pairs scored by jiwer 4.x with no normalisation.

Writes the pairs as TSV (`reference<TAB>hypothesis`, one pair per line, the format
EarshotEval.PairsBenchmark reads) and prints jiwer's corpus totals and time, as a table and as one JSON line,
so that the Swift side (`earshot bench eval --pairs FILE`, wired by the integrator) can be printed next to it.

    ~/.cache/earshot/venv/bin/python Benchmarks/eval/bench.py [--pairs OUT.tsv] [--count 10000] [--seed 7]

jiwer is timed on `jiwer.process_words(references, hypotheses)` with its default transform (strip, collapse
spaces, split on spaces): reading the file is not timed, on either side.
"""
import argparse
import importlib.metadata
import json
import os
import pathlib
import random
import time

import jiwer


def make_vocabulary(rng: random.Random, size: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(letters) for _ in range(rng.randint(1, 9))))
    return sorted(words)


def make_pair(rng: random.Random, vocabulary: list[str]) -> tuple[str, str]:
    # Zipf-like word choice so that frequent words repeat, as in speech.
    def word() -> str:
        return vocabulary[min(int(rng.paretovariate(1.1)) - 1, len(vocabulary) - 1)]

    reference = [word() for _ in range(rng.randint(3, 40))]
    hypothesis = list(reference)
    for _ in range(rng.randint(0, max(1, len(reference) // 4))):
        kind = rng.random()
        position = rng.randint(0, len(hypothesis))
        if kind < 0.5 and position < len(hypothesis):
            hypothesis[position] = word()
        elif kind < 0.75 and position < len(hypothesis):
            del hypothesis[position]
        else:
            hypothesis.insert(position, word())
    return " ".join(reference), " ".join(hypothesis)


def main() -> None:
    home = pathlib.Path(os.environ.get("EARSHOT_HOME", pathlib.Path.home() / ".cache" / "earshot"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=pathlib.Path, default=home / "bench" / "eval_pairs.tsv")
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; the fastest is reported")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    vocabulary = make_vocabulary(rng, 5_000)
    pairs = [make_pair(rng, vocabulary) for _ in range(args.count)]
    args.pairs.parent.mkdir(parents=True, exist_ok=True)
    args.pairs.write_text("".join(f"{ref}\t{hyp}\n" for ref, hyp in pairs))

    references = [ref for ref, _ in pairs]
    hypotheses = [hyp for _, hyp in pairs]
    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        output = jiwer.process_words(references, hypotheses)
        best = min(best, time.perf_counter() - start)

    version = importlib.metadata.version("jiwer")
    words = sum(len(ref.split()) for ref in references)
    print(f"pairs file: {args.pairs} ({len(pairs)} pairs, {words} reference words)")
    print(f"{'scorer':<14} {'hits':>8} {'subs':>7} {'dels':>7} {'ins':>7} {'WER':>9} {'seconds':>9}")
    print(
        f"{'jiwer ' + version:<14} {output.hits:>8} {output.substitutions:>7} {output.deletions:>7} "
        f"{output.insertions:>7} {output.wer:>9.6f} {best:>9.4f}"
    )
    print(
        json.dumps(
            {
                "scorer": f"jiwer {version}",
                "pairs": len(pairs),
                "hits": output.hits,
                "substitutions": output.substitutions,
                "deletions": output.deletions,
                "insertions": output.insertions,
                "wer": output.wer,
                "seconds": best,
            }
        )
    )


if __name__ == "__main__":
    main()
