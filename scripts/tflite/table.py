"""Prints a markdown table of `memplan tflite` on the test models, measured on TFLM's
Python interpreter: per model, the tensors TFLM plans, TFLM's head (non-persistent arena
bytes) with its own GreedyMemoryPlanner and with memplan's offline plan, the max load
(memplan's summary), the saving, the smallest arena_size that works with each (exact to
1 byte, scripts/tflite/tflm.py), and memplan's planning time (the summary's elapsed_ms).

    python scripts/tflite/table.py [MODELDIR] [--bin MEMPLAN] [-o OUT.md]

(with a python that has tflite-micro, such as the TFLM venv that .ci/run sets up).
With -o, the table is also written to OUT.md (benchmarks/results/tflite.md), headed by
the command that wrote it.

MODELDIR defaults to tests/tflite/models; the binary to $MEMPLAN_BIN, else
target/release/memplan if built with the `tflite` command, else target/debug/memplan.
The planning time depends on the build: use a release binary for the figures that
matter.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import tflm  # noqa: E402


def has_tflite(exe):
    try:
        r = subprocess.run([str(exe), "tflite", "--help"], capture_output=True)
    except OSError:
        return False
    return r.returncode == 0


def default_bin():
    """$MEMPLAN_BIN, else the release build if it has the `tflite` command, else the
    debug build."""
    if os.environ.get("MEMPLAN_BIN"):
        return os.environ["MEMPLAN_BIN"]
    release = ROOT / "target" / "release" / "memplan"
    return str(release if has_tflite(release) else ROOT / "target" / "debug" / "memplan")


def models_in(d):
    manifest = d / "models.json"
    if manifest.exists():
        with open(manifest) as f:
            entries = json.load(f)["models"]
        return [(m["name"], m.get("dtype", ""), d / m["file"]) for m in entries]
    return [(p.stem, "", p) for p in sorted(d.glob("*.tflite"))]


def row(name, dtype, path, exe, tmp):
    src = path.read_bytes()
    dst = Path(tmp) / f"{name}.planned.tflite"
    r = subprocess.run(
        [exe, "tflite", str(path), "-o", str(dst), "--summary-json"],
        capture_output=True,
        text=True,
    )
    if r.returncode != 0:
        err = r.stderr.strip().splitlines()
        return f"| {name} | {dtype} | memplan tflite failed (exit {r.returncode}): " \
            f"{err[0] if err else ''} |"
    summary = json.loads(r.stderr.strip().splitlines()[-1])
    planned = dst.read_bytes()
    x = tflm.random_inputs(src, 0)
    out0, head0, _ = tflm.run(src, x, tflm.generous_arena(src), with_head=True)
    out1, head1, _ = tflm.run(planned, x, tflm.generous_arena(planned), with_head=True)
    same = all(a.tobytes() == b.tobytes() for a, b in zip(out0, out1))
    small0 = tflm.smallest_arena(src, x, out0)
    small1 = tflm.smallest_arena(planned, x, out1)
    saving = head0 - head1
    mark = "" if same else " (outputs differ!)"
    return (
        f"| {name} | {dtype} | {summary['tensors_planned']} | {head0:,} | {head1:,}{mark} | "
        f"{summary['tensor_max_load']:,} | {summary['height']:,} | {summary['scratch_reserved']} | "
        f"{saving:,} | {100.0 * saving / head0:.1f}% | "
        f"{small0:,} | {small1:,} | {summary['elapsed_ms']:.1f} |"
    )


def header(exe, modeldir, kernels=""):
    """A results file's first lines: the command, the date and the commit (the line that
    says what wrote the file), then the memplan binary, TFLM's version (``kernels``: a
    note after it) and the models."""
    from tflite_micro.python.tflite_micro import _version

    cmd = " ".join(shlex.quote(a) for a in [Path(sys.executable).name, *sys.argv])
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    return [
        f"`{cmd}` on {now} (commit {commit or 'unknown'})",
        "",
        f"memplan: `{exe}` ({version or 'version unknown'}); "
        f"tflite-micro {_version.__version__}{kernels}; models: `{modeldir}`",
        "",
    ]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("modeldir", nargs="?", default=str(ROOT / "tests" / "tflite" / "models"))
    ap.add_argument("--bin", default=default_bin(), help="the memplan binary")
    ap.add_argument("-o", "--output", help="also write the table to this file")
    args = ap.parse_args(argv)
    d = Path(args.modeldir)
    lines = header(args.bin, d) + [
        "| model | dtype | tensors planned | TFLM head | head with memplan | max load "
        "| memplan height | scratch | saving | saving % | smallest arena, TFLM "
        "| smallest arena, memplan | memplan ms |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for line in lines:
        print(line)
    with tempfile.TemporaryDirectory() as tmp:
        for name, dtype, path in models_in(d):
            lines.append(row(name, dtype, path, args.bin, tmp))
            print(lines[-1], flush=True)
    notes = [
        "",
        "Head: TFLM's non-persistent arena bytes (RecordingMicroAllocator), i.e. the "
        "planned tensors plus the kernels' scratch buffers TFLM plans online. Smallest "
        "arena: the smallest arena_size (bytes) with which the interpreter constructs "
        "and invokes, head + persistent tail, exact to 1 byte. Max load: the tensors' "
        "alone. memplan height: its plan, with room for the reference kernels' scratch "
        "requests (scratch: how many). memplan ms: wall-clock planning time, which depends "
        "on the machine and its load.",
    ]
    for line in notes:
        print(line)
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text("\n".join(lines + notes) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
