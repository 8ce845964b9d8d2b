"""memplan for TensorFlow Lite for Microcontrollers (TFLM).

``plan_model`` reads a ``.tflite`` model, derives each tensor's lifetime as TFLM's
allocator does, plans the arena's head with memplan, checks the plan, and writes a copy
of the model whose ``OfflineMemoryAllocation`` metadata tells TFLM where each tensor
goes. Nothing here imports TensorFlow.

>>> import memplan.tflite
>>> plan = memplan.tflite.plan_model("model.tflite", "planned.tflite")  # doctest: +SKIP
>>> plan.height  # the head bytes to reserve in tensor_arena for these tensors  # doctest: +SKIP
"""

import os
from typing import Optional, Sequence, Tuple, Union

from ._memplan import Plan, _plan_tflite

__all__ = ["plan_model"]

_Path = Union[str, "os.PathLike[str]"]


def plan_model(
    src: _Path,
    dst: Optional[_Path],
    time_limit: Optional[float] = None,
    *,
    work_limit: Optional[Union[int, float]] = None,
    planner: str = "auto",
    capacity: Optional[int] = None,
    force: bool = False,
    threads: int = 0,
    reference_scratch: bool = True,
    scratch: Sequence[Tuple[int, int, int]] = (),
) -> Plan:
    """Plans the TFLM arena of the model at ``src`` and writes the planned model to
    ``dst`` (``None``: plan without writing).

    Returns a ``memplan.Plan`` over the tensors TFLM plans in the arena's head: ``ids``
    are the tensors' names (``name#index`` when a name repeats or is empty), ``offsets``
    their offsets from the head's start, and ``height`` the head bytes to reserve in
    ``tensor_arena`` for them. TFLM adds its persistent allocations on top.

    Kernel scratch buffers are placed by TFLM at start-up, around the plan; the plan
    leaves room for them, and they come last in ``ids`` as ``scratch:S:K:N`` (request N
    of operator K of subgraph S; their offsets are where the room is, not written to the
    model). ``reference_scratch`` leaves room for the requests of TFLM's reference
    kernels; ``scratch`` adds ``(subgraph, operator, bytes)`` requests, e.g. those of an
    optimised kernel library.

    ``time_limit``, ``work_limit``, ``planner`` and ``threads`` are those of
    ``memplan.plan``: by default a work limit, so the same model gives the same planned
    file, byte for byte, on every run. ``capacity`` fits the head under that many bytes. A model that
    already carries an offline plan raises ``InputError`` unless ``force=True``, which
    replaces it.

    Raises ``InputError`` for a file that is not a valid TFLite model or that TFLM cannot
    run (the message names the subgraph, operator, tensor or buffer),
    ``InfeasibleError``/``NoPlanFoundError`` when nothing fits under ``capacity``, and
    ``CheckError`` if a plan failed the checker (nothing is written then).
    """
    return _plan_tflite(
        os.fspath(src),
        None if dst is None else os.fspath(dst),
        planner,
        time_limit,
        capacity,
        force,
        threads,
        reference_scratch,
        [tuple(r) for r in scratch],
        work_limit,
    )
