"""Shares through Python (issue 45): a buffer may use another's storage, in place or
inside it; the planner takes optional shares where they lower or keep the plan."""

import pytest

import memplan

BUFFERS = [("conv", 0, 3, 8), ("relu", 2, 5, 8), ("add", 4, 7, 8), ("skip", 0, 7, 4)]
SHARES = [("relu", "conv"), ("add", "relu", "in_place")]


def test_an_in_place_chain_is_one_storage():
    problem = memplan.Problem(BUFFERS, shares=SHARES)
    assert problem.shares == [("relu", "conv", "in_place", 0, False),
                              ("add", "relu", "in_place", 0, False)]
    assert problem.max_load() == 12
    plan = memplan.plan(problem)
    assert (plan.height, plan.optimal, plan.max_load) == (12, True, 12)
    assert plan.taken_shares == [0, 1]
    off = plan.to_dict()
    assert off["conv"] == off["relu"] == off["add"]
    assert memplan.check(problem, plan) == 12
    # The same buffers without shares need 20 bytes.
    assert memplan.plan(memplan.Problem(BUFFERS)).height == 20


def test_the_checker_names_the_pair():
    problem = memplan.Problem(BUFFERS, shares=SHARES)
    with pytest.raises(memplan.CheckError) as e:
        memplan.check(problem, [0, 4, 4, 12])
    assert "'relu'" in str(e.value) and "'conv'" in str(e.value)


def test_inside_and_required_shares_and_dict_forms():
    problem = memplan.Problem(
        [("cache", 0, 10, 16), ("k", 2, 4, 4), ("update", 3, 6, 16)],
        shares=[{"buffer": "update", "target": "cache", "kind": "inside", "offset": 0,
                 "required": True}],
    )
    plan = memplan.plan(problem)
    assert plan.height == 20 and plan.taken_shares == [0]
    with pytest.raises(memplan.CheckError, match="not taken"):
        memplan.check(problem, [0, 16, 32])


def test_int_ids_and_round_trips():
    problem = memplan.Problem([(0, 0, 3, 8), (1, 2, 5, 8)], shares=[(1, 0)])
    assert problem.shares == [(1, 0, "in_place", 0, False)]
    again = memplan.Problem.from_json_text(problem.to_json())
    assert memplan.plan(again).offsets == memplan.plan(problem).offsets
    again = memplan.Problem.from_csv_text(problem.to_csv())
    assert again.shares == [("1", "0", "in_place", 0, False)]
    assert memplan.plan(again).height == 8


def test_bad_shares_raise_the_packages_errors():
    with pytest.raises(memplan.InputError, match="not a buffer of the problem"):
        memplan.Problem(BUFFERS, shares=[("relu", "nope")])
    with pytest.raises(memplan.InputError, match="read later"):
        memplan.Problem([("x", 0, 4, 8), ("y", 2, 6, 8)],
                        shares=[("y", "x", "in_place", 0, True)])
    with pytest.raises(memplan.InputError, match="in_place"):
        memplan.Problem(BUFFERS, shares=[("relu", "conv", "sideways")])
    with pytest.raises(TypeError, match="share #0"):
        memplan.Problem(BUFFERS, shares=["relu"])
    with pytest.raises(ValueError, match="unknown field 'kinds'"):
        memplan.Problem(BUFFERS, shares=[{"buffer": "relu", "target": "conv", "kinds": 1}])


def test_shares_across_memories():
    problem = memplan.Problem(BUFFERS, shares=SHARES)
    memories = [memplan.Memory("tcm", capacity=12), memplan.Memory("dram")]
    plan = memplan.plan(problem, memories=memories, accesses=[4, 4, 4, 1])
    assert plan.cost == 0 and plan.memory == ["tcm"] * 4
    assert plan.taken_shares == [0, 1]
    unshared = memplan.plan(memplan.Problem(BUFFERS), memories=memories,
                            accesses=[4, 4, 4, 1])
    assert unshared.cost > 0
