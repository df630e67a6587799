from unittest import mock

import pytest

from chainlite.backends import cuda
from chainlite.utils import conv_nd_kernel


def test_expression_helpers():
    assert conv_nd_kernel.mulexp(['a', 'b', 'c']) == 'a * b * c'
    assert conv_nd_kernel.mulexp(['a'], 'z') == 'z * a'
    assert conv_nd_kernel.andexp(['p', 'q']) == 'p && q'
    assert conv_nd_kernel.andexp([], 'p') == 'p'
    assert conv_nd_kernel.muladdexp(['n0', 'n1'], ['i0', 'i1'], 'c') == '(i1 + n1 * (i0 + n0 * c))'
    assert conv_nd_kernel.muladdexp(['n0', 'n1'], ['i0', 'i1']) == '(i1 + n1 * i0)'
    assert conv_nd_kernel.vars('d', 2) == ['d_0', 'd_1']
    assert conv_nd_kernel.vars('d', 0) == []
    assert conv_nd_kernel.succ_sublists(['a', 'b']) == [['a', 'b'], ['b']]
    assert conv_nd_kernel.map_(lambda x, y: x + y, [1, 2], [10, 20]) == [11, 22]


def test_an_empty_product_is_an_error():
    with pytest.raises(TypeError):
        conv_nd_kernel.mulexp([])


def test_writer_indents_blocks():
    w = conv_nd_kernel.Writer()
    w.write('if (a) {', indent='inc')
    w.write('x;')
    w.write('} else {', indent='decinc')
    w.write('y;')
    w.write('}', indent='dec')
    assert w.get() == 'if (a) {\n  x;\n} else {\n  y;\n}'


def test_im2col_1d_text():
    in_params, out_params, operation, name = conv_nd_kernel.Im2colNDKernel.generate(1)
    assert name == 'im2col_1d'
    assert in_params == ('raw T img, int32 d_0, int32 out_0, int32 k_0, int32 s_0, int32 p_0, '
                         'int32 di_0')
    assert out_params == 'T col'
    assert operation.split('\n') == [
        'int c0 = i / (k_0 * out_0);',
        'int kx_0 = i / (out_0) % k_0;',
        'int out_x_0 = i % out_0;',
        'int in_0 = kx_0 * di_0 + out_x_0 * s_0 - p_0;',
        'if (0 <= in_0 && in_0 < d_0) {',
        '  int idx_0 = in_0 + d_0 * c0;',
        '  col = img[idx_0];',
        '} else {',
        '  col = (T)0;',
        '}',
    ]


def test_col2im_1d_text():
    in_params, out_params, operation, name = conv_nd_kernel.Col2imNDKernel.generate(1)
    assert name == 'col2im_1d'
    assert in_params.startswith('raw T col, int32 d_0, int32 out_0')
    assert out_params == 'T img'
    assert operation.split('\n') == [
        'int c0 = i / (d_0);',
        'int x_0 = i % d_0;',
        'T val = 0;',
        'for (int kx_0 = 0; kx_0 < k_0; ++kx_0) {',
        '  int out_x_0 = x_0 + p_0 - kx_0 * di_0;',
        '  if (0 > out_x_0 || out_x_0 >= out_0 * s_0) continue;',
        '  if (out_x_0 % s_0 != 0) continue;',
        '  out_x_0 /= s_0;',
        '  val = val + col[(out_x_0 + out_0 * (kx_0 + k_0 * c0))];',
        '}',
        'img = val;',
    ]


@pytest.mark.parametrize('ndim', [2, 3, 4])
def test_nd_text_covers_every_axis(ndim):
    in_params, _, operation, name = conv_nd_kernel.Im2colNDKernel.generate(ndim)
    assert name == 'im2col_%dd' % ndim
    assert in_params.count('int32') == 6 * ndim
    assert 'col = img[idx_%d];' % (ndim - 1) in operation
    _, _, operation, name = conv_nd_kernel.Col2imNDKernel.generate(ndim)
    assert name == 'col2im_%dd' % ndim
    assert operation.count('for (') == ndim
    # Each loop is closed at the indentation it was opened at.
    lines = operation.split('\n')
    assert lines[-2] == '}' and lines[-1] == 'img = val;'


@pytest.mark.parametrize('kernel', [conv_nd_kernel.Im2colNDKernel, conv_nd_kernel.Col2imNDKernel])
def test_generate_is_cached_until_clear_memo(kernel):
    cuda.clear_memo()
    with mock.patch.object(kernel, '_generate', return_value=('a', 'b', 'c', 'd')) as m:
        assert kernel.generate(3) == ('a', 'b', 'c', 'd')
        kernel.generate(3)
        m.assert_called_once_with(3)
        kernel.generate(2)
        assert m.call_count == 2
        cuda.clear_memo()
        kernel.generate(3)
        assert m.call_count == 3
    cuda.clear_memo()
