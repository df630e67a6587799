"""What .ci/run runs beyond the README's test command: the ``numerics`` tests (marked in
chainlite_tests/conftest.py) again with another BLAS thread count, and the whole suite on the
oldest NumPy."""
import importlib.util
import pathlib

_ROOT = pathlib.Path(__file__).resolve().parent.parent


def _conftest():
    spec = importlib.util.spec_from_file_location(
        '_chainlite_tests_conftest', _ROOT / 'chainlite_tests' / 'conftest.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_numerics_path_exists():
    for path in _conftest().NUMERICS:
        target = _ROOT / 'chainlite_tests' / path
        assert target.is_dir() if path.endswith('/') else target.is_file(), path


def test_ci_runs_the_numerics_tests_again_with_other_blas_threads():
    script = (_ROOT / '.ci' / 'run').read_text(encoding='utf-8')
    second = [line for line in script.splitlines() if '-m "numerics and not slow"' in line]
    assert second and 'OPENBLAS_NUM_THREADS=' in second[0], second
    # The machine's OpenBLAS core type and cache size stay as the machine sets them.
    assert 'OPENBLAS_CORETYPE=' not in script and 'OPENBLAS_L2_SIZE=' not in script
    assert 'unset OPENBLAS' not in script


def test_ci_runs_the_suite_on_the_oldest_numpy_too():
    script = (_ROOT / '.ci' / 'run').read_text(encoding='utf-8')
    assert 'pip install --quiet "numpy==${oldest}.*"' in script
    after = script[script.index('numpy==${oldest}'):]
    assert 'python -m pytest' in after
