"""pytest for the Python package. Run after `pip install ./crates/memplan-py`."""

import csv
import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

import memplan

ROOT = Path(__file__).resolve().parents[3]
BENCH = ROOT / "benchmarks"
EXAMPLE = BENCH / "minimalloc-challenging" / "example.12.csv"


def overlaps(problem, offsets):
    """A tiny independent check, for the tests: no two buffers live together share bytes."""
    bufs = problem.buffers
    for i, a in enumerate(bufs):
        for j in range(i + 1, len(bufs)):
            b = bufs[j]
            if a["start"] < b["end"] and b["start"] < a["end"]:
                if offsets[i] < offsets[j] + b["size"] and offsets[j] < offsets[i] + a["size"]:
                    return (a["id"], b["id"])
    return None


def test_plan_from_tuples_and_dicts():
    problem = memplan.Problem(
        [
            ("a", 0, 3, 4),
            {"id": "b", "start": 3, "end": 9, "size": 4},
            ("c", 0, 9, 4, 4),
        ]
    )
    assert len(problem) == 3
    assert problem.ids == ["a", "b", "c"]
    p = memplan.plan(problem)
    assert isinstance(p, memplan.Plan)
    assert len(p.offsets) == 3
    assert p.height == 8 == p.max_load == p.lower_bound
    assert p.optimal
    assert p.planner in memplan.planners()
    assert memplan.check(problem, p) == 8
    assert memplan.check(problem, p.offsets) == 8
    assert memplan.check(problem, p.to_dict()) == 8
    assert overlaps(problem, p.offsets) is None


def test_every_planner_gives_a_valid_plan():
    problem = memplan.Problem.from_csv(str(BENCH / "idealloc" / "somas-resnet50.csv"))
    for name in memplan.planners():
        p = memplan.plan(problem, planner=name)
        assert memplan.check(problem, p) == p.height
        assert p.height >= p.max_load == problem.max_load()
        assert p.lower_bound <= p.height


def test_fixed_offsets_alignment_and_gaps():
    problem = memplan.Problem(
        [
            {"id": "w", "start": 0, "end": 10, "size": 64, "fixed_offset": 0},
            {"id": "t", "start": 0, "end": 10, "size": 8, "gaps": [(2, 6)]},
            {"id": "u", "start": 3, "end": 5, "size": 8, "alignment": 8},
        ]
    )
    p = memplan.plan(problem)
    assert p.offsets[0] == 0
    assert p.offsets[2] % 8 == 0
    assert p.height == 72  # u reuses t's bytes while t is idle
    memplan.check(problem, p)


def test_capacity_outcomes_are_exceptions():
    problem = memplan.Problem([("a", 0, 3, 4), ("b", 3, 9, 4), ("c", 0, 9, 4)])
    p = memplan.plan(problem, capacity=8)
    assert p.height <= 8
    with pytest.raises(memplan.InfeasibleError, match="max load is 8"):
        memplan.plan(problem, capacity=7)
    assert issubclass(memplan.InfeasibleError, memplan.MemplanError)
    # The capacity also applies to the checker.
    with pytest.raises(memplan.CheckError, match="capacity"):
        memplan.check(problem.with_capacity(7), p)


def test_issue_30_the_proven_bound_is_the_lower_bound():
    # A fixed buffer at [2, 4) and a free one of size 3, both live at 0: max load 5, but
    # the free one fits in no hole the fixed one leaves, so every plan is 7 high. The
    # greedy planners alone are proven optimal by that bound (as in C and the CLI), and
    # under 6 it proves that nothing fits.
    problem = memplan.Problem(
        [
            {"id": "F", "start": 0, "end": 2, "size": 2, "fixed_offset": 2},
            ("b", 0, 2, 3),
        ]
    )
    p = memplan.plan(problem, planner="greedy")
    assert (p.max_load, p.height, p.lower_bound, p.optimal) == (5, 7, 7, True)
    with pytest.raises(memplan.InfeasibleError, match="at least 7 high .*max load is 5"):
        memplan.plan(problem, planner="greedy", capacity=6)


