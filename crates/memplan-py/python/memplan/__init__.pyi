from ._memplan import (
    CheckError as CheckError,
    InfeasibleError as InfeasibleError,
    InputError as InputError,
    MemplanError as MemplanError,
    NoPlanFoundError as NoPlanFoundError,
    Plan as Plan,
    Problem as Problem,
    __version__ as __version__,
    check as check,
    plan as plan,
    planners as planners,
    share as share,
)
