"""Writes the model-like problems with shares of tests/shares/ (deterministic: a seeded
generator). Run from the repository root: python3 tests/shares/make.py

`python3 tests/shares/make.py --chains N OUT.csv` writes instead a large trace of N
buffers (BENCHMARKS §15): each new buffer, half of the time, in place of the most recent
live one (which dies there), at most 30 live at once.

- cnn.csv: a CNN-like chain of blocks: conv -> batch norm (in place of the conv) -> relu
  (in place of the batch norm), residual adds (in place of whichever input dies there),
  and concat blocks whose inputs may live inside the concat's output (optional, taken
  only where they help).
- decoder.csv: a KV-cache decoder step: per layer, the k and v caches live throughout;
  each update's result lives inside its cache (required), the attention's temporaries
  chain in place.
"""

import random


def cnn(rng):
    rows = []
    t = 0
    prev = None
    n = 0

    def buf(size, start, end=None, shares=""):
        nonlocal n
        bid = f"t{n}"
        n += 1
        rows.append([bid, start, end, size, shares])
        return len(rows) - 1

    def close(i, end):
        rows[i][2] = end

    x = buf(3 * 224 * 224 * 4, 0)
    prev = x
    skip = None
    for block in range(24):
        c = rng.choice([16, 24, 32, 64, 96])
        hw = rng.choice([14, 28, 56, 112])
        size = c * hw * hw * 4
        t += 1
        conv = buf(size, t)
        close(prev, t + 1) if prev != skip else None
        t += 1
        bn = buf(size, t, shares=f"in_place:{rows[conv][0]}")
        close(conv, t + 1)
        t += 1
        relu = buf(size, t, shares=f"in_place:{rows[bn][0]}")
        close(bn, t + 1)
        out = relu
        if skip is not None and rows[skip][3] == size and rng.random() < 0.6:
            t += 1
            add = buf(size, t, shares=f"in_place:{rows[relu][0]} in_place:{rows[skip][0]}")
            close(relu, t + 1)
            close(skip, t + 1)
            out = add
            skip = None
        elif skip is not None and rows[skip][2] is None:
            close(skip, t + 1)
            skip = None
        if rng.random() < 0.25:
            # A concat of out and a side branch of the same shape.
            t += 1
            side = buf(size, t)
            t += 1
            cat = buf(2 * size, t)
            rows[out][4] = (rows[out][4] + f" inside:{rows[cat][0]}@0").strip()
            rows[side][4] = f"inside:{rows[cat][0]}@{size}"
            close(out, t + 1)
            close(side, t + 1)
            out = cat
        if skip is None and rng.random() < 0.5:
            skip = out
        prev = out
    for r in rows:
        if r[2] is None:
            r[2] = t + 2
    return rows


def decoder(rng):
    rows = []
    t = 0
    d, positions = 256, 128
    cache = positions * d * 4
    for layer in range(4):
        for kv in "kv":
            rows.append([f"{kv}_cache{layer}", 0, None, cache, ""])
    x = 0
    rows.append(["x", 0, None, d * 4, ""])
    prev = len(rows) - 1
    for layer in range(4):
        for kv in "kv":
            t += 1
            proj = len(rows)
            rows.append([f"{kv}_proj{layer}", t, None, d * 4, ""])
            t += 1
            rows.append([f"{kv}_update{layer}", t, t + 3, cache, f"inside:{kv}_cache{layer}@0!"])
            rows[proj][2] = t + 1
        t += 1
        scores = len(rows)
        rows.append([f"scores{layer}", t, None, positions * 4, ""])
        t += 1
        rows.append([f"softmax{layer}", t, None, positions * 4, f"in_place:scores{layer}"])
        rows[scores][2] = t + 1
        t += 1
        attn = len(rows)
        rows.append([f"attn{layer}", t, None, d * 4, ""])
        rows[-2][2] = t + 1
        t += 1
        rows.append([f"residual{layer}", t, None, d * 4, f"in_place:attn{layer} in_place:{rows[prev][0]}"])
        rows[attn][2] = t + 1
        rows[prev][2] = t + 1
        prev = len(rows) - 1
    for r in rows:
        if r[2] is None:
            r[2] = t + 2
    return rows


def write(path, rows):
    with open(path, "w") as f:
        f.write("id,lower,upper,size,shares\n")
        for r in rows:
            f.write(",".join(str(v) for v in r) + "\n")


def chains(rng, n):
    rows = []
    live = []
    t = 0
    for i in range(n):
        t += 1
        size = rng.choice([1024, 2048, 4096, 8192, 65536])
        shares = ""
        if live and rng.random() < 0.5:
            j = live.pop()
            rows[j][2] = t + 1
            shares = f"in_place:b{j}"
            size = rows[j][3]
        rows.append([f"b{i}", t, None, size, shares])
        live.append(i)
        if len(live) > 30:
            k = live.pop(rng.randrange(len(live)))
            rows[k][2] = t + 1
    for r in rows:
        if r[2] is None:
            r[2] = t + 2
    return rows


if __name__ == "__main__":
    import sys

    if len(sys.argv) == 4 and sys.argv[1] == "--chains":
        write(sys.argv[3], chains(random.Random(7), int(sys.argv[2])))
    else:
        write("tests/shares/cnn.csv", cnn(random.Random(45)))
        write("tests/shares/decoder.csv", decoder(random.Random(45)))