def test_issue_27_no_plan_found_carries_the_lowest_plan():
    # D's best known height is 1,031,168: nothing under 990,000 is found in 0.3 s, and
    # the error carries the lowest plan over it, which passes the checker.
    problem = memplan.Problem.from_csv(str(BENCH / "minimalloc-challenging" / "D.1048576.csv"))
    with pytest.raises(memplan.NoPlanFoundError) as caught:
        memplan.plan(problem, capacity=990_000, time_limit=0.3)
    best = caught.value.best
    assert best is not None and best.height > 990_000
    assert f"{best.height}" in str(caught.value)
    assert memplan.check(problem, best) == best.height


def test_errors_carry_the_library_message():
    with pytest.raises(memplan.InputError, match="'x'.*size"):
        memplan.Problem([("x", 0, 3, 0)])
    with pytest.raises(memplan.InputError, match="duplicate id"):
        memplan.Problem([("x", 0, 3, 1), ("x", 1, 2, 1)])
    with pytest.raises(ValueError, match="unknown planner 'nope'"):
        memplan.plan(memplan.Problem([("x", 0, 3, 1)]), planner="nope")
    with pytest.raises(ValueError, match="unknown field 'sise'"):
        memplan.Problem([{"id": "x", "start": 0, "end": 3, "sise": 1}])
    with pytest.raises(memplan.InputError, match="buffer #0: 'end'"):
        memplan.Problem([("x", 0, -3, 1)])
    with pytest.raises(memplan.InputError, match="line 3"):
        memplan.Problem.from_csv_text("id,lower,upper,size\na,0,3,4\nb,0,x,4\n")
    with pytest.raises(OSError, match="nonexistent"):
        memplan.Problem.from_csv("/nonexistent/problem.csv")
    with pytest.raises(memplan.CheckError, match="'a'"):
        problem = memplan.Problem([("a", 0, 3, 4), ("b", 0, 3, 4)])
        memplan.check(problem, [0, 0])
    with pytest.raises(ValueError, match="time_limit"):
        memplan.plan(memplan.Problem([("x", 0, 3, 1)]), time_limit=-1)
    # Longer than a Duration holds: no limit, no overflow.
    assert memplan.plan(memplan.Problem([("x", 0, 3, 1)]), time_limit=1e300).height == 1


def test_share_assigns_whole_objects():
    problem = memplan.Problem.from_csv(str(EXAMPLE))
    r = memplan.share(problem)
    assert len(r["objects"]) == len(problem)
    assert r["total"] == sum(r["object_sizes"])
    assert r["lower_bound"] <= r["total"] <= r["naive"]
    # Independent check: buffers of one object are never live together, and each object
    # is as large as every buffer it holds.
    bufs = problem.buffers
    for i, a in enumerate(bufs):
        assert r["object_sizes"][r["objects"][i]] >= a["size"]
        for j in range(i + 1, len(bufs)):
            b = bufs[j]
            if r["objects"][i] == r["objects"][j]:
                assert a["end"] <= b["start"] or b["end"] <= a["start"], (a, b)
    assert memplan.share(problem, strategy="naive")["total"] == r["naive"]
    with pytest.raises(ValueError, match="unknown strategy"):
        memplan.share(problem, strategy="magic")


def test_json_round_trip(tmp_path):
    problem = memplan.Problem.from_csv(str(EXAMPLE))
    text = problem.to_json()
    again = memplan.Problem.from_json_text(text)
    assert again.buffers == problem.buffers
    path = tmp_path / "p.json"
    path.write_text(text)
    assert memplan.Problem.from_json(str(path)).ids == problem.ids
    assert json.loads(text)["buffers"][0]["id"] == problem.ids[0]
    assert memplan.Problem.from_csv_text(problem.to_csv()).buffers == problem.buffers


