"""Running a test file as a script."""
from __future__ import annotations

from typing import Optional


def run_module(name: str, file: str) -> Optional[int]:
    """Runs the tests of ``file`` with pytest when the file is run as a script.

    Put ``testing.run_module(__name__, __file__)`` at the end of a test file.

    Args:
        name: The file's ``__name__``.
        file: The file's ``__file__``.

    Returns:
        pytest's exit code when ``name`` is ``'__main__'``, else None (nothing runs).
    """
    if name != '__main__':
        return None
    import pytest  # only when running tests
    return int(pytest.main([file, '-v', '-x']))
