"""Renders plans with `memplan render`, opens the SVGs in headless Chromium, and checks
that the screenshots are not blank: many non-white pixels, several colours, and the
plot's grey background. Run by .ci/run with pytest; needs `chromium` (Debian's).

The PNG is decoded with the standard library (zlib), no imaging package needed.
"""

import os
import shutil
import struct
import subprocess
import tempfile
import zlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def memplan_bin():
    exe = os.environ.get("MEMPLAN_BIN", str(ROOT / "target" / "debug" / "memplan"))
    if not Path(exe).exists():
        pytest.skip("memplan binary not built (cargo build -p memplan-cli)")
    return exe


def decode_png(data):
    """(width, height, rows of RGB tuples) for 8-bit RGB/RGBA PNGs, non-interlaced."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
        rows.append([tuple(line[i : i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return width, height, rows


def screenshot(svg, png):
    profile = tempfile.mkdtemp(prefix="memplan-chromium-")
    try:
        subprocess.run(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                f"--screenshot={png}",
                "--window-size=1200,800",
                svg.resolve().as_uri(),
            ],
            check=True,
            timeout=120,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    finally:
        shutil.rmtree(profile, ignore_errors=True)


CASES = [
    ("minimalloc-challenging/example.12.csv", ["--capacity", "16"], []),
    ("idealloc/somas-resnet50.csv", [], []),
    ("generated-20000", [], ["gen", "--buffers", "20000", "--seed", "11"]),
]


@pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("CI"), reason="chromium is not installed"
)
@pytest.mark.parametrize("name,render_args,gen", CASES, ids=[c[0] for c in CASES])
def test_screenshot_is_not_blank(tmp_path, name, render_args, gen):
    exe = memplan_bin()
    if gen:
        problem = tmp_path / "problem.csv"
        subprocess.run([exe, *gen, "-o", str(problem)], check=True)
    else:
        problem = ROOT / "benchmarks" / name
    plan = tmp_path / "plan.csv"
    svg = tmp_path / "plan.svg"
    png = tmp_path / "plan.png"
    subprocess.run([exe, "plan", str(problem), "-q", "-o", str(plan)], check=True)
    subprocess.run(
        [exe, "render", str(problem), str(plan), "-o", str(svg), *render_args], check=True
    )
    screenshot(svg, png)
    width, height, rows = decode_png(png.read_bytes())
    assert (width, height) == (1200, 800)
    pixels = [p for row in rows for p in row]
    white = sum(1 for p in pixels if p == (255, 255, 255))
    colours = set(pixels)
    # The plot area alone is ~80% of the picture, and buffers are coloured.
    assert white < 0.5 * len(pixels), f"{white} of {len(pixels)} pixels are white"
    assert len(colours) > 20, f"only {len(colours)} colours"
    saturated = sum(1 for (r, g, b) in pixels if max(r, g, b) - min(r, g, b) > 60)
    assert saturated > 0.05 * len(pixels), "buffers are drawn in colour"
    if os.environ.get("MEMPLAN_KEEP_SCREENSHOTS"):
        shutil.copy(png, Path(os.environ["MEMPLAN_KEEP_SCREENSHOTS"]) / f"{name.replace('/', '_')}.png")