def test_gil_is_released_while_planning():
    problem = memplan.Problem.from_csv(str(BENCH / "idealloc" / "iopddl-G.csv"))
    ticks = []
    done = threading.Event()

    def ticker():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        p = memplan.plan(problem, planner="area-best-fit", threads=1)
    finally:
        done.set()
        t.join()
    memplan.check(problem, p)
    # While the (long) call ran, the Python thread kept ticking.
    if p.elapsed > 0.2:
        assert len(ticks) > 10


def cli():
    exe = os.environ.get("MEMPLAN_BIN", str(ROOT / "target" / "debug" / "memplan"))
    if not Path(exe).exists():
        pytest.skip("memplan binary not built (cargo build -p memplan-cli)")
    return exe


@pytest.mark.parametrize(
    "path", sorted(p for p in BENCH.rglob("*.csv")), ids=lambda p: p.name
)
def test_same_offsets_as_the_cli(path, tmp_path):
    """memplan.plan() and `memplan plan` give the same offsets on every benchmark, with
    the greedy portfolio (no clock: the result depends on the input alone). The default
    planner, under its clock, is compared through all four doors in test_four_doors.py."""
    exe = cli()
    out = tmp_path / "plan.csv"
    subprocess.run([exe, "plan", str(path), "-o", str(out), "--quiet", "--planner", "greedy"], check=True)
    with open(out, newline="") as f:
        rows = list(csv.DictReader(f))
    p = memplan.plan(memplan.Problem.from_csv(str(path)), planner="greedy")
    assert [int(r["offset"]) for r in rows] == p.offsets
    assert [r.get("id") or r.get("buffer") or r.get("buffer_id") for r in rows] == p.ids


def test_readme_python_example():
    """The ```python blocks of the README and of the Python guide (docs/python.md) run as
    written, from the repository root. The README's under "Use with ExecuTorch" needs the
    extra and has its own test (test_executorch.py)."""
    ran = 0
    for page in (ROOT / "README.md", ROOT / "docs" / "python.md"):
        blocks = []
        inside = None
        section = ""
        for line in page.read_text().splitlines():
            if line.startswith("## "):
                section = line
            if section == "## Use with ExecuTorch":
                continue
            if line.startswith("```"):
                if inside is not None:
                    blocks.append("\n".join(inside))
                    inside = None
                elif line.strip() == "```python":
                    inside = []
                continue
            if inside is not None:
                inside.append(line)
        assert blocks, f"{page.name} has a Python example"
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            for code in blocks:
                exec(compile(code, page.name, "exec"), {})
                ran += 1
        finally:
            os.chdir(cwd)
    assert ran >= 2


def test_from_arrays_takes_buffer_protocol_columns_and_sequences():
    import array

    starts = array.array("q", [0, 3, 0])
    ends = array.array("l", [3, 9, 9])
    sizes = [4, 4, 4]
    p = memplan.Problem.from_arrays(starts, ends, sizes)
    assert p.ids == [0, 1, 2]
    assert p.buffers[1] == {"id": 1, "start": 3, "end": 9, "size": 4, "alignment": 1,
                            "fixed_offset": None, "gaps": []}
    plan = memplan.plan(p)
    assert plan.height == 8 and plan.to_dict() == dict(zip(plan.ids, plan.offsets))
    named = memplan.Problem.from_arrays(
        array.array("I", [0, 3]), array.array("H", [3, 9]), array.array("B", [4, 4]),
        alignments=[1, 8], ids=["a", "b"])
    assert named.ids == ["a", "b"] and named.buffers[1]["alignment"] == 8
    inclusive = memplan.Problem.from_arrays([0, 2], [2, 4], [100, 100], lifetimes="inclusive")
    assert inclusive.max_load() == 200  # both live at 2
    with pytest.raises(ValueError, match="ends has 2 entries where starts has 3"):
        memplan.Problem.from_arrays([0, 1, 2], [1, 2], [1, 1, 1])
    with pytest.raises(ValueError, match=r"sizes\[1\]: must be a non-negative int"):
        memplan.Problem.from_arrays(array.array("q", [0, 0]), [1, 1], array.array("q", [1, -5]))
    with pytest.raises(TypeError, match="expected integers"):
        memplan.Problem.from_arrays(array.array("d", [0.0]), [1], [1])
    with pytest.raises(memplan.InputError, match="size"):
        memplan.Problem.from_arrays([0], [1], [0])


