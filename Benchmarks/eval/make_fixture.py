#!/usr/bin/env python3
"""Writes Tests/Fixtures/eval/jiwer_pairs.json: seeded random (reference, hypothesis) pairs scored by jiwer 4.x.

The Swift suite (JiwerAgreementTests) checks that EarshotEval's no-op scoring reproduces jiwer's hits,
substitutions, deletions, insertions, WER, MER and CER for every pair and for the corpus totals.

Run with a Python that has jiwer 4.x installed, e.g.
    python3 -m venv ~/.cache/earshot/venv && ~/.cache/earshot/venv/bin/pip install 'jiwer>=4,<5'
    ~/.cache/earshot/venv/bin/python Benchmarks/eval/make_fixture.py
"""
import importlib.metadata
import json
import pathlib
import random

import jiwer

SEED = 20250625
COUNT = 300
VOCABULARY = (
    "the a of to and in is it you that he was for on are with as i his they be at one have this from "
    "or had by hot word but what some we can out other were all there when up use your how said an each "
    "she which do their time if will way about many then them write would like so these her long make"
).split()


def mutate(rng: random.Random, words: list[str]) -> list[str]:
    """A hypothesis: the reference with random substitutions, deletions, insertions and swaps."""
    out = list(words)
    for _ in range(rng.randint(0, max(1, len(words) // 2))):
        kind = rng.random()
        position = rng.randint(0, len(out))
        if kind < 0.35 and position < len(out):
            out[position] = rng.choice(VOCABULARY)
        elif kind < 0.6 and position < len(out):
            del out[position]
        elif kind < 0.85:
            out.insert(position, rng.choice(VOCABULARY))
        elif position + 1 < len(out):
            out[position], out[position + 1] = out[position + 1], out[position]
    return out


def make_pairs(rng: random.Random, count: int) -> list[tuple[str, str]]:
    pairs = []
    for index in range(count):
        if index % 50 == 7:
            reference = []  # empty reference: only insertions are possible
        else:
            reference = [rng.choice(VOCABULARY) for _ in range(rng.randint(1, 30))]
        if index % 40 == 11:
            hypothesis = []  # empty hypothesis: everything deleted
        elif index % 9 == 4:
            hypothesis = [rng.choice(VOCABULARY) for _ in range(rng.randint(0, 30))]  # unrelated text
        else:
            hypothesis = mutate(rng, reference)
        pairs.append((" ".join(reference), " ".join(hypothesis)))
    return pairs


def scores(references: list[str], hypotheses: list[str]) -> dict:
    words = jiwer.process_words(references, hypotheses)
    characters = jiwer.process_characters(references, hypotheses)
    return {
        "hits": words.hits,
        "substitutions": words.substitutions,
        "deletions": words.deletions,
        "insertions": words.insertions,
        "wer": float(words.wer),
        "mer": float(words.mer),
        "characterHits": characters.hits,
        "characterSubstitutions": characters.substitutions,
        "characterDeletions": characters.deletions,
        "characterInsertions": characters.insertions,
        "cer": float(characters.cer),
    }


def main() -> None:
    rng = random.Random(SEED)
    pairs = make_pairs(rng, COUNT)
    fixture = {
        "generator": "Benchmarks/eval/make_fixture.py",
        "jiwer": importlib.metadata.version("jiwer"),
        "seed": SEED,
        "pairs": [
            {"reference": ref, "hypothesis": hyp, "expected": scores([ref], [hyp])} for ref, hyp in pairs
        ],
        "corpus": scores([p[0] for p in pairs], [p[1] for p in pairs]),
    }
    out = pathlib.Path(__file__).resolve().parents[2] / "Tests" / "Fixtures" / "eval" / "jiwer_pairs.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    # One pair per line keeps the committed file small and its diffs readable.
    body = ",\n".join(json.dumps(pair, ensure_ascii=False, separators=(",", ":")) for pair in fixture.pop("pairs"))
    head = json.dumps(fixture, ensure_ascii=False, separators=(",", ":"))[:-1]
    out.write_text(head + ',"pairs":[\n' + body + "\n]}\n")
    print(f"wrote {len(pairs)} pairs to {out} (corpus WER {fixture['corpus']['wer']:.6f})")


if __name__ == "__main__":
    main()
