import subprocess
import sys
import textwrap
import unittest

import numpy as np
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import testing


@testing.inject_backend_tests(None, [{}, {'use_cuda': True}])
class TestSin(testing.FunctionTestCase):

    def setUp(self):
        self.check_forward_options = {'atol': 1e-6, 'rtol': 1e-6}

    def generate_inputs(self):
        return np.random.uniform(-2, 2, (3, 2)).astype(np.float32),

    def forward(self, inputs, device):
        x, = inputs
        return F.sin(x),

    def forward_expected(self, inputs):
        x, = inputs
        return np.sin(x),


class TestLinear(testing.LinkTestCase):

    param_names = ('W', 'b')

    def generate_params(self):
        return (np.random.uniform(-1, 1, (3, 2)).astype(np.float32),
                np.random.uniform(-1, 1, (3,)).astype(np.float32))

    def create_link(self, initializers):
        initialW, initial_bias = initializers
        return L.Linear(2, 3, initialW=initialW, initial_bias=initial_bias)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (4, 2)).astype(np.float32),

    def forward_expected(self, link, inputs):
        x, = inputs
        return x.dot(link.W.array.T) + link.b.array,


class TestLinearInitializers(testing.LinkInitializersTestCase):

    param_names = ('W', 'b')

    def generate_params(self):
        return chainlite.initializers.Constant(0.5), chainlite.initializers.Constant(0.25)

    def create_link(self, initializers):
        initialW, initial_bias = initializers
        return L.Linear(None, 3, initialW=initialW, initial_bias=initial_bias)

    def generate_inputs(self):
        return np.ones((1, 2), np.float32),

    def get_initializers(self):
        return ([chainlite.initializers.Constant(1), 2],
                [3, testing.InitializerArgument(None, 0)])


def _run_unittest(cls):
    import io
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(cls)
    return unittest.TextTestRunner(stream=io.StringIO()).run(suite)


class _WrongSin(testing.FunctionTestCase):
    # A deliberately wrong function: forward is right, backward is sin' = -cos (sign flipped).
    # Run by the tests below and expected to fail, so pytest must not collect it.
    __test__ = False

    def generate_inputs(self):
        return np.random.uniform(-2, 2, (3,)).astype(np.float64),

    def forward(self, inputs, device):
        x, = inputs
        return _wrong_sin(x),

    def forward_expected(self, inputs):
        x, = inputs
        return np.sin(x),


class _WrongSinNode(chainlite.FunctionNode):
    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return np.sin(x),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return -F.cos(x) * gy,


def _wrong_sin(x):
    return _WrongSinNode().apply((x,))[0]


def test_wrong_function_fails_backward_only():
    result = _run_unittest(_WrongSin)
    failed = sorted(case.id().rsplit('.', 1)[1] for case, _ in result.failures)
    # The double-backward check differentiates the (wrong) backward itself, consistently.
    assert failed == ['test_backward']
    assert 'backward is not implemented correctly' in result.failures[0][1]
    assert 'FunctionTestError' in result.failures[0][1]


def test_wrong_forward_fails_under_pytest(tmp_path):
    path = tmp_path / 'test_wrong.py'
    path.write_text(textwrap.dedent('''
        import numpy as np
        import chainlite.functions as F
        from chainlite import testing

        @testing.inject_backend_tests(None, [{}])
        class TestWrongCos(testing.FunctionTestCase):
            skip_backward_test = True
            skip_double_backward_test = True

            def generate_inputs(self):
                return np.random.uniform(-1, 1, (2,)),

            def forward(self, inputs, device):
                return F.sin(inputs[0]),

            def forward_expected(self, inputs):
                return np.cos(inputs[0]),
    '''))
    proc = subprocess.run(
        [sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-rs', str(path)],
        capture_output=True, text=True, cwd=str(tmp_path), timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert '1 failed, 2 skipped' in proc.stdout
    assert 'Outputs do not match the expected values' in proc.stdout
    assert 'skip_backward_test is set' in proc.stdout


def test_gpu_config_is_skipped_with_reason():
    names = [c.__name__ for c in TestSin.classes]
    assert len(names) == 2 and 'use_cuda_true' in names[1]
    result = _run_unittest(TestSin.classes[1])
    assert result.testsRun == 3 and len(result.skipped) == 3
    assert 'CUDA GPU required' in result.skipped[0][1]


def test_cpu_config_passes_under_unittest():
    result = _run_unittest(TestSin.classes[0])
    assert result.wasSuccessful() and result.testsRun == 3 and not result.skipped


def test_modified_input_is_reported():
    class Modifying(testing.FunctionTestCase):
        skip_backward_test = skip_double_backward_test = True

        def generate_inputs(self):
            return np.ones((2,)),

        def forward(self, inputs, device):
            inputs[0].array[...] = 0
            return inputs[0] * 1,

        def forward_expected(self, inputs):
            return inputs[0].copy(),

    with pytest.raises(testing.FunctionTestError, match='modified during forward'):
        Modifying('test_forward').test_forward()


def test_forward_must_return_tuple_of_variables():
    class NotTuple(_WrongSin):
        def forward(self, inputs, device):
            return F.sin(inputs[0])

    with pytest.raises(testing.FunctionTestError, match='must return a tuple'):
        NotTuple('test_forward').test_forward()


def test_wrong_link_param_fails():
    class Missing(TestLinear):
        param_names = ('W', 'nope')

    with pytest.raises(testing.LinkTestError, match="named 'nope'"):
        Missing('test_backward').test_backward()


def test_wrong_initializer_fails():
    class Wrong(TestLinearInitializers):
        def get_initializers(self):
            return [testing.InitializerArgument(None, 5)], []

    with pytest.raises(testing.LinkTestError, match='do not match'):
        Wrong('test_initializers').test_initializers()
