"""memplan.plan(problem, memories=[...]): several memories from Python (issue 36). Every
result is checked here memory by memory with memplan.check (each memory's buffers as a
problem of their own, under its capacity), against allowed sets, pins, alignments and
the traffic; test_four_doors.py compares a file's plan with the CLI's and C's."""

import json
import random
from pathlib import Path

import pytest

import memplan

ROOT = Path(__file__).resolve().parents[3]

MEMORIES = [
    memplan.Memory("tcm", capacity=10),
    memplan.Memory("ocram", capacity=8, alignment=4),
    memplan.Memory("dram"),
]


def problem():
    return memplan.Problem(
        [("a", 0, 3, 4), ("b", 0, 2, 4), ("c", 1, 3, 4), ("d", 0, 3, 4), ("e", 2, 4, 8)]
    )


def verify(problem, plan, memories, allowed=None, accesses=None):
    """Checks every memory's buffers with memplan.check, the allowed sets, alignments,
    heights, traffic and cost; returns the per-memory heights."""
    bufs = problem.buffers
    ids = problem.ids
    names = [m.name for m in memories]
    heights = {}
    for k, mem in enumerate(memories):
        keep = [i for i, m in enumerate(plan.memory) if m == mem.name]
        assert all(plan.memory_index[i] == k for i in keep)
        for i in keep:
            assert plan.offsets[i] % mem.alignment == 0
        if not keep:
            heights[mem.name] = 0
            continue
        sub = memplan.Problem([bufs[i] for i in keep], capacity=mem.capacity)
        heights[mem.name] = memplan.check(sub, [plan.offsets[i] for i in keep])
    assert plan.heights == heights
    acc = [1] * len(bufs)
    if accesses is not None:
        for i, x in enumerate(ids):
            v = accesses.get(x) if isinstance(accesses, dict) else accesses[i]
            acc[i] = 1 if v is None else v
    traffic = {n: 0 for n in names}
    for i, b in enumerate(bufs):
        traffic[plan.memory[i]] += b["size"] * acc[i]
        if allowed is not None:
            a = allowed.get(ids[i]) if isinstance(allowed, dict) else allowed[i]
            if a is not None:
                assert plan.memory[i] in ([a] if isinstance(a, str) else a)
    assert plan.traffic == traffic
    if all(m.cost is not None for m in memories):
        cost = sum(traffic[m.name] * m.cost for m in memories)
    else:
        cost = sum(traffic[n] for n in names[1:])
    assert plan.cost == cost
    assert plan.lower_bound <= plan.cost
    assert plan.optimal == (plan.cost == plan.lower_bound)
    return heights


def test_three_memories_with_allowed_sets_and_pins():
    p = problem()
    allowed = {"b": ["ocram", "dram"], "d": "tcm", "e": "dram"}
    accesses = {"a": 5, "d": 2}
    plan = memplan.plan(p, memories=MEMORIES, allowed=allowed, accesses=accesses)
    assert isinstance(plan, memplan.MemoryPlan)
    verify(p, plan, MEMORIES, allowed, accesses)
    d = plan.to_dict()
    assert d["d"][0] == "tcm" and d["e"][0] == "dram" and d["b"][0] != "tcm"
    assert d["a"][0] == "tcm"  # 20 bytes of traffic
    assert plan.cost == 16 and plan.optimal
    assert plan.memories == ["tcm", "ocram", "dram"]
    assert plan.capacities == {"tcm": 10, "ocram": 8, "dram": None}
    # The same as sequences indexed like the buffers.
    seq = memplan.plan(
        p,
        memories=MEMORIES,
        allowed=[None, ["ocram", "dram"], None, "tcm", "dram"],
        accesses=[5, 1, 1, 2, 1],
    )
    assert (seq.memory, seq.offsets, seq.cost) == (plan.memory, plan.offsets, plan.cost)


def test_costs_give_the_least_total_cost():
    p = problem()
    priced = [
        memplan.Memory("tcm", capacity=10, cost=1),
        memplan.Memory("ocram", capacity=8, alignment=4, cost=3),
        memplan.Memory("dram", cost=10),
    ]
    plan = memplan.plan(p, memories=priced, allowed={"e": "dram"})
    verify(p, plan, priced, {"e": "dram"})


