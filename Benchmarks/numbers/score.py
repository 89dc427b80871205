"""Scores number expressions in transcripts: value (digits right) and form (written as expected)."""
import glob, os, re, sys

sentences, work, variants = sys.argv[1], sys.argv[2], sys.argv[3:]
expected = [line.rstrip("\n").split("\t")[1].split("|") for line in open(sentences, encoding="utf-8")]


def digits(text):
    return re.sub(r"\D", "", text)


def value_ok(expression, hypothesis):
    want = digits(expression)
    runs = re.findall(r"\d[\d,.:]*", hypothesis)
    tokens = [digits(r) for r in runs]
    # a spoken digit sequence may come back as one number or as separate digits
    joined = "".join(t for t in tokens)
    return want in tokens or (len(want) > 1 and all(len(t) == 1 for t in tokens) and want in joined)


def form_ok(expression, hypothesis):
    h = " " + re.sub(r"\s+", " ", hypothesis.lower()) + " "
    e = expression.lower()
    options = {e}
    if e.endswith(" percent"):  # 18 percent / 18%
        options.add(e[: -len(" percent")] + "%")
    if re.fullmatch(r"(\d )+\d", e):  # a digit sequence: 4 7 2 9 1 / 4-7-2-9-1 / 47291
        options |= {e.replace(" ", "-"), e.replace(" ", ""), e.replace(" ", ", ")}
    return any(re.search(r"(?<![\w$.:,])" + re.escape(o) + r"(?![\w:]|[.,]\d)", h) for o in options)


print(f"{'variant':10} {'value':>8} {'form':>8}   (of {sum(len(e) for e in expected)} number expressions per voice × voices)")
scores = {}
for variant in variants:
    value = form = total = 0
    misses = []
    for path in sorted(glob.glob(os.path.join(work, variant, "*.txt"))):
        index = int(os.path.basename(path)[:2])
        hypothesis = open(path, encoding="utf-8").read().strip()
        for expression in expected[index]:
            total += 1
            v, f = value_ok(expression, hypothesis), form_ok(expression, hypothesis)
            value += v
            form += f
            if not f:
                misses.append(f"{os.path.basename(path)}: want {expression!r}: {hypothesis}")
    scores[variant] = (value / total, form / total)
    peer = scores[variants[0]]
    ratio = "" if variant == variants[0] else f"   form ×{scores[variant][1] / max(peer[1], 1e-9):.2f} vs {variants[0]}"
    print(f"{variant:10} {value / total:8.3f} {form / total:8.3f}   ({total}){ratio}")
    with open(os.path.join(work, f"{variant}-misses.txt"), "w", encoding="utf-8") as out:
        out.write("\n".join(misses) + "\n")
