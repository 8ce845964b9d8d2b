"""Prints a markdown table of `memplan tflite --in-place` on the test models, measured on
TFLM's Python interpreter: per model, TFLM's head (non-persistent arena bytes, from
print_allocations()) with the plan of `memplan tflite` and with the plan of `memplan
tflite --in-place`, the change, how many tensors take an input's storage (of the
candidate pairs), and whether 50 invokes on random inputs give the original model's
outputs bit for bit.

    python scripts/tflite/inplace_table.py [MODELDIR] [--bin MEMPLAN] [-o OUT.md]

(with a python that has tflite-micro, such as the TFLM venv that .ci/run sets up).
MODELDIR defaults to tests/tflite/models; the binary to $MEMPLAN_BIN, else
target/release/memplan if built with the `tflite` command, else target/debug/memplan.
With -o, the table is also written to OUT.md (e.g. benchmarks/results/tflite_inplace.md).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import tflm  # noqa: E402
from table import default_bin, header, models_in  # noqa: E402

INVOKES = 50


def plan(exe, src, dst, *extra):
    """`memplan tflite SRC -o DST --summary-json EXTRA...`: the summary, or an error."""
    r = subprocess.run(
        [exe, "tflite", str(src), "-o", str(dst), "--summary-json", *extra],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        err = r.stderr.strip().splitlines()
        raise RuntimeError(f"exit {r.returncode}: {err[0] if err else ''}")
    return json.loads(r.stderr.strip().splitlines()[-1])


def row(name, dtype, path, exe, tmp):
    src = path.read_bytes()
    plain, shared = Path(tmp) / f"{name}.tflite", Path(tmp) / f"{name}.inplace.tflite"
    try:
        plan(exe, path, plain)
        s = plan(exe, path, shared, "--in-place")
    except RuntimeError as e:
        return f"| {name} | {dtype} | memplan tflite failed ({e}) |"
    a, b = plain.read_bytes(), shared.read_bytes()
    head0, head1 = tflm.head_bytes(a), tflm.head_bytes(b)
    frames = [tflm.random_inputs(src, 500 + i) for i in range(INVOKES)]
    want = tflm.run_stream(src, frames, tflm.generous_arena(src))
    got = tflm.run_stream(b, frames, tflm.generous_arena(b))
    same = all(
        len(x) == len(y) and all(u.dtype == v.dtype and u.tobytes() == v.tobytes() for u, v in zip(x, y))
        for x, y in zip(got, want)
    )
    ip = s["in_place"]
    change = head1 - head0
    percent = f"{100.0 * change / head0:+.1f}%" if head0 else "-"
    kinds = sorted({x["kind"] for x in ip["shared"]})
    return (
        f"| {name} | {dtype} | {head0:,} | {head1:,} | {change:+,} | {percent} | "
        f"{ip['tensors_sharing']} of {ip['candidates']} | {', '.join(kinds) or '-'} | "
        f"{'yes' if same else '**no**'} |"
    )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("modeldir", nargs="?", default=str(ROOT / "tests" / "tflite" / "models"))
    ap.add_argument("--bin", default=default_bin(), help="the memplan binary")
    ap.add_argument("-o", "--output", help="also write the table to this file")
    args = ap.parse_args(argv)
    d = Path(args.modeldir)
    lines = header(args.bin, d, " (reference kernels)") + [
        "| model | dtype | head, `memplan tflite` | head, `--in-place` | change | % "
        "| tensors sharing (of pairs) | operators shared | outputs identical, "
        f"{INVOKES} invokes |",
        "|---|---|--:|--:|--:|--:|--:|---|---|",
    ]
    for line in lines:
        print(line)
    with tempfile.TemporaryDirectory() as tmp:
        for name, dtype, path in models_in(d):
            lines.append(row(name, dtype, path, args.bin, tmp))
            print(lines[-1], flush=True)
    notes = [
        "",
        "Head: TFLM's non-persistent arena bytes (print_allocations()), the planned tensors "
        "and the kernels' scratch buffers, with each plan. `--in-place` plans with and "
        "without the in-place pairs and keeps the shared plan only when its head is lower: "
        "it is never larger. Outputs: one interpreter per model, "
        f"{INVOKES} invokes on random inputs, compared bit for bit with the original model's.",
    ]
    for line in notes:
        print(line)
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text("\n".join(lines + notes) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