def test_from_arrays_reads_numpy_arrays_of_any_integer_type():
    np = pytest.importorskip("numpy")
    n = 1000
    starts = np.arange(n, dtype=np.int64)
    p = memplan.Problem.from_arrays(starts, starts + 2, np.full(n, 16, dtype=np.uint32),
                                    ids=np.arange(n, dtype=np.int32) * 10)
    assert len(p) == n and p.ids[:3] == [0, 10, 20] and p.max_load() == 32
    strided = memplan.Problem.from_arrays(starts[::2], starts[::2] + 1, np.ones(n, dtype=np.int8)[::2])
    assert len(strided) == n // 2 and strided.buffers[1]["start"] == 2


def test_integer_ids_are_given_back_as_ints():
    p = memplan.Problem([(7, 0, 3, 4), {"id": 9, "start": 3, "end": 9, "size": 4}])
    assert p.ids == [7, 9] and p.buffers[0]["id"] == 7
    plan = memplan.plan(p)
    assert plan.ids == [7, 9] and set(plan.to_dict()) == {7, 9}
    assert memplan.check(p, {7: 0, 9: 0}) == 4
    mixed = memplan.Problem([(7, 0, 3, 4), ("x", 3, 9, 4)])
    assert mixed.ids == ["7", "x"]
    with pytest.raises(TypeError, match="'id' must be a str or an int"):
        memplan.Problem([(True, 0, 3, 4)])


def test_inclusive_lifetimes_from_python_and_json():
    half_open = memplan.Problem([("a", 0, 2, 100), ("b", 2, 4, 100)])
    inclusive = memplan.Problem([("a", 0, 2, 100), ("b", 2, 4, 100)], lifetimes="inclusive")
    assert half_open.max_load() == 100 and inclusive.max_load() == 200
    assert inclusive.buffers[0]["end"] == 3  # stored half-open
    text = '{"buffers": [{"id": "a", "start": 0, "end": 2, "size": 100, "gaps": [[1, 1]]},' \
           ' {"id": "b", "start": 2, "end": 4, "size": 100}]}'
    assert memplan.Problem.from_json_text(text.replace(', "gaps": [[1, 1]]', "")).max_load() == 100
    j = memplan.Problem.from_json_text(text, lifetimes="inclusive")
    assert j.max_load() == 200 and j.buffers[0]["gaps"] == [(1, 2)]
    with pytest.raises(ValueError, match="lifetimes must be"):
        memplan.Problem([("a", 0, 2, 1)], lifetimes="closed")


def test_time_limit_inf_and_none_mean_no_limit():
    p = memplan.Problem.from_csv(str(EXAMPLE))
    for limit in (None, float("inf"), 1e300):
        assert memplan.plan(p, time_limit=limit).optimal
    for bad in (-1.0, float("nan"), float("-inf")):
        with pytest.raises(ValueError, match="time_limit"):
            memplan.plan(p, time_limit=bad)


def test_every_public_function_and_class_has_a_real_docstring():
    for obj in (memplan.plan, memplan.check, memplan.share, memplan.planners, memplan.render,
                memplan.Problem, memplan.Problem.from_arrays, memplan.Problem.from_csv,
                memplan.Problem.from_json, memplan.Problem.from_file, memplan.Plan,
                memplan.plan_spill, memplan.MemoryPlan):
        doc = obj.__doc__ or ""
        assert len(doc) > 60 and "memplan.pyi" not in doc, (obj, doc)
    assert "time_limit" in memplan.plan.__doc__ and "InfeasibleError" in memplan.plan.__doc__


