"""One planner behind every door: the library, the command line, Python and C plan the
same instance with their default options and give the same plan.

The doors are the release builds of `cargo build --release -p memplan-cli -p memplan-capi`
and `cargo build --release -p memplan --example plan_csv` (the library's door is `crates/memplan/examples/plan_csv.rs`,
which calls `memplan::plan(&problem, &Options::default())`; C is `libmemplan_capi.so` through
ctypes, with `memplan_options_default()`), and the installed `memplan` package. They are
looked for in `$MEMPLAN_RELEASE_DIR` (default `target/release`); the test skips when they
are missing, unless `MEMPLAN_REQUIRE_DOORS=1` (as in CI).

The default budget is a work limit and no clock, the same in every door (issue 37): every
door gives the same plan on every instance, including those no door proves optimal
within the budget (challenging D and J), and every plan passes the checker. The greedy
portfolio is compared the same way.

Across memories (issue 52), the command line, Python (``Problem.from_file``) and C
(``memplan_plan_file``) read the same problem files through the library
(``memplan::io::ProblemFile``: the ``memories``, ``accesses``, ``cost`` and ``memory``
columns, a JSON ``memories`` section) and give every buffer the same memory and offset,
with the memories given, the file's own, or spill's capacity.
"""

import csv
import ctypes
import json
import os
import subprocess
from pathlib import Path

import pytest

import memplan

ROOT = Path(__file__).resolve().parents[3]
INSTANCES = sorted((ROOT / "benchmarks" / "minimalloc-challenging").glob("*.csv")) + [
    ROOT / "benchmarks" / "idealloc" / "iopddl-G.csv"
] + sorted((ROOT / "tests" / "shares").glob("*.csv"))  # with a `shares` column (issue 45)


def release_dir():
    d = Path(os.environ.get("MEMPLAN_RELEASE_DIR", ROOT / "target" / "release"))
    needed = [d / "memplan", d / "libmemplan_capi.so", d / "examples" / "plan_csv"]
    missing = [str(p) for p in needed if not p.exists()]
    if missing:
        if os.environ.get("MEMPLAN_REQUIRE_DOORS") == "1":
            pytest.fail(f"doors not built: {missing}")
        pytest.skip("release doors not built: cargo build --release -p memplan-cli "
                    "-p memplan-capi && cargo build --release -p memplan --example plan_csv")
    return d


def library_door(d, path, planner):
    args = [str(d / "examples" / "plan_csv"), str(path)] + ([planner] if planner else [])
    lines = subprocess.run(args, check=True, capture_output=True, text=True).stdout.split()
    return [int(x) for x in lines[:-1]], lines[-1] == "optimal"


def cli_door(d, path, planner, tmp_path):
    out = tmp_path / f"{path.stem}.plan.csv"
    args = [str(d / "memplan"), "plan", str(path), "-o", str(out), "--quiet"]
    if planner:
        args += ["--planner", planner]
    subprocess.run(args, check=True)
    rows = out.read_text().splitlines()
    header = rows[0].split(",")
    col = header.index("offset")
    # The summary is not printed (--quiet); optimality is read from the height and the
    # max load, as `memplan plan` itself decides it.
    offsets = [int(r.split(",")[col]) for r in rows[1:]]
    return offsets, None


