"""memplan.plan_spill: spill, the short form of two memories (fast, slow), from Python; its
result is the MemoryPlan of every plan across memories. Every result is checked here by
memplan.check at both levels (the two sub-problems are built in the test), against the
preferences and costs, and against the CLI on a benchmark."""

import csv
import io
import os
import random
import subprocess
from pathlib import Path

import pytest

import memplan

ROOT = Path(__file__).resolve().parents[3]


def levels(problem, plan, capacity):
    """Checks both levels with memplan.check: the kept buffers under the capacity, the
    spilled ones among themselves. Returns (fast height, slow height)."""
    heights = []
    for slow in (False, True):
        keep = [k for k, s in enumerate(spilled(plan)) if s == slow]
        if not keep:
            heights.append(0)
            continue
        bufs = problem.buffers
        sub = memplan.Problem([bufs[k] for k in keep], capacity=None if slow else capacity)
        heights.append(memplan.check(sub, [plan.offsets[k] for k in keep]))
    return tuple(heights)


def spilled(plan):
    """True per buffer in slow memory (memory 1)."""
    assert plan.memories == ["fast", "slow"]
    assert plan.memory == [["fast", "slow"][m] for m in plan.memory_index]
    return [m == 1 for m in plan.memory_index]


def test_the_docstring_example():
    p = memplan.Problem([("a", 0, 3, 4), ("b", 0, 2, 4), ("c", 1, 3, 4)])
    s = memplan.plan_spill(p, 8, costs=[9, 3, 5])
    assert isinstance(s, memplan.MemoryPlan)
    assert s.memory == ["fast", "slow", "fast"] and spilled(s) == [False, True, False]
    assert (s.cost, s.lower_bound, s.gap, s.optimal) == (3, 3, 0, True)
    assert s.heights == {"fast": 8, "slow": 4} and s.capacities == {"fast": 8, "slow": None}
    # Each buffer's traffic is its cost: the plan's cost is the slow memory's traffic.
    assert s.traffic == {"fast": 14, "slow": 3}
    assert levels(p, s, 8) == (8, 4)
    assert memplan.check(p, s) == 3
    assert s.to_dict() == {"a": ("fast", s.offsets[0]), "b": ("slow", 0), "c": ("fast", s.offsets[2])}
    assert s.ids == ["a", "b", "c"] and len(s) == 3 and "optimal=True" in repr(s)
    assert s.elapsed >= 0
    assert "costs=None" in memplan.plan_spill.__doc__ or "plan_spill(problem" in memplan.plan_spill.__doc__


def random_case(rng, n):
    bufs = []
    for i in range(n):
        start = rng.randrange(10)
        bufs.append((f"b{i}", start, start + 1 + rng.randrange(5), 1 + rng.randrange(12)))
    problem = memplan.Problem(bufs)
    capacity = problem.max_load() * rng.randrange(30, 100) // 100
    costs = [rng.randrange(20) for _ in range(n)]
    memory = [rng.choice(["either", "either", "either", None, "fast", "slow"]) for _ in range(n)]
    return problem, max(capacity, 1), costs, memory


@pytest.mark.parametrize("seed", range(12))
def test_random_small_instances_pass_the_checker_at_both_levels(seed):
    rng = random.Random(seed)
    problem, capacity, costs, memory = random_case(rng, 4 + seed)
    try:
        s = memplan.plan_spill(problem, capacity, costs=costs, memory=memory, time_limit=None)
    except memplan.InfeasibleError:
        # The forced-fast buffers alone must not fit: some time overloads them, or the
        # exact planner cannot place them.
        fast = [problem.buffers[k] for k, m in enumerate(memory) if m == "fast"]
        assert fast
        with pytest.raises((memplan.InfeasibleError, memplan.NoPlanFoundError)):
            memplan.plan(memplan.Problem(fast), capacity=capacity, planner="exact", time_limit=None)
        return
    fast_h, slow_h = levels(problem, s, capacity)
    assert (fast_h, slow_h) == (s.heights["fast"], s.heights["slow"]) and fast_h <= capacity
    for m, slow in zip(memory, spilled(s)):
        assert m != "fast" or not slow
        assert m != "slow" or slow
    assert s.cost == sum(c for c, sp in zip(costs, spilled(s)) if sp)
    assert s.lower_bound <= s.cost


def test_default_costs_are_the_sizes():
    p = memplan.Problem([("a", 0, 2, 6), ("b", 0, 2, 5), ("c", 0, 2, 4)])
    s = memplan.plan_spill(p, 10, time_limit=None)
    # 5 bytes must go: c (4) is not enough, b (5) is the cheapest that is.
    assert spilled(s) == [False, True, False]
    assert s.cost == sum(b["size"] for b, sp in zip(p.buffers, spilled(s)) if sp) == 5
    assert s.optimal


def test_errors():
    p = memplan.Problem([("a", 0, 2, 6), ("b", 0, 2, 5)])
    with pytest.raises(memplan.InputError, match="cost"):
        memplan.plan_spill(p, 8, costs=[1])
    with pytest.raises(memplan.InputError, match="memory"):
        memplan.plan_spill(p, 8, memory=["fast"])
    with pytest.raises(memplan.InputError, match="sram"):
        memplan.plan_spill(p, 8, memory=["fast", "sram"])
    with pytest.raises(memplan.InfeasibleError):
        memplan.plan_spill(p, 8, memory=["fast", "fast"])
    with pytest.raises(ValueError, match="time_limit"):
        memplan.plan_spill(p, 8, time_limit=-1.0)
    fixed = memplan.Problem([{"id": "f", "start": 0, "end": 2, "size": 4, "fixed_offset": 0}])
    with pytest.raises(memplan.InputError, match="fixed offset"):
        memplan.plan_spill(fixed, 8, memory=["slow"])


def test_int_ids_come_back_as_ints():
    p = memplan.Problem([(7, 0, 2, 6), (9, 0, 2, 5)])
    s = memplan.plan_spill(p, 6)
    assert s.ids == [7, 9] and s.to_dict()[9] == ("slow", 0)


def cli():
    exe = os.environ.get("MEMPLAN_BIN", str(ROOT / "target" / "debug" / "memplan"))
    if not Path(exe).exists():
        pytest.skip("memplan binary not built (cargo build -p memplan-cli)")
    return exe


def test_same_result_as_the_cli_on_a_benchmark(tmp_path):
    """somas-resnet50 at 90 % of its max load, without a clock (the node limits bound
    the work, so the result depends on the input alone): the CLI and Python agree on
    every buffer's level and offset, and on the figures."""
    path = ROOT / "benchmarks" / "idealloc" / "somas-resnet50.csv"
    problem = memplan.Problem.from_csv(str(path))
    capacity = problem.max_load() * 90 // 100
    s = memplan.plan_spill(problem, capacity, time_limit=None)
    out = tmp_path / "plan.csv"
    run = subprocess.run(
        [cli(), "plan", str(path), "--capacity", str(capacity), "--spill",
         "--time-limit", "inf", "--summary-json", "-o", str(out)],
        capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert [r["memory"] for r in rows] == s.memory
    assert [int(r["offset"]) for r in rows] == s.offsets
    import json

    summary = json.loads(run.stderr.strip().splitlines()[-1])
    assert (summary["cost"], summary["lower_bound"]) == (s.cost, s.lower_bound)
    assert {m["name"]: m["height"] for m in summary["memories"]} == s.heights
    assert levels(problem, s, capacity) == (s.heights["fast"], s.heights["slow"])
    assert s.heights["fast"] <= capacity and any(spilled(s))
