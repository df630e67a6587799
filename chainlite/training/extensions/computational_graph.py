"""DumpGraph: write the computational graph of a reported value (the loss) as a DOT file."""
from __future__ import annotations

import os
import shutil
import subprocess
from typing import TYPE_CHECKING, Any, Optional

from chainlite import computational_graph
from chainlite import configuration
from chainlite import variable
from chainlite.training import extension

if TYPE_CHECKING:
    from chainlite.training.trainer import Trainer
def is_return_code_zero(args: list) -> bool:
    """Whether a command runs and exits with status 0 (its output is discarded).

    Args:
        args: The command and its arguments.

    Returns:
        False if the command fails or cannot be run (not found, not executable).

    Example:
        >>> import sys
        >>> from chainlite.training.extensions import computational_graph
        >>> computational_graph.is_return_code_zero([sys.executable, '-c', 'pass'])
        True
        >>> computational_graph.is_return_code_zero([sys.executable, '-c', 'exit(3)'])
        False
    """
    try:
        return subprocess.run(args, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False


def is_graphviz_available() -> bool:
    """Whether Graphviz's ``dot`` command is installed and runs (``dot -V``).

    Returns:
        True if :class:`DumpGraph` can render its PNG image too.
    """
    return shutil.which('dot') is not None and is_return_code_zero(['dot', '-V'])


_VARIABLE_STYLE = {'shape': 'octagon', 'fillcolor': '#E0E0E0', 'style': 'filled'}
_FUNCTION_STYLE = {'shape': 'record', 'fillcolor': '#6495ED', 'style': 'filled'}


class DumpGraph(extension.Extension):
    """Trainer extension writing the graph of a reported variable in the DOT language, once.

    Reported variables normally lose their graph (the reporter detaches them). So
    :meth:`initialize` turns ``chainlite.config.keep_graph_on_report`` on; at its first call,
    after the first update, the extension builds the graph of
    ``trainer.observation[root_name]`` with
    :func:`~chainlite.computational_graph.build_computational_graph`, writes it to
    ``trainer.out/filename``, and sets the flag back. If Graphviz's ``dot`` command is
    installed, a PNG image is rendered beside the file too. Keep the default trigger: it fires
    at the first call only, and the graph is held in memory until then.

    Args:
        root_name: The observation key of the graph's root, e.g. ``'main/loss'``.
        filename: The output file name, relative to the trainer's ``out`` (``'cg.dot'`` if
            None; Chainer's older keyword ``out_name`` is accepted too).
        variable_style: DOT attributes of variable nodes; grey octagons if None.
        function_style: DOT attributes of function nodes; blue records if None.

    Raises:
        TypeError: For an unexpected keyword argument.

    Example:
        >>> from chainlite.training import extensions
        >>> ext = extensions.DumpGraph('main/loss')
        >>> ext.default_name
        'dump_graph'
    """

    default_name = 'dump_graph'

    def __init__(self, root_name: str, filename: Optional[str] = None,
                 variable_style: Optional[dict] = None, function_style: Optional[dict] = None,
                 **kwargs: Any) -> None:
        out_name = kwargs.pop('out_name', 'cg.dot')
        if kwargs:
            raise TypeError('DumpGraph() got unexpected keyword argument(s) %s'
                            % ', '.join(repr(k) for k in sorted(kwargs)))
        self._root_name = root_name
        self._filename = out_name if filename is None else filename
        self._variable_style = _VARIABLE_STYLE if variable_style is None else variable_style
        self._function_style = _FUNCTION_STYLE if function_style is None else function_style
        self._original_flag: Optional[bool] = None
        self._flag_called = False

    def initialize(self, trainer: Trainer) -> None:
        """Turns ``keep_graph_on_report`` on until the graph is written."""
        if not self._flag_called:
            self._original_flag = configuration.config.keep_graph_on_report
            configuration.config.keep_graph_on_report = True

    def trigger(self, trainer: Trainer) -> bool:
        """The extension's own trigger: True at the first call only."""
        if self._flag_called:
            return False
        self._flag_called = True
        return True

    def __call__(self, trainer: Trainer) -> None:
        """Writes the graph of ``trainer.observation[root_name]`` and restores the flag.

        Raises:
            KeyError: If nothing was reported under ``root_name``.
            TypeError: If the reported value is not a Variable.
        """
        try:
            var = trainer.observation[self._root_name]
            if not isinstance(var, variable.Variable):
                raise TypeError('DumpGraph: the value reported as %r is a %s, not a Variable'
                                % (self._root_name, type(var).__name__))
            dot = computational_graph.build_computational_graph(
                [var], variable_style=self._variable_style,
                function_style=self._function_style).dump()
            path = os.path.join(trainer.out, self._filename)
            with open(path, 'w') as f:
                f.write(dot)
            if is_graphviz_available():
                image = os.path.join(trainer.out, os.path.splitext(self._filename)[0] + '.png')
                subprocess.run(['dot', '-Tpng', path, '-o', image], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        finally:
            configuration.config.keep_graph_on_report = bool(self._original_flag)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads whether the graph was written, and the flag to restore."""
        flag = serializer('_original_flag', self._original_flag)
        self._original_flag = None if flag is None else bool(flag)
        self._flag_called = bool(serializer('_flag_called', self._flag_called))


dump_graph = DumpGraph
