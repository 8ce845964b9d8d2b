"""memplan: a static memory planner for ML compilers.

Buffers have half-open lifetimes ``[start, end)`` and sizes; ``plan`` gives each an
offset so that buffers live at the same time never share an address, minimising the
height (the peak address) or fitting under a capacity. The max load (the most bytes
live at one time) is a lower bound: ``plan.height == plan.max_load`` proves optimality.

>>> import memplan
>>> problem = memplan.Problem([("a", 0, 3, 4), ("b", 3, 9, 4), ("c", 0, 9, 4)])
>>> p = memplan.plan(problem)
>>> p.height, p.optimal
(8, True)
>>> memplan.check(problem, p)
8

``memplan.tflite`` plans TensorFlow Lite Micro models (no extra needed). Integrations
with PyTorch live in submodules that need the optional extras:
``memplan.torch`` (an exported program's activations as a ``Problem``; ``pip install
"memplan[torch]"``) and ``memplan.executorch`` (memplan as ExecuTorch's memory planner;
``pip install "memplan[executorch]"``).
"""

from ._memplan import (  # noqa: F401
    DEFAULT_WORK_LIMIT,
    CheckError,
    InfeasibleError,
    InputError,
    Memory,
    MemoryPlan,
    MemplanError,
    NoPlanFoundError,
    Plan,
    Problem,
    __version__,
    check,
    plan,
    plan_spill,
    planners,
    render,
    share,
)

__all__ = [
    "DEFAULT_WORK_LIMIT",
    "CheckError",
    "InfeasibleError",
    "InputError",
    "Memory",
    "MemoryPlan",
    "MemplanError",
    "NoPlanFoundError",
    "Plan",
    "Problem",
    "check",
    "plan",
    "plan_spill",
    "planners",
    "render",
    "share",
]

