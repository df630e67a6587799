"""The benchmark cases (benchmarks/cases/): each version computes what chainlite computes.

Every case runs one step of each row in chainlite and in its hand-written NumPy twin (and
its PyTorch twin where torch is importable); the runner's own check must find them equal.
Timings are never asserted.
"""
import importlib
import importlib.util
import inspect
import pathlib
import sys

import numpy as np
import pytest

_BENCH = pathlib.Path(__file__).resolve().parent.parent / 'benchmarks'
# Cases whose closures carry state from call to call (optimizers, recurrent state).
_STATEFUL = ('adam_update', 'static_mlp', 'mlp_step', 'resnet_step', 'lstm_lm_step')


def _script(stem):
    # benchmarks/<stem>.py as a module (loaded once; benchmarks/ is not a package).
    name = '_chainlite_benchmarks_' + stem
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, _BENCH / (stem + '.py'))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _runner():
    return _script('run')


def _case(case):
    if str(_BENCH) not in sys.path:
        sys.path.insert(0, str(_BENCH))
    return importlib.import_module('cases.' + case)


def _takes_dtype(factory):
    return 'dtype' in inspect.signature(factory).parameters


@pytest.mark.parametrize('case', _runner().CASES)
def test_numpy_twin_computes_what_chainlite_computes(case):
    # One call of each row from the same starting state, in the dtype that is timed.
    run, mod = _runner(), _case(case)
    ours, ref = mod.chainlite_case(), mod.numpy_case()
    assert set(mod.TARGETS) == set(ours) == set(ref)
    for row in mod.TARGETS:
        tol = getattr(mod, 'TOLERANCES', {}).get(row, (1e-4, 1e-6))
        result = run._check(ours[row](), ref[row](), tol)
        assert result['status'] == 'ok', (row, result)


@pytest.mark.parametrize('case', _STATEFUL)
def test_numpy_twin_carries_state_as_chainlite_does(case):
    # Later calls run on the state that earlier ones left (optimizer slots, running
    # statistics, recurrent state), which the twins must carry the same way. A float32
    # trajectory through matrix products amplifies rounding that differs with the BLAS
    # kernel of the CPU and the thread count, so a case whose twins take a ``dtype`` is
    # followed for three calls in float64, where that rounding (about 1e-13 relative after
    # three resnet steps, which amplify float32's 6e-8 to 2e-4) stays far below a tolerance
    # that still catches state carried wrongly (1e-3 and more). The others (elementwise
    # updates, Adam's normalized steps, replays of one graph) are followed in float32: their
    # differences do not grow.
    run, mod = _runner(), _case(case)
    factories = (mod.chainlite_case, mod.numpy_case)
    if all(_takes_dtype(f) for f in factories):
        ours, ref = (f(dtype=np.float64) for f in factories)
        calls, tolerances = 3, {row: (1e-8, 1e-10) for row in mod.TARGETS}
    else:
        ours, ref = (f() for f in factories)
        calls, tolerances = 2, getattr(mod, 'TOLERANCES', {})
    for row in mod.TARGETS:
        tol = tolerances.get(row, (1e-4, 1e-6))
        for call in range(calls):
            result = run._check(ours[row](), ref[row](), tol)
            assert result['status'] == 'ok', (row, call, result)


@pytest.mark.parametrize('case', ['conv2d', 'mlp_step', 'resnet_step', 'lstm_lm_step'])
def test_torch_twin_computes_what_chainlite_computes(case):
    pytest.importorskip('torch')
    run, mod = _runner(), _case(case)
    twins, note = run.torch_twins(mod)
    assert note is None and twins
    ours = mod.chainlite_case()
    for row, twin in twins.items():
        tol = getattr(mod, 'TOLERANCES', {}).get(row, (1e-4, 1e-6))
        result = run._check(ours[row](), twin(), tol, scaled_atol=1e-5)
        assert result['status'] == 'ok', (row, result)


def test_runner_skips_torch_with_a_note_when_it_is_missing(monkeypatch):
    run, mod = _runner(), _case('conv2d')
    monkeypatch.setitem(sys.modules, 'torch', None)  # import torch raises ImportError
    twins, note = run.torch_twins(mod)
    assert twins == {} and 'torch' in note


def test_runner_measures_one_round(monkeypatch):
    run = _runner()
    monkeypatch.setattr(run, 'MIN_SAMPLE_S', 0.0)
    records = run.measure('conv2d', 1, with_torch=False)
    assert [r['row'] for r in records] == ['conv2d']
    record = records[0]
    assert record['status'] == 'ok', record
    assert record['ratio'] > 0 and 'torch' not in record
    assert record['ratio_best'] == (min(record['chainlite_samples'])
                                    / min(record['numpy_samples']))
    assert run._row(record).startswith('conv2d')


def test_runner_reports_a_mismatch():
    run = _runner()
    import numpy
    assert run._check((numpy.ones(3),), (numpy.ones(3),))['status'] == 'ok'
    assert run._check((numpy.ones(3),), (numpy.zeros(3),))['status'] == 'mismatch'
    assert run._check((numpy.ones(3),), (numpy.ones(3) * 1.01,), (2e-2, 0))['status'] == 'ok'


def _instructions():
    return _script('instructions')


def test_instruction_counter_reads_callgrind_and_its_arguments():
    ins = _instructions()
    stderr = '==12== Events    : Ir\n==12== Collected : 123456789\n==12==\n'
    assert ins.collected(stderr) == 123456789
    with pytest.raises(RuntimeError, match='Collected'):
        ins.collected('valgrind: no such tool')
    assert ins.parse_calls('2,7') == (2, 7)
    for bad in ('7,2', '3', 'a,b', '-1,2'):
        with pytest.raises(SystemExit):
            ins.parse_calls(bad)
    assert ins.rows_of('static_mlp') == ['dynamic_mlp_step', 'static_mlp_step']
    line = ins.format_row('op_overhead', 35000.0, 10000.0)
    assert line.split() == ['op_overhead', '35,000', '10,000', '3.50']


def test_instruction_counter_child_calls_the_closure(monkeypatch):
    ins = _instructions()
    mod = _case('double_backward')
    calls = []
    original = mod.chainlite_case

    def counting_case():
        closures = original()
        fn = closures['double_backward']

        def counted():
            calls.append(1)
            return fn()
        return {'double_backward': counted}

    monkeypatch.setattr(mod, 'chainlite_case', counting_case)
    ins.run_closure('double_backward', 'double_backward', 'chainlite', 4)
    assert len(calls) == 3 + 4  # the warm-up, then the counted calls


@pytest.mark.slow
def test_instruction_counter_under_valgrind():
    import shutil
    if shutil.which('valgrind') is None:
        pytest.skip('valgrind is not installed')
    ins = _instructions()
    ours = ins.per_call('double_backward', 'double_backward', 'chainlite', 1, 2)
    ref = ins.per_call('double_backward', 'double_backward', 'numpy', 1, 2)
    assert ref > 10000 and ours > ref
