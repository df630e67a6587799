"""``python -m chainlite.compat``: runs a Chainer script on chainlite, unchanged.

Usage::

    python -m chainlite.compat [--numpy-legacy] SCRIPT.py [ARGS...]
    python -m chainlite.compat [--numpy-legacy] -m MODULE [ARGS...]
    python -m chainlite.compat [--numpy-legacy] -c CODE [ARGS...]

The import hook of :func:`chainlite.compat.install` is installed first, so the script's
``import chainer`` imports chainlite. The script then runs as ``python SCRIPT.py ARGS...``
would run it: as ``__main__``, with ``sys.argv`` set to ``[SCRIPT.py, *ARGS]`` and its own
folder first on ``sys.path``. ``--numpy-legacy`` also puts back the names NumPy 2 removed
(:mod:`chainlite.compat.numpy_legacy`), for code written for NumPy 1.
"""
from __future__ import annotations

import builtins
import os
import runpy
import sys

from chainlite import compat

USAGE = """\
usage: python -m chainlite.compat [--numpy-legacy] SCRIPT.py [ARGS...]
       python -m chainlite.compat [--numpy-legacy] -m MODULE [ARGS...]
       python -m chainlite.compat [--numpy-legacy] -c CODE [ARGS...]

Runs a script written for Chainer on chainlite, unchanged: `import chainer` (and every
chainer.* module, and chainerx) imports chainlite's modules. Names chainlite does not
implement fail where they are used, with an error saying so.

--numpy-legacy   also put back the names NumPy 2 removed (numpy.float, numpy.int,
                 numpy.asscalar, numpy.in1d, ...) for code written for NumPy 1; it
                 changes the numpy module for the whole process, so it is off by default
"""


def main(argv: list[str] | None = None) -> int:
    """Installs the ``chainer`` import hook and runs a script, module or code string.

    Args:
        argv: The command-line arguments after ``-m chainlite.compat``; ``sys.argv[1:]`` if
            None.

    Returns:
        The exit status: 0 after the script ran, 2 for a usage error. A ``sys.exit`` in the
        script, or an exception it raises, propagates as it would under ``python SCRIPT.py``.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    numpy_legacy = bool(argv) and argv[0] == '--numpy-legacy'
    if numpy_legacy:
        argv = argv[1:]
    if not argv or argv[0] in ('-h', '--help'):
        (sys.stdout if argv else sys.stderr).write(USAGE)
        return 0 if argv else 2
    if argv[0] in ('-c', '-m') and len(argv) < 2:
        sys.stderr.write('%s: option %s requires an argument\n%s' % (sys.argv[0], argv[0], USAGE))
        return 2
    compat.install(numpy_legacy=numpy_legacy)
    if argv[0] == '-c':
        sys.argv = ['-c', *argv[2:]]
        sys.path[0:1] = ['']
        namespace = {'__name__': '__main__', '__builtins__': builtins}
        exec(compile(argv[1], '<string>', 'exec'), namespace)
    elif argv[0] == '-m':
        sys.argv = [argv[1], *argv[2:]]
        sys.path[0:1] = [os.getcwd()]
        runpy.run_module(argv[1], run_name='__main__', alter_sys=True)
    else:
        script = argv[0]
        sys.argv = [script, *argv[1:]]
        sys.path[0:1] = [os.path.dirname(os.path.abspath(script))]
        runpy.run_path(script, run_name='__main__')
    return 0


if __name__ == '__main__':
    sys.exit(main())