class CDoor:
    def __init__(self, d):
        lib = ctypes.CDLL(str(d / "libmemplan_capi.so"))

        class Options(ctypes.Structure):
            _fields_ = [("planner", ctypes.c_char_p), ("time_limit_seconds", ctypes.c_double),
                        ("threads", ctypes.c_uint32), ("fit", ctypes.c_int32),
                        ("capacity", ctypes.c_uint64), ("work_limit", ctypes.c_uint64)]

        self.Options = Options
        lib.memplan_options_default.restype = Options
        lib.memplan_problem_read_csv.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.memplan_plan.argtypes = [ctypes.c_void_p, ctypes.POINTER(Options),
                                     ctypes.POINTER(ctypes.c_void_p)]
        lib.memplan_result_len.argtypes = [ctypes.c_void_p]
        lib.memplan_result_len.restype = ctypes.c_size_t
        lib.memplan_result_offsets.argtypes = [ctypes.c_void_p]
        lib.memplan_result_offsets.restype = ctypes.POINTER(ctypes.c_uint64)
        lib.memplan_result_is_optimal.argtypes = [ctypes.c_void_p]
        lib.memplan_result_is_optimal.restype = ctypes.c_int32
        lib.memplan_last_error.restype = ctypes.c_char_p
        lib.memplan_result_free.argtypes = [ctypes.c_void_p]
        lib.memplan_problem_free.argtypes = [ctypes.c_void_p]

        class Memory(ctypes.Structure):
            _fields_ = [("name", ctypes.c_char_p), ("capacity", ctypes.c_uint64),
                        ("alignment", ctypes.c_uint64), ("cost", ctypes.c_uint64)]

        self.Memory = Memory
        lib.memplan_plan_file.argtypes = [ctypes.c_char_p, ctypes.POINTER(Memory), ctypes.c_size_t,
                                          ctypes.c_uint64, ctypes.POINTER(Options),
                                          ctypes.POINTER(ctypes.c_void_p)]
        for name, restype in [("len", ctypes.c_size_t), ("memory", ctypes.POINTER(ctypes.c_uint32)),
                              ("offsets", ctypes.POINTER(ctypes.c_uint64)),
                              ("memory_name", ctypes.c_char_p), ("free", None)]:
            f = getattr(lib, f"memplan_memories_result_{name}")
            f.argtypes = [ctypes.c_void_p] + ([ctypes.c_size_t] if name == "memory_name" else [])
            f.restype = restype
        self.lib = lib

    def plan(self, path, planner):
        lib = self.lib
        problem = ctypes.c_void_p()
        assert lib.memplan_problem_read_csv(str(path).encode(), ctypes.byref(problem)) == 0, \
            lib.memplan_last_error()
        options = lib.memplan_options_default()
        if planner:
            options.planner = planner.encode()
        result = ctypes.c_void_p()
        status = lib.memplan_plan(problem, ctypes.byref(options), ctypes.byref(result))
        assert status == 0, lib.memplan_last_error()
        n = lib.memplan_result_len(result)
        offsets = lib.memplan_result_offsets(result)[:n]
        optimal = bool(lib.memplan_result_is_optimal(result))
        lib.memplan_result_free(result)
        lib.memplan_problem_free(problem)
        return list(offsets), optimal


    def plan_file(self, path, memories=None, spill=None):
        """``memplan_plan_file`` with the default options: each buffer's memory name and
        offset."""
        lib, none = self.lib, 2**64 - 1
        array = (self.Memory * len(memories or []))(*[
            self.Memory(m.name.encode(), none if m.capacity is None else m.capacity,
                        m.alignment, none if m.cost is None else m.cost)
            for m in memories or []])
        result = ctypes.c_void_p()
        status = lib.memplan_plan_file(str(path).encode(), array if memories else None,
                                       len(memories or []), none if spill is None else spill,
                                       ctypes.byref(lib.memplan_options_default()),
                                       ctypes.byref(result))
        assert status == 0, lib.memplan_last_error()
        n = lib.memplan_memories_result_len(result)
        memory = lib.memplan_memories_result_memory(result)[:n]
        offsets = lib.memplan_memories_result_offsets(result)[:n]
        names = [lib.memplan_memories_result_memory_name(result, m).decode() for m in memory]
        lib.memplan_memories_result_free(result)
        return list(zip(names, offsets))


def python_door(path, planner):
    problem = memplan.Problem.from_csv(str(path))
    p = memplan.plan(problem, planner=planner) if planner else memplan.plan(problem)
    memplan.check(problem, p)
    return p.offsets, p.optimal


def test_the_doors_share_their_defaults():
    d = release_dir()
    c = CDoor(d)
    options = c.lib.memplan_options_default()
    # A work limit and no clock, in every door (issue 37).
    assert options.work_limit == memplan.DEFAULT_WORK_LIMIT
    assert options.time_limit_seconds == float("inf")
    assert options.planner is None and options.threads == 0
    help_text = subprocess.run([str(d / "memplan"), "plan", "--help"], check=True,
                               capture_output=True, text=True).stdout
    assert f"default: {memplan.DEFAULT_WORK_LIMIT}, as in the library" in help_text


