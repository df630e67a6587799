"""gradient_check and chainlite.testing on a GPU array module, as Chainer runs them on CuPy.

Every test here runs with the GPU module installed (the strict CuPy stand-in, or real CuPy
under ``CHAINLITE_TEST_GPU=1``): ``{'use_cuda': True}`` backend configurations and ``attr.gpu``
tests run instead of being skipped, the numerical gradients are computed on the device, and
GPU results are compared with the CPU's.
"""
import io
import unittest

import numpy
import pytest

import chainlite
import chainlite.functions as F
import chainlite.links as L
from chainlite import backend
from chainlite import gradient_check
from chainlite import initializers
from chainlite import testing
from chainlite.backends import cuda
from chainlite.testing import attr


@pytest.fixture(autouse=True)
def _on_gpu(gpu_xp):
    # The unittest-style classes below cannot take fixtures: this one covers them too.
    yield gpu_xp


def _two_gpus(gpu_xp):
    # The stand-in has two; a real machine may have one.
    return gpu_xp.cuda.runtime.getDeviceCount() >= 2


def _run_unittest(cls):
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(cls)
    return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


class _WrongSin(chainlite.FunctionNode):
    # sin with a backward that is off by a factor of two.

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return numpy.sin(x),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return 2 * gy * F.cos(x),


def _wrong_sin(x):
    return _WrongSin().apply((x,))[0]


class _FlatSin(chainlite.FunctionNode):
    # sin whose backward treats cos(x) as a constant: first order right, second order wrong.

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return numpy.sin(x),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        return gy * chainlite.Variable(numpy.cos(x.array)),


# numerical_grad and check_backward / check_double_backward -------------------------------------

@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64])
def test_numerical_grad_runs_on_the_device_and_matches_the_cpu(gpu_xp, dtype):
    rng = numpy.random.default_rng(0)
    x_cpu = rng.uniform(-1, 1, (3, 4)).astype(dtype)
    gy_cpu = rng.uniform(-1, 1, (3, 4)).astype(dtype)
    x_gpu, gy_gpu = gpu_xp.asarray(x_cpu), gpu_xp.asarray(gy_cpu)
    gx_cpu, = gradient_check.numerical_grad(lambda: (x_cpu * x_cpu,), [x_cpu], [gy_cpu])
    gx_gpu, = gradient_check.numerical_grad(lambda: (x_gpu * x_gpu,), [x_gpu], [gy_gpu])
    assert isinstance(gx_gpu, gpu_xp.ndarray)
    assert gx_gpu.dtype == dtype and gx_gpu.shape == x_cpu.shape
    # (The stand-in gives the same bits; real CuPy sums the differences in its own order.)
    numpy.testing.assert_allclose(cuda.to_cpu(gx_gpu), gx_cpu, rtol=2e-3, atol=1e-6)
    # The inputs are restored after being moved in place.
    numpy.testing.assert_array_equal(cuda.to_cpu(x_gpu), x_cpu)


def test_numerical_grad_detects_a_kink_on_the_device(gpu_xp):
    x = gpu_xp.asarray(numpy.array([0.5, 0.0, -0.25]))
    with pytest.raises(gradient_check.NondifferentiableError, match='input 0, element'):
        gradient_check.numerical_grad(lambda: (gpu_xp.abs(x),), [x], [gpu_xp.ones(3)],
                                      detect_nondifferentiable=True)
    y = gpu_xp.asarray(numpy.array([0.5, 0.25]))
    gx, = gradient_check.numerical_grad(lambda: (y ** 3,), [y], [gpu_xp.ones(2)],
                                        detect_nondifferentiable=True)
    assert isinstance(gx, gpu_xp.ndarray)
    testing.assert_allclose(gx, 3 * numpy.array([0.5, 0.25]) ** 2, atol=1e-6, rtol=1e-6)


def test_check_backward_passes_and_fails_on_gpu_arrays(gpu_xp):
    x = gpu_xp.asarray(numpy.array([0.5, 1.0, 2.0]))
    gy = gpu_xp.asarray(numpy.array([0.3, -1.0, 0.7]))
    gradient_check.check_backward(F.sin, x, gy)
    gradient_check.check_backward(F.sin, x.astype(numpy.float32), gy.astype(numpy.float32),
                                  dtype=numpy.float64, atol=1e-4, rtol=1e-3)
    gradient_check.check_backward(F.sin, x, gy, detect_nondifferentiable=True)
    gradient_check.check_backward(lambda v: F.sum(F.exp(v)), x, None)
    with pytest.raises(AssertionError, match='check_backward failed'):
        gradient_check.check_backward(_wrong_sin, x, gy)


