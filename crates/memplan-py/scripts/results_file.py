"""Writing a table script's output to ``benchmarks/results/``: what the script prints,
under a line naming the command, the date and the commit. The table scripts
(``banked_table.py``, ``executorch_table.py``) write their ``--out`` file only this way,
so the file is regenerated, never edited by hand."""

import datetime
import shlex
import subprocess
import sys
from pathlib import Path


class Tee:
    """Copies what is written to ``stream``; ``save(out)`` writes it to ``out`` under the
    line naming the command."""

    def __init__(self, stream):
        self.stream, self.lines = stream, []

    def write(self, text):
        self.lines.append(text)
        return self.stream.write(text)

    def flush(self):
        self.stream.flush()

    def save(self, out):
        root = Path(__file__).resolve().parents[3]
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
        cmd = " ".join(shlex.quote(a) for a in [Path(sys.executable).name, *sys.argv])
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(f"`{cmd}` on {now} (commit {commit or 'unknown'})\n\n"
                             + "".join(self.lines))
