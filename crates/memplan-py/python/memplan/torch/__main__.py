"""``python -m memplan.torch MODEL.pt2 [--render plan.svg]``: see ``memplan.torch.main``."""

import sys

from memplan.torch import main

sys.exit(main())