def test_check_backward_with_parameters_on_the_gpu(gpu_xp):
    rng = numpy.random.RandomState(1)
    link = L.Linear(3, 2, initialW=rng.uniform(-1, 1, (2, 3)),
                    initial_bias=rng.uniform(-1, 1, 2))
    link.to_device('@cupy:0')
    assert isinstance(link.W.array, gpu_xp.ndarray)
    W_before = cuda.to_cpu(link.W.array)
    x = gpu_xp.asarray(rng.uniform(-1, 1, (4, 3)).astype(numpy.float32))
    gy = gpu_xp.asarray(rng.uniform(-1, 1, (4, 2)).astype(numpy.float32))
    gradient_check.check_backward(link, x, gy, params=(link.W, link.b), dtype=numpy.float64,
                                  atol=1e-4, rtol=1e-3)
    # The parameters are moved on the device and put back.
    assert isinstance(link.W.array, gpu_xp.ndarray)
    numpy.testing.assert_array_equal(cuda.to_cpu(link.W.array), W_before)


def test_check_double_backward_on_gpu_arrays(gpu_xp):
    rng = numpy.random.RandomState(2)
    x, gy, ggx = (gpu_xp.asarray(rng.uniform(-1, 1, (2, 3))) for _ in range(3))
    gradient_check.check_double_backward(F.tanh, x, gy, ggx)
    gradient_check.check_double_backward(lambda a, b: a * b, (x, gy), ggx, (ggx, x))
    flat_sin = lambda v: _FlatSin().apply((v,))[0]  # noqa: E731
    gradient_check.check_backward(flat_sin, x, gy)
    with pytest.raises(AssertionError, match='check_double_backward failed'):
        gradient_check.check_double_backward(flat_sin, x, gy, ggx)


# assert_allclose -------------------------------------------------------------------------------

def test_assert_allclose_takes_gpu_arrays(gpu_xp):
    a = numpy.array([1.0, 2.0, 3.0], numpy.float32)
    testing.assert_allclose(gpu_xp.asarray(a), a)
    testing.assert_allclose(a, gpu_xp.asarray(a))
    testing.assert_allclose(chainlite.Variable(gpu_xp.asarray(a)), gpu_xp.asarray(a + 1e-7))
    with pytest.raises(AssertionError) as info:
        testing.assert_allclose(gpu_xp.asarray(a), a + numpy.array([0, 0.5, 0], 'f'))
    message = str(info.value)
    assert '1 / 3 elements differ' in message
    assert 'worst at index (1,): x=2.0, y=2.5' in message
    assert 'dtype: x float32, y float32' in message


# BackendConfig and inject_backend_tests ---------------------------------------------------------

def test_backend_config_with_cuda(gpu_xp):
    config = testing.BackendConfig({'use_cuda': True})
    assert config.skip_reason is None
    assert config.xp is gpu_xp
    assert isinstance(config.device, backend.GpuDevice) and str(config.device) == '@cupy:0'
    arrays = config.get_array((numpy.ones(2), {'t': numpy.zeros(3, numpy.int32)}))
    assert isinstance(arrays[0], gpu_xp.ndarray)
    assert isinstance(arrays[1]['t'], gpu_xp.ndarray) and arrays[1]['t'].dtype == numpy.int32

    far = testing.BackendConfig({'use_cuda': True, 'cuda_device': 7})
    assert far.skip_reason == '8 CUDA GPUs required; %d found' % (
        gpu_xp.cuda.runtime.getDeviceCount())
    if not _two_gpus(gpu_xp):
        return
    second = testing.BackendConfig({'use_cuda': True, 'cuda_device': 1,
                                    'use_cudnn': 'always', 'autotune': True})
    assert str(second.device) == '@cupy:1'
    assert second.get_array(numpy.ones(2)).device.id == 1
    with second:
        assert chainlite.config.use_cudnn == 'always' and chainlite.config.autotune
        assert gpu_xp.cuda.Device().id == 1
    assert chainlite.config.use_cudnn == 'never' and not chainlite.config.autotune
    assert gpu_xp.cuda.Device().id == 0