def test_random_problems_are_valid_and_bounded():
    rng = random.Random(36)
    for _ in range(30):
        n = rng.randint(1, 25)
        bufs = []
        for i in range(n):
            s = rng.randrange(20)
            bufs.append((f"b{i}", s, s + rng.randint(1, 6), rng.randint(1, 64)))
        p = memplan.Problem(bufs)
        load = p.max_load()
        mems = [
            memplan.Memory("fast", capacity=load * rng.randint(10, 60) // 100, alignment=rng.choice([1, 8])),
            memplan.Memory("mid", capacity=load * rng.randint(10, 60) // 100),
            memplan.Memory("slow"),
        ]
        allowed = [rng.choice([None, None, "slow", ["mid", "slow"]]) for _ in range(n)]
        accesses = [rng.randint(0, 5) for _ in range(n)]
        plan = memplan.plan(p, memories=mems, allowed=allowed, accesses=accesses, time_limit=None)
        verify(p, plan, mems, allowed, accesses)


def test_bad_input_raises_the_packages_exceptions():
    p = problem()
    with pytest.raises(memplan.InputError, match="unknown memory 'sram'"):
        memplan.plan(p, memories=MEMORIES, allowed={"a": "sram"})
    with pytest.raises(memplan.InputError, match="duplicate memory name"):
        memplan.plan(p, memories=[memplan.Memory("x"), memplan.Memory("x")])
    with pytest.raises(memplan.InputError, match="empty"):
        memplan.plan(p, memories=MEMORIES, allowed={"a": []})
    # A buffer pinned to a memory smaller than it: no plan exists, naming it.
    with pytest.raises(memplan.InfeasibleError, match=r"memory 'tcm' \('e'\) need 8 bytes"):
        memplan.plan(
            p, memories=[memplan.Memory("tcm", capacity=6), memplan.Memory("dram")], allowed={"e": "tcm"}
        )
    with pytest.raises(ValueError):
        memplan.Memory("tcm", capacity=-1)
    with pytest.raises(memplan.InputError, match="no buffer has the id"):
        memplan.plan(p, memories=MEMORIES, accesses={"zz": 3})
    with pytest.raises(ValueError):
        memplan.plan(p, memories=MEMORIES, capacity=8)
    with pytest.raises(ValueError):
        memplan.plan(p, allowed={"a": "tcm"})


def test_pinned_buffers_that_cannot_fit_raise_infeasible_naming_them():
    p = memplan.Problem([("a", 0, 3, 6), ("b", 1, 2, 6), ("c", 0, 3, 6)])
    mems = [memplan.Memory("tcm", capacity=8), memplan.Memory("dram")]
    with pytest.raises(memplan.InfeasibleError, match=r"at time 1.*'a', 'b'.*capacity is 8"):
        memplan.plan(p, memories=mems, allowed={"a": "tcm", "b": "tcm"})


# Issue 43: every memory bounded, each memory's bound, and the plan through check/render.

FOUR = [("a", 0, 1, 79), ("b", 0, 1, 87), ("c", 0, 1, 45), ("d", 0, 1, 56)]
M1_M2 = [memplan.Memory("m1", capacity=120), memplan.Memory("m2", capacity=170)]


def test_a_later_bounded_memory_gets_a_plan_and_every_memory_its_bound():
    p = memplan.Problem(FOUR)
    mp = memplan.plan(p, memories=M1_M2, accesses=[9, 2, 2, 1])
    # The most traffic in m1 (a alone) would leave 188 bytes for m2's 170.
    assert sorted(zip(mp.ids, mp.memory)) == [("a", "m2"), ("b", "m2"), ("c", "m1"), ("d", "m1")]
    assert mp.optimal and mp.traffic == {"m1": 146, "m2": 885}
    # Four buffers: the joint search proves each memory optimal.
    assert mp.traffic_bounds == mp.traffic and mp.memory_gaps == {"m1": 0, "m2": 0}


def test_the_pooled_capacity_proof_names_the_time_buffers_and_memories():
    p = memplan.Problem([("a", 0, 1, 200), ("b", 0, 1, 200), ("c", 0, 1, 200)])
    two = [memplan.Memory("fast", capacity=256), memplan.Memory("mid", capacity=256)]
    with pytest.raises(memplan.InfeasibleError) as e:
        memplan.plan(p, memories=two)
    message = str(e.value)
    for part in ("at time 0", "'fast', 'mid'", "'a', 'b', 'c'", "600", "512"):
        assert part in message, message


def test_check_and_render_take_a_memory_plan():
    p = memplan.Problem(FOUR)
    mp = memplan.plan(p, memories=M1_M2, accesses=[9, 2, 2, 1])
    assert memplan.check(p, mp) == mp.cost == 885
    # The same plan against larger buffers: c and d collide in m1, and the checker says so.
    larger = memplan.Problem([(i, s, e, size + 10) for i, s, e, size in FOUR])
    with pytest.raises(memplan.CheckError, match="memory 'm1'.* overlap"):
        memplan.check(larger, mp)
    with pytest.raises(ValueError, match="capacities"):
        memplan.check(p, mp, capacity=100)
    svg = memplan.render(p, mp)
    # One picture, a panel per memory that holds a buffer.
    assert svg.count("<svg") == 3 and "memory m1" in svg and "memory m2" in svg


def test_alignments_need_not_be_powers_of_two():
    # A buffer alignment of 2 in a memory aligned to 3: offsets are multiples of 6.
    p = memplan.Problem([("a", 0, 2, 5, 2), ("b", 0, 2, 5, 2), ("c", 1, 3, 4)])
    mp = memplan.plan(p, memories=[memplan.Memory("tcm", capacity=64, alignment=3)])
    offsets = dict(zip(mp.ids, mp.offsets))
    assert offsets["a"] % 6 == 0 and offsets["b"] % 6 == 0 and offsets["c"] % 3 == 0
    assert memplan.check(p, mp) == mp.cost


# Issue 52: a problem file with its memories, read through the library.

THREE_CSV = ROOT / "tests" / "memories" / "three.csv"


def test_a_file_read_with_its_memories_plans_as_the_problem_built_by_hand():
    problem = memplan.Problem.from_file(str(THREE_CSV), memories=MEMORIES)
    assert [m.name for m in problem.memories] == ["tcm", "ocram", "dram"]
    assert repr(problem) == "Problem(6 buffers, memories=['tcm', 'ocram', 'dram'])"
    assert problem.memories[1].alignment == 4 and problem.memories[2].capacity is None
    plan = memplan.plan(problem)
    by_hand = memplan.plan(
        memplan.Problem.from_csv(str(THREE_CSV)),
        memories=MEMORIES,
        allowed={"b": ["ocram", "dram"], "d": "tcm", "e": "dram"},
        accesses={"a": 5, "d": 2},
    )
    assert (plan.memory, plan.offsets, plan.cost) == (by_hand.memory, by_hand.offsets, by_hand.cost)
    allowed = {"b": ["ocram", "dram"], "d": "tcm", "e": "dram"}
    verify(problem, plan, MEMORIES, allowed, {"a": 5, "d": 2})
    assert memplan.check(problem, plan) == plan.cost
    # The problem carries its memories: no others, and no per-buffer data beside them.
    with pytest.raises(ValueError, match="has its memories"):
        memplan.plan(problem, memories=MEMORIES)
    with pytest.raises(ValueError, match="has its memories"):
        memplan.plan(problem, accesses=[1] * 6)
    with pytest.raises(ValueError, match="planner"):
        memplan.plan(problem, planner="greedy")


def test_a_file_without_memories_is_a_problem_of_one_memory(tmp_path):
    problem = memplan.Problem.from_file(str(THREE_CSV))
    assert problem.memories is None and len(problem) == 6
    assert isinstance(memplan.plan(problem), memplan.Plan)
    # A JSON file's own memories section is taken without asking, as the command line does.
    path = tmp_path / "own.json"
    path.write_text(json.dumps({
        "capacity": 99,
        "memories": [{"name": "sram", "capacity": 8}, {"name": "dram"}],
        "buffers": [{"id": "a", "start": 0, "end": 2, "size": 6, "accesses": 4},
                    {"id": "b", "start": 0, "end": 2, "size": 6}],
    }))
    own = memplan.Problem.from_file(str(path))
    assert [m.name for m in own.memories] == ["sram", "dram"]
    plan = memplan.plan(own)
    assert plan.memory == ["sram", "dram"] and plan.cost == 6 and plan.optimal
    # Spill's capacity in place of the section: fast:8, slow, each buffer's cost its size.
    spill = memplan.Problem.from_file(str(path), spill=8)
    assert [m.name for m in spill.memories] == ["fast", "slow"]
    assert memplan.plan(spill).cost == 6


def test_bad_files_raise_the_packages_exceptions_naming_the_place(tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.csv"):
        memplan.Problem.from_file(str(tmp_path / "missing.csv"), memories=MEMORIES)
    with pytest.raises(IsADirectoryError):
        memplan.Problem.from_file(str(tmp_path), spill=8)
    bad = tmp_path / "bad.csv"
    bad.write_text("id,lower,upper,size,memories,accesses\na,0,3,4,,5\nb,0,2,4,sram,\n")
    with pytest.raises(memplan.InputError, match=r"bad.csv: line 3, column 'memories'.*'sram'"):
        memplan.Problem.from_file(str(bad), memories=MEMORIES)
    cost = tmp_path / "cost.csv"
    cost.write_text("id,lower,upper,size,cost,memory\na,0,3,4,x,\nb,0,2,4,,quick\n")
    with pytest.raises(memplan.InputError, match=r"cost.csv: line 2, column 'cost'"):
        memplan.Problem.from_file(str(cost), spill=8)
    cost.write_text("id,lower,upper,size,cost,memory\na,0,3,4,1,\nb,0,2,4,,quick\n")
    with pytest.raises(memplan.InputError, match=r"line 3, column 'memory'.*quick"):
        memplan.Problem.from_file(str(cost), spill=8)
    # `memory` is a plan's output unless the problem is spill's.
    with pytest.raises(memplan.InputError, match="memory"):
        memplan.Problem.from_file(str(cost), memories=MEMORIES)
    field = tmp_path / "field.json"
    field.write_text(json.dumps({"memories": [{"name": "sram"}],
                                 "buffers": [{"id": "a", "start": 0, "end": 2, "size": 6, "memories": 3}]}))
    with pytest.raises(memplan.InputError, match=r"field.json: .*buffers\[0\]\.memories"):
        memplan.Problem.from_file(str(field))
    with pytest.raises(memplan.InputError, match="no memory"):
        memplan.Problem.from_file(str(field), memories=[])
    with pytest.raises(ValueError, match="not both"):
        memplan.Problem.from_file(str(THREE_CSV), memories=MEMORIES, spill=8)
    with pytest.raises(TypeError, match="memplan.Memory"):
        memplan.Problem.from_file(str(THREE_CSV), memories=["tcm"])
