"""chainlite.distributed with GPU arrays: real 2-process ``mpiexec`` jobs in which each rank
installs the CuPy stand-in and uses its ``intra_rank`` GPU (scripts/check_gpu.py under
chainlite_tests/distributed_tests).

Every communicator ('naive', 'flat', 'dummy'; 'pure_nccl' and 'non_cuda_aware' on a
stand-in NCCL) takes GPU arrays and models: the results equal the CPU run's, come back as
GPU arrays on the rank's device, in place for models, in their dtype. A rank whose GPU work
fails stops the job. With ``CHAINLITE_TEST_GPU=1`` the ranks use real CuPy (see the
script).
"""
import importlib.util
import os
import subprocess

import pytest

pytest.importorskip('cupy', reason='the CuPy stand-in mirrors the installed CuPy')

_DIST = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                     'distributed_tests')


def _distributed_helpers():
    # distributed_tests/conftest.py: how its jobs start (mpiexec with a timeout).
    spec = importlib.util.spec_from_file_location('_distributed_tests_conftest',
                                                  os.path.join(_DIST, 'conftest.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_helpers = _distributed_helpers()
Job, _have_mpi, mpiexec = _helpers.Job, _helpers._have_mpi, _helpers.mpiexec

SCRIPT = os.path.join(_DIST, 'scripts', 'check_gpu.py')
CHECKS = [
    'check_array_collectives', 'check_object_collectives', 'check_mean_grad_and_bcast_data',
    'check_multi_node_optimizer', 'check_trainer_and_evaluator', 'check_batch_normalization',
    'check_function_send_recv', 'check_multi_node_chain_list',
    'check_scatter_dataset_and_evaluator', 'check_checkpointer', 'check_pure_nccl',
]

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not _have_mpi(), reason="needs mpi4py and mpiexec "
                                                         "(pip install -e '.[mpi]')")]


@pytest.fixture(scope='module')
def gpu_job():
    return Job(mpiexec(2, SCRIPT, timeout=240))


@pytest.mark.parametrize('check', CHECKS)
def test_check(gpu_job, check):
    gpu_job.expect(check)


def test_job_exits_cleanly(gpu_job):
    assert gpu_job.proc.returncode == 0, gpu_job.proc.stderr[-4000:]


def test_a_rank_whose_gpu_work_fails_stops_the_job():
    try:
        proc = mpiexec(2, SCRIPT, 'fail', timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail('the job hung after rank 1 failed')
    assert proc.returncode != 0
    assert 'Uncaught exception on rank 1' in proc.stderr, proc.stderr[-4000:]
    assert 'cudaErrorInvalidDevice' in proc.stderr   # rank 1's own error
    assert 'rank 1 of 2 exited' in proc.stderr and 'aborting the job' in proc.stderr


# -- the packing helpers, in this process --------------------------------------------------

def test_device_of_finds_the_gpu_or_refuses_mixes(gpu_xp):
    import numpy as np
    from chainlite.distributed.communicators import _packing
    assert _packing.device_of([np.zeros(2), np.ones(3)]) is None
    on0 = [gpu_xp.zeros(2), gpu_xp.ones(3)]
    assert _packing.device_of(on0).id == 0
    with pytest.raises(TypeError, match='NumPy and CuPy arrays are mixed'):
        _packing.device_of([np.zeros(2), on0[0]], 'multi_node_mean_grad')
    if gpu_xp.cuda.runtime.getDeviceCount() < 2:
        pytest.skip('one GPU: no second device to mix')
    with gpu_xp.cuda.Device(1):
        on1 = gpu_xp.zeros(2)
    assert _packing.device_of([on1]).id == 1
    with pytest.raises(TypeError, match='bcast_data: the arrays are on several GPUs'):
        _packing.device_of(on0 + [on1], 'bcast_data')


@pytest.mark.parametrize('device_id', [0, 1])
def test_pack_to_host_and_back_keeps_dtype_device_and_identity(gpu_xp, device_id):
    import numpy as np
    from chainlite.distributed.communicators import _packing
    if device_id >= gpu_xp.cuda.runtime.getDeviceCount():
        pytest.skip('no GPU %d here' % device_id)
    rng = np.random.RandomState(0)
    host_arrays = [rng.standard_normal(s).astype(d)
                   for s, d in [((2, 3), np.float16), ((4,), np.float32), ((), np.float64)]]
    with gpu_xp.cuda.Device(device_id):
        arrays = [gpu_xp.asarray(a) for a in host_arrays]
    device = _packing.device_of(arrays)
    scratch = _packing.Buffers()
    host = np.empty(11, np.float32)           # float16 gradients travel in float32
    _packing.pack_to_host(arrays, host, scratch, device)
    expected = np.concatenate([a.reshape(-1).astype(np.float32) for a in host_arrays])
    np.testing.assert_array_equal(host, expected)
    host *= 2
    before = [id(a) for a in arrays]
    _packing.unpack_from_host(host, arrays, scratch, device, scale=0.25)
    assert [id(a) for a in arrays] == before
    for a, h in zip(arrays, host_arrays):
        assert isinstance(a, gpu_xp.ndarray) and a.device.id == device_id and a.dtype == h.dtype
        np.testing.assert_array_equal(a.get(), (h.astype(np.float32) * 2 * 0.25).astype(h.dtype))


# -- ChainerMN's _memory_utility buffers, on the GPU ----------------------------------------

def test_memory_utility_packs_gpu_parameters_through_device_and_pinned_memory(gpu_xp):
    import numpy as np
    import chainlite.links as L
    from chainlite.distributed.communicators import _memory_utility as mu
    assert mu.cp is gpu_xp
    model = L.Linear(3, 2).to_device('@cupy:0')
    model.W.grad = gpu_xp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    model.b.grad = None
    params = mu.extract_params_set_grad(model, zero_fill=True)
    n = mu.count_grad_elements(params, zero_fill=True)
    assert n == 8
    device = mu.DeviceMemory()
    device.assign(n * 2)
    # float16 travel, as ChainerMN's allreduce_grad_dtype: b's missing gradient is zeros.
    mu.pack_params(params, 'grad', device, np.float16, zero_fill=True)
    packed = device.array(n, dtype=np.float16)
    assert isinstance(packed, gpu_xp.ndarray) and packed.dtype == np.float16
    np.testing.assert_array_equal(packed.get(), [0, 1, 2, 3, 4, 5, 0, 0])
    host = mu.HostPinnedMemory()
    host.assign(n * 2)
    host.array(n, dtype=np.float16)[...] = packed.get() * 2     # "averaged" on the host
    device.memory[:n * 2] = gpu_xp.asarray(np.frombuffer(host.buffer(n * 2), np.uint8))
    mu.unpack_params(params, 'grad', device, np.float16, zero_fill=True)
    assert isinstance(model.W.grad, gpu_xp.ndarray) and model.W.grad.dtype == np.float32
    np.testing.assert_array_equal(model.W.grad.get(), 2 * np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(model.b.grad.get(), [0, 0])
    from chainlite.distributed import nccl
    if nccl._available:
        table = mu.ParamsData(params, 'grad', zero_fill=True)
        assert (table.n_params, table.n_elems) == (2, 8)
        assert table.size_csum.get().tolist() == [0, 6, 8]
    else:
        with pytest.raises(RuntimeError, match='has no NCCL'):   # its type ids are NCCL's
            mu.ParamsData(params, 'grad', zero_fill=True)
    with pytest.raises(ValueError, match='unsupported array module'):
        device.from_device(np.zeros(2, np.float32), 8)