def test_backend_config_without_cuda_says_why(gpu_xp):
    config = testing.BackendConfig({'use_cuda': True})
    previous = cuda._install(None, 'no GPU in this test')
    try:
        assert config.skip_reason == 'CUDA GPU required: no GPU in this test'
        with pytest.raises(RuntimeError, match='no GPU in this test'):
            config.device
    finally:
        cuda._install(*previous)
    assert config.skip_reason is None


_SEEN = []


@testing.inject_backend_tests(None, [{}, {'use_cuda': True}, {'use_cuda': True,
                                                               'cuda_device': 1}])
class TestSinOnEachBackend(testing.FunctionTestCase):

    def setUp(self):
        self.check_forward_options = {'atol': 1e-6, 'rtol': 1e-6}

    def generate_inputs(self):
        return numpy.random.uniform(-2, 2, (3, 2)).astype(numpy.float32),

    def forward(self, inputs, device):
        x, = inputs
        # The inputs are on the configuration's device, non-contiguous there.
        assert device == self.backend_config.device
        assert device.is_array_supported(x.array)
        _SEEN.append((str(device), x.array.flags.c_contiguous))
        return F.sin(x),

    def forward_expected(self, inputs):
        x, = inputs
        assert isinstance(x, numpy.ndarray)
        return numpy.sin(x),


def test_function_test_case_runs_on_every_device(gpu_xp):
    del _SEEN[:]
    cases = TestSinOnEachBackend.classes
    for case in cases if _two_gpus(gpu_xp) else cases[:2]:
        result = _run_unittest(case)
        assert result.testsRun == 3 and result.wasSuccessful() and not result.skipped
    # (The numerical gradient's passes hand contiguous arrays to forward.)
    assert {('@numpy', False), ('@cupy:0', False)} <= set(_SEEN)
    assert _two_gpus(gpu_xp) == (('@cupy:1', False) in _SEEN)


def test_function_test_case_gpu_config_runs_under_unittest(gpu_xp):
    names = [c.__name__ for c in TestSinOnEachBackend.classes]
    assert 'use_cuda_true' in names[1]
    result = _run_unittest(TestSinOnEachBackend.classes[1])
    assert result.testsRun == 3 and result.wasSuccessful() and not result.skipped


def test_function_test_case_on_gpu_blames_a_wrong_backward(gpu_xp):
    @testing.inject_backend_tests(None, [{'use_cuda': True}])
    class WrongSin(testing.FunctionTestCase):
        skip_double_backward_test = True

        def generate_inputs(self):
            return numpy.random.uniform(0.5, 1, (3,)),

        def forward(self, inputs, device):
            return _wrong_sin(inputs[0]),

        def forward_expected(self, inputs):
            return numpy.sin(inputs[0]),

    result = _run_unittest(WrongSin.classes[0])
    assert result.testsRun == 3 and len(result.failures) == 1 and len(result.skipped) == 1
    assert 'FunctionTestError: backward is not implemented correctly' in result.failures[0][1]


def test_function_test_case_on_gpu_blames_host_outputs(gpu_xp):
    @testing.inject_backend_tests(['test_forward'], [{'use_cuda': True}])
    class ToHost(testing.FunctionTestCase):

        def generate_inputs(self):
            return numpy.ones((2,)),

        def forward(self, inputs, device):
            return chainlite.Variable(cuda.to_cpu(inputs[0].array)),

        def forward_expected(self, inputs):
            return inputs[0],

    result = _run_unittest(ToHost.classes[1])
    assert len(result.failures) == 1
    assert 'must return a tuple of Variables of arrays supported by device @cupy:0' \
        in result.failures[0][1]


