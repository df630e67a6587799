from unittest import mock

import pytest

from chainlite.backends import cuda
from chainlite.functions.pooling import pooling_nd_kernel


class _SumForward(pooling_nd_kernel.PoolingNDKernelForward):

    def name(self):
        return 'sum'

    def in_params(self):
        return (['raw S extra'], ['T scale'])

    def out_params(self):
        return ['S count']

    def before(self):
        return 'T val = 0;'

    def main(self, offset, xs):
        return 'val = val + in[%s];\n// at %s' % (offset, ', '.join(xs))

    def after(self, out_xs):
        return 'out = val * scale;  // %s' % ', '.join(out_xs)


class _SumBackward(pooling_nd_kernel.PoolingNDKernelBackward):

    def name(self):
        return 'sum'

    def before(self):
        return 'T val = 0;'

    def main(self, offset, xs, out_xs):
        return 'val = val + gy[%s];' % offset

    def after(self, xs):
        return 'gx = val;'


def test_forward_2d_text():
    in_params, out_params, operation, name = _SumForward.generate(2)
    assert name == 'sum_pool_2d_fwd'
    assert in_params == ('raw T in, raw S extra, int32 d_0, int32 d_1, int32 out_0, int32 out_1, '
                         'int32 k_0, int32 k_1, int32 s_0, int32 s_1, int32 p_0, int32 p_1, '
                         'T scale')
    assert out_params == 'T out, S count'
    assert operation.split('\n') == [
        'int c0 = i / (out_0 * out_1);',
        'int out_x_0 = i / (out_1) % out_0;',
        'int out_x_1 = i % out_1;',
        'int in_x0_0 = max(0, out_x_0 * s_0 - p_0);',
        'int in_x1_0 = min(d_0, out_x_0 * s_0 + k_0 - p_0);',
        'int in_x0_1 = max(0, out_x_1 * s_1 - p_1);',
        'int in_x1_1 = min(d_1, out_x_1 * s_1 + k_1 - p_1);',
        'T val = 0;',
        'for (int x_0 = in_x0_0; x_0 < in_x1_0; ++x_0) {',
        '  int offset_0 = d_1 * (x_0 + d_0 * c0);',
        '  for (int x_1 = in_x0_1; x_1 < in_x1_1; ++x_1) {',
        '    int offset_1 = 1 * (x_1 + offset_0);',
        '    val = val + in[offset_1];',
        '    // at x_0, x_1',
        '  }',
        '}',
        'out = val * scale;  // out_x_0, out_x_1',
    ]


def test_backward_2d_text():
    in_params, out_params, operation, name = _SumBackward.generate(2)
    assert name == 'sum_pool_2d_bwd'
    assert in_params.startswith('raw T gy, int32 d_0, int32 d_1, int32 out_0')
    assert in_params.endswith('int32 p_1')
    assert out_params == 'T gx'
    assert operation.split('\n') == [
        'int c0  = i / (d_0 * d_1);',
        'int x_0 = i / (d_1) % d_0 + p_0;',
        'int x_1 = i % d_1 + p_1;',
        'int out_x0_0 = max(0, (x_0 - k_0 + s_0) / s_0);',
        'int out_x1_0 = min(out_0, (x_0 + s_0) / s_0);',
        'int out_x0_1 = max(0, (x_1 - k_1 + s_1) / s_1);',
        'int out_x1_1 = min(out_1, (x_1 + s_1) / s_1);',
        'T val = 0;',
        'for (int out_x_0 = out_x0_0; out_x_0 < out_x1_0; ++out_x_0) {',
        '  int offset_0 = out_1 * (out_x_0 + out_0 * c0);',
        '  for (int out_x_1 = out_x0_1; out_x_1 < out_x1_1; ++out_x_1) {',
        '    int offset_1 = 1 * (out_x_1 + offset_0);',
        '    val = val + gy[offset_1];',
        '  }',
        '}',
        'gx = val;',
    ]


def test_the_templates_name_what_a_subclass_must_write():
    with pytest.raises(NotImplementedError, match='name'):
        pooling_nd_kernel.PoolingNDKernelForward()._generate(2)
    with pytest.raises(NotImplementedError, match='name'):
        pooling_nd_kernel.PoolingNDKernelBackward()._generate(2)


@pytest.mark.parametrize('kernel', [pooling_nd_kernel.PoolingNDKernelForward,
                                    pooling_nd_kernel.PoolingNDKernelBackward])
@pytest.mark.parametrize('ndim', [2, 3, 4])
def test_generate_is_cached_per_ndim(kernel, ndim):
    cuda.clear_memo()
    with mock.patch.object(kernel, '_generate', return_value='text') as m:
        assert kernel.generate(ndim) == 'text'
        kernel.generate(ndim)
        m.assert_called_once_with(ndim)
    cuda.clear_memo()


def test_each_subclass_has_its_own_cache():
    cuda.clear_memo()
    assert _SumForward.generate(1)[3] == 'sum_pool_1d_fwd'
    assert _SumBackward.generate(1)[3] == 'sum_pool_1d_bwd'
    cuda.clear_memo()
