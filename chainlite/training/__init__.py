"""The training loop: Trainer, updaters, extensions, triggers."""
from chainlite.training import triggers  # noqa: F401
from chainlite.training import updaters  # noqa: F401
from chainlite.training.extension import Extension  # noqa: F401
from chainlite.training.extension import make_extension  # noqa: F401
from chainlite.training.extension import PRIORITY_EDITOR  # noqa: F401
from chainlite.training.extension import PRIORITY_READER  # noqa: F401
from chainlite.training.extension import PRIORITY_WRITER  # noqa: F401
from chainlite.training.trainer import Trainer  # noqa: F401
from chainlite.training.triggers import get_trigger  # noqa: F401
from chainlite.training.triggers import IntervalTrigger  # noqa: F401
from chainlite.training.triggers import Trigger  # noqa: F401
from chainlite.training.triggers import TriggerSpec  # noqa: F401
from chainlite.training.updater import Updater  # noqa: F401
from chainlite.training.updaters import ParallelUpdater  # noqa: F401
from chainlite.training.updaters import StandardUpdater  # noqa: F401
# Last, as the extensions build on all of the above.
from chainlite.training import extensions  # noqa: F401,E402