@testing.inject_backend_tests(None, [{}, {'use_cuda': True}])
class TestLinearOnEachBackend(testing.LinkTestCase):

    param_names = ('W', 'b')

    def setUp(self):
        self.check_backward_options = {'atol': 1e-4, 'rtol': 1e-3}

    def generate_params(self):
        return (numpy.random.uniform(-1, 1, (3, 2)).astype(numpy.float32),
                numpy.random.uniform(-1, 1, (3,)).astype(numpy.float32))

    def create_link(self, initializers):
        W, b = initializers
        return L.Linear(2, 3, initialW=W, initial_bias=b)

    def generate_inputs(self):
        return numpy.random.uniform(-1, 1, (4, 2)).astype(numpy.float32),

    def forward(self, link, inputs, device):
        assert device.is_array_supported(link.W.array)
        assert device.is_array_supported(inputs[0].array)
        return link(*inputs),

    def forward_expected(self, link, inputs):
        # The link is back on the host here, as in Chainer.
        W, b = link.W.array, link.b.array
        assert isinstance(W, numpy.ndarray)
        return inputs[0].dot(W.T) + b,


@testing.inject_backend_tests(None, [{'use_cuda': True}])
class TestLinearInitializersOnGpu(testing.LinkInitializersTestCase):

    param_names = ('W',)

    def generate_params(self):
        return (initializers.Constant(0.5),)

    def get_initializers(self):
        return ([initializers.Constant(2.0), initializers.One()],)

    def create_link(self, inits):
        W, = inits
        return L.Linear(2, 3, initialW=W)

    def generate_inputs(self):
        return numpy.ones((1, 2), numpy.float32),


# attr --------------------------------------------------------------------------------------------

@attr.gpu
def test_attr_gpu_runs_where_a_gpu_is_available(gpu_xp):
    assert cuda.available and cuda.cupy is gpu_xp


@attr.multi_gpu(2)
class TestTwoGpus:

    def setup_method(self, method):
        self.devices = [chainlite.get_device('@cupy:%d' % i) for i in range(2)]

    def test_both(self):
        assert [d.device.id for d in self.devices] == [0, 1]


def test_attr_markers_skip_without_a_gpu(gpu_xp):
    @attr.gpu
    def needs_gpu():
        return 'ran'

    @attr.multi_gpu(5)
    def needs_five():
        return 'ran'

    @attr.cudnn
    def needs_cudnn():
        return 'ran'

    assert [m.name for m in needs_gpu.pytestmark] == ['gpu']
    assert needs_gpu() == 'ran'
    with pytest.raises(unittest.SkipTest, match='5 CUDA GPUs required'):
        needs_five()
    if not cuda.cudnn_enabled:
        with pytest.raises(unittest.SkipTest, match='cuDNN required'):
            needs_cudnn()
    previous = cuda._install(None, 'no GPU in this test')
    try:
        with pytest.raises(unittest.SkipTest, match='CUDA GPU required: no GPU in this test'):
            needs_gpu()
    finally:
        cuda._install(*previous)


def test_chainer_test_gpu_limit(gpu_xp, monkeypatch):
    @attr.multi_gpu(2)
    def needs_two():
        return 'ran'

    if _two_gpus(gpu_xp):
        assert needs_two() == 'ran'
    monkeypatch.setenv('CHAINER_TEST_GPU_LIMIT', '1')
    with pytest.raises(unittest.SkipTest, match='^2 GPUs required$'):
        needs_two()
    assert testing.BackendConfig({'use_cuda': True}).skip_reason is None
    assert testing.BackendConfig({'use_cuda': True, 'cuda_device': 1}).skip_reason == \
        '2 GPUs required'


# check_grads and fix_random -----------------------------------------------------------------------

def test_check_grads_on_gpu_arrays(gpu_xp):
    x = gpu_xp.asarray(numpy.array([[0.1, -0.4], [0.3, 0.8]], numpy.float32))
    testing.check_grads(lambda v: F.sin(F.exp(v)), x)
    testing.check_grads(lambda v, w: v * w, (x, x + 1), y_grad=gpu_xp.ones((2, 2)))
    with pytest.raises(AssertionError, match='check_backward failed'):
        testing.check_grads(_wrong_sin, x, order=1)


def test_fix_random_seeds_the_gpu_generator(gpu_xp):
    @testing.fix_random(seed=7)
    def draw():
        return gpu_xp.random.uniform(size=(3,))

    first, second = draw(), draw()
    assert isinstance(first, gpu_xp.ndarray)
    numpy.testing.assert_array_equal(cuda.to_cpu(first), cuda.to_cpu(second))


# unary_math_function_unittest's GPU tests --------------------------------------------------------

@testing.unary_math_function_unittest(F.sin)
class TestSinUnary(unittest.TestCase):
    pass