@pytest.mark.parametrize("planner", [None, "greedy"], ids=["default", "greedy"])
@pytest.mark.parametrize("path", INSTANCES, ids=lambda p: p.stem)
def test_four_doors_give_one_plan(path, planner, tmp_path):
    d = release_dir()
    problem = memplan.Problem.from_csv(str(path))
    plans = {
        "library": library_door(d, path, planner),
        "cli": cli_door(d, path, planner, tmp_path),
        "c": CDoor(d).plan(path, planner),
        "python": python_door(path, planner),
    }
    for door, (offsets, _) in plans.items():
        memplan.check(problem, offsets)  # raises CheckError naming the violation
    # The default budget is a work limit: every door gives the same plan, including
    # on the instances no door proves optimal within it (issue 37).
    first = plans["library"][0]
    for door, (offsets, _) in plans.items():
        assert offsets == first, f"{path.name}: {door} differs from the library"


# Across memories: the same files through the command line, Python and C (issue 52).
SPILL_CSV = "id,lower,upper,size,cost,memory\na,0,3,4,9,\nb,0,2,4,3,\nc,1,3,4,5,\nd,0,3,2,,slow\n"
WITH_MEMORIES_JSON = {
    "memories": [{"name": "sram", "capacity": 8, "alignment": 4, "cost": 1},
                 {"name": "dram", "capacity": None, "cost": 10}],
    "buffers": [{"id": "w", "start": 0, "end": 4, "size": 4, "accesses": 3},
                {"id": "x", "start": 0, "end": 2, "size": 4, "memories": ["sram", "dram"]},
                {"id": "y", "start": 1, "end": 3, "size": 4, "accesses": 2},
                {"id": "z", "start": 2, "end": 4, "size": 2, "memories": "dram"}],
}
THREE = [memplan.Memory("tcm", capacity=10), memplan.Memory("ocram", capacity=8, alignment=4),
         memplan.Memory("dram")]


def memories_case(name, tmp_path):
    """The file, the memories given (and their ``--memories``), the spill capacity, and
    what every plan of the case must hold (each buffer's memory, or None: any)."""
    if name == "three":
        return (ROOT / "tests" / "memories" / "three.csv", THREE, "tcm:10,ocram:8:4,dram", None,
                [None, "ocram|dram", None, "tcm", "dram", None])
    if name == "json":
        path = tmp_path / "with_memories.json"
        path.write_text(json.dumps(WITH_MEMORIES_JSON))
        return path, None, None, None, [None, "sram|dram", None, "dram"]
    path = tmp_path / "spill.csv"
    path.write_text(SPILL_CSV)
    # d is slow (its memory column); then a, b and c overfill 8 bytes at time 1, and b
    # is the cheapest to move (cost 3).
    return path, None, None, 8, ["fast", "slow", "fast", "slow"]


@pytest.mark.parametrize("case", ["three", "json", "spill"])
def test_three_doors_plan_one_memories_file_alike(case, tmp_path):
    d = release_dir()
    path, memories, spec, spill, expected = memories_case(case, tmp_path)
    out = tmp_path / "plan.csv"
    flags = ["--memories", spec] if spec else ["--spill", "--capacity", str(spill)] if spill else []
    subprocess.run([str(d / "memplan"), "plan", str(path), *flags, "-o", str(out), "-q"], check=True)
    rows = list(csv.DictReader(out.open()))
    problem = memplan.Problem.from_file(str(path), memories=memories, spill=spill)
    assert problem.memories is not None
    plan = memplan.plan(problem)
    assert isinstance(plan, memplan.MemoryPlan) and memplan.check(problem, plan) == plan.cost
    plans = {
        "cli": [(r["memory"], int(r["offset"])) for r in rows],
        "python": list(zip(plan.memory, plan.offsets)),
        "c": CDoor(d).plan_file(path, memories, spill),
    }
    assert [r["id"] for r in rows] == problem.ids
    for door, placed in plans.items():
        assert placed == plans["python"], f"{case}: {door} differs from Python"
    for (memory, _), allowed in zip(plans["python"], expected):
        assert allowed is None or memory in allowed.split("|"), (case, plans["python"])