def test_issue_27_one_lower_bound_with_fixed_buffers():
    """Issue 27: the lower bound is the max load, or the fixed buffers' top when higher,
    as in the CLI and C. Before: ``lower_bound`` 4 (the max load) and, with a capacity,
    ``optimal`` False, though no plan is below the fixed buffer's top, 20."""
    text = json.dumps({"buffers": [
        {"id": "a", "start": 0, "end": 3, "size": 4},
        {"id": "b", "start": 3, "end": 9, "size": 4, "alignment": 8, "fixed_offset": 16},
    ]})
    for capacity in (None, 128):
        p = memplan.plan(memplan.Problem.from_json_text(text), capacity=capacity)
        assert (p.height, p.max_load, p.lower_bound, p.optimal) == (20, 4, 20, True), capacity


def test_issue_27_an_empty_problem_is_valid_in_every_door():
    """Issue 27: one rule for empty problems. ``Problem([])`` plans to height 0, and its
    own ``to_csv()`` / ``to_json()`` read back (before, ``from_csv_text`` rejected the
    header alone with "no buffers")."""
    empty = memplan.Problem([])
    p = memplan.plan(empty)
    assert (p.height, p.max_load, p.lower_bound, p.optimal, len(p)) == (0, 0, 0, True, 0)
    assert memplan.check(empty, p) == 0 and memplan.check(empty, []) == 0
    assert len(memplan.Problem.from_csv_text(empty.to_csv())) == 0
    assert len(memplan.Problem.from_json_text(empty.to_json())) == 0
    assert len(memplan.Problem.from_arrays([], [], [])) == 0
    assert len(memplan.Problem.from_json_text('{"buffers": []}')) == 0
    assert memplan.render(empty, p).startswith("<svg")


@pytest.mark.parametrize("buffer, field", [
    (("x", 0, 3, -4), "size"),
    (("x", -1, 3, 4), "start"),
    (("x", 0, 3, 4, -8), "alignment"),
    (("x", 0, 3, 2**64), "size"),
    ({"id": "x", "start": 0, "end": 3, "size": -4}, "size"),
    ({"id": "x", "start": 0, "end": 3, "size": 4, "fixed_offset": -16}, "fixed_offset"),
])
def test_issue_27_a_negative_number_is_an_input_error(buffer, field):
    """Issue 27: a negative size raised ``TypeError``; it is a bad value, the package's
    ``InputError``, which is a ``ValueError`` (and a ``MemplanError``)."""
    assert issubclass(memplan.InputError, ValueError)
    assert issubclass(memplan.InputError, memplan.MemplanError)
    with pytest.raises(memplan.InputError, match=f"buffer #1: '{field}' must be a non-negative int"):
        memplan.Problem([("ok", 0, 1, 1), buffer])
    with pytest.raises(ValueError):
        memplan.Problem([("ok", 0, 1, 1), buffer])


def test_issue_27_a_value_of_the_wrong_type_is_still_a_type_error():
    with pytest.raises(TypeError, match="'size'"):
        memplan.Problem([("x", 0, 3, "4")])
    with pytest.raises(TypeError, match="'size'"):
        memplan.Problem([{"id": "x", "start": 0, "end": 3, "size": 4.0}])


def test_issue_49_11_bad_buffers_raise_input_error_and_missing_files_file_not_found(tmp_path):
    # A buffer without its end: the package's InputError (still a ValueError), naming it.
    with pytest.raises(memplan.InputError, match="buffer #0: missing 'end'"):
        memplan.Problem([{"id": "a", "start": 0, "size": 4}])
    with pytest.raises(memplan.InputError, match="unknown field 'ned'"):
        memplan.Problem([{"id": "a", "start": 0, "ned": 2, "size": 4}])
    with pytest.raises(ValueError):
        memplan.Problem([{"id": "a", "start": 0, "size": 4}])
    # A file that is not there: FileNotFoundError, as open() raises, naming it.
    missing = str(tmp_path / "nosuch.csv")
    for read in (memplan.Problem.from_csv, memplan.Problem.from_json, memplan.Problem.from_file):
        with pytest.raises(FileNotFoundError) as e:
            read(missing)
        assert e.value.filename == missing