def test_unary_math_function_unittest_runs_its_gpu_tests(gpu_xp):
    cases = [c for c in TestSinUnary.classes]
    assert len(cases) == 6  # shapes (3, 2) and (), three dtypes
    names = unittest.defaultTestLoader.getTestCaseNames(cases[0])
    assert {'test_forward_gpu', 'test_backward_gpu', 'test_double_backward_gpu'} <= set(names)
    for case in cases:
        result = _run_unittest(case)
        assert result.wasSuccessful() and not result.skipped, result.failures
        assert result.testsRun == len(names) >= 6


# distribution_unittest's GPU tests ---------------------------------------------------------------

class _ExponentialCase(testing.distribution_unittest):
    shape, sample_shape, is_variable = (2,), (3,), True

    def setUp_configure(self):
        from scipy import stats
        from chainlite import distributions
        lam = numpy.array([0.5, 2.0], numpy.float32)
        self.dist, self.params = distributions.Exponential, {'lam': lam}
        self.scipy_dist, self.scipy_params = stats.expon, {'scale': 1 / lam}
        # (Exponential's log_prob, icdf and sample do not run on GPU arrays yet.)
        self.test_targets = {'batch_shape', 'mean', 'cdf', 'variance', 'entropy', 'stddev'}

    def sample_for_test(self):
        return numpy.random.uniform(0.1, 3, (3, 2)).astype(numpy.float32)


def test_distribution_unittest_runs_its_gpu_tests(gpu_xp):
    names = unittest.defaultTestLoader.getTestCaseNames(_ExponentialCase)
    gpu_names = [n for n in names if n.endswith('_gpu')]
    assert 'test_log_prob_gpu' in gpu_names and 'test_sample_gpu' in gpu_names
    assert len(gpu_names) == 15
    suite = unittest.TestSuite(_ExponentialCase(n) for n in gpu_names)
    result = unittest.TextTestRunner(stream=io.StringIO()).run(suite)
    assert result.wasSuccessful(), result.failures + result.errors
    assert result.testsRun - len(result.skipped) == 6  # the targets; the others say so
    case = _ExponentialCase('test_mean_gpu')
    case.setUp()
    assert isinstance(case.gpu_dist.lam.array, gpu_xp.ndarray)
    assert isinstance(case.gpu_dist.cdf(gpu_xp.asarray(case.sample_for_test())).array,
                      gpu_xp.ndarray)


# save_and_load and integer inputs ----------------------------------------------------------------

@pytest.mark.parametrize('save_and_load', [testing.save_and_load_npz,
                                           testing.save_and_load_hdf5])
def test_save_and_load_gpu_links(gpu_xp, save_and_load):
    if save_and_load is testing.save_and_load_hdf5:
        pytest.importorskip('h5py')
    src, dst = L.Linear(3, 2), L.Linear(3, 2)
    src.to_device('@cupy:0')
    dst.to_device('@cupy:0')
    save_and_load(src, dst)
    assert isinstance(dst.W.array, gpu_xp.ndarray)
    numpy.testing.assert_array_equal(cuda.to_cpu(dst.W.array), cuda.to_cpu(src.W.array))


def test_check_backward_leaves_integer_gpu_inputs_unchecked(gpu_xp):
    x = gpu_xp.asarray(numpy.random.RandomState(0).uniform(-1, 1, (4, 3)))
    t = gpu_xp.asarray(numpy.array([0, 2, 1, 2], numpy.int32))
    gradient_check.check_backward(F.softmax_cross_entropy, (x, t), None)
    gradient_check.check_double_backward(F.softmax_cross_entropy, (x, t), None,
                                         gpu_xp.ones((4, 3)))


def test_as_noncontiguous_array_stays_on_its_gpu(gpu_xp):
    from chainlite.testing import array as testing_array
    a = numpy.arange(12.0).reshape(3, 4)
    for device_id in (0, 1) if _two_gpus(gpu_xp) else (0,):
        with gpu_xp.cuda.Device(device_id):
            g = gpu_xp.asarray(a)
        out = testing_array._as_noncontiguous_array((g, None))[0]
        assert isinstance(out, gpu_xp.ndarray) and out.device.id == device_id
        assert not out.flags.c_contiguous
        numpy.testing.assert_array_equal(cuda.to_cpu(out), a)
