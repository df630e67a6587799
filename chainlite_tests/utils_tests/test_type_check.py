"""Tests of chainlite.utils.type_check: messages, light/heavy parity and helpers."""

import operator
import pickle

import numpy
import pytest

from chainlite.utils import type_check as tc


def _heavy(*arrays, name='in_types'):
    return tc.get_types(tuple(arrays), name, False)


def _invalid_message(*conds):
    with pytest.raises(tc.InvalidType) as info:
        tc.expect(*conds)
    return str(info.value)


# --- messages ------------------------------------------------------------------------------


def test_linear_example_message_after_argname():
    x = numpy.zeros((2, 3), numpy.float32)
    w = numpy.zeros((5, 4), numpy.float32)
    in_types = _heavy(x, w)
    tc.argname(in_types, ('x', 'W'))
    x_type, w_type = in_types
    msg = _invalid_message(x_type.dtype.kind == 'f', x_type.shape[1] == w_type.shape[1])
    assert msg == 'Expect: x.shape[1] == W.shape[1]\nActual: 3 != 4'


def test_unnamed_shape_message_and_attributes():
    in_types = _heavy(numpy.zeros((2, 3)), numpy.zeros((5, 4)))
    cond = in_types[0].shape[1] == in_types[1].shape[1]
    assert str(cond) == 'in_types[0].shape[1] == in_types[1].shape[1]'
    with pytest.raises(tc.InvalidType) as info:
        tc.expect(cond)
    assert info.value.expect == 'in_types[0].shape[1] == in_types[1].shape[1]'
    assert info.value.actual == '3 != 4'


def test_dtype_kind_message():
    in_types = _heavy(numpy.zeros(3, numpy.int32))
    assert _invalid_message(in_types[0].dtype.kind == 'f') == (
        'Expect: in_types[0].dtype.kind == f\nActual: i != f')


def test_dtype_equality_message_and_success():
    in_types = _heavy(numpy.zeros(3, numpy.float32))
    tc.expect(in_types[0].dtype == numpy.float32, in_types[0].dtype == numpy.dtype('f4'))
    assert _invalid_message(in_types[0].dtype == numpy.float64) == (
        "Expect: in_types[0].dtype == <class 'numpy.float64'>\n"
        "Actual: float32 != <class 'numpy.float64'>")


@pytest.mark.parametrize('make_cond, expected', [
    (lambda t: t[0].ndim == 2, 'Expect: in_types[0].ndim == 2\nActual: 3 != 2'),
    (lambda t: t[0].shape[0] == t[1].shape[0] * 4,
     'Expect: in_types[0].shape[0] == in_types[1].shape[0] * 4\nActual: 3 != 4'),
    (lambda t: t[0].shape[0] == tc.Variable(4, 'in_size'),
     'Expect: in_types[0].shape[0] == in_size\nActual: 3 != 4'),
    (lambda t: tc.Variable(numpy.sum, 'sum')(t[0].shape) == 10,
     'Expect: sum(in_types[0].shape) == 10\nActual: 7 != 10'),
    (lambda t: t.size() == 3, 'Expect: in_types.size() == 3\nActual: 2 != 3'),
    (lambda t: t[0].size < 12, 'Expect: in_types[0].size < 12\nActual: 12 >= 12'),
    (lambda t: t[0].shape[-1] >= 5, 'Expect: in_types[0].shape[-1] >= 5\nActual: 2 < 5'),
    (lambda t: t[1].dtype.itemsize > 4, 'Expect: in_types[1].dtype.itemsize > 4\nActual: 4 <= 4'),
    (lambda t: t[0].dtype.char != 'f', 'Expect: in_types[0].dtype.char != f\nActual: f == f'),
])
def test_comparison_messages(make_cond, expected):
    in_types = _heavy(numpy.zeros((3, 2, 2), numpy.float32), numpy.zeros((1, 2), numpy.int32))
    assert _invalid_message(make_cond(in_types)) == expected


def test_expect_stops_at_first_failure():
    # The second condition would raise IndexError if it were evaluated (ndim is 1).
    in_types = _heavy(numpy.zeros(4))
    msg = _invalid_message(in_types[0].ndim == 3, in_types[0].shape[2] == 1)
    assert msg.startswith('Expect: in_types[0].ndim == 3\n')


def test_non_comparison_expression_message():
    in_types = _heavy(numpy.zeros((2, 3)))
    is_square = tc.Variable(lambda s: s[0] == s[1], 'is_square')
    assert _invalid_message(is_square(in_types[0].shape)) == (
        'Expect: is_square(in_types[0].shape)\nActual: False')


# --- expression rendering --------------------------------------------------------------------


@pytest.mark.parametrize('build, text', [
    (lambda a, b: a + b * 2, 'a + b * 2'),
    (lambda a, b: (a + b) * 2, '(a + b) * 2'),
    (lambda a, b: a - (b - 1), 'a - (b - 1)'),
    (lambda a, b: (a - b) - 1, 'a - b - 1'),
    (lambda a, b: a / (b * 2), 'a / (b * 2)'),
    (lambda a, b: a // b % 3, 'a // b % 3'),
    (lambda a, b: -(a + b), '-(a + b)'),
    (lambda a, b: -a * b, '-a * b'),
    (lambda a, b: (-a) ** 2, '(-a) ** 2'),
    (lambda a, b: -a ** 2, '-a ** 2'),
    (lambda a, b: a ** (b ** 2), 'a ** b ** 2'),
    (lambda a, b: (a ** b) ** 2, '(a ** b) ** 2'),
    (lambda a, b: 3 - a, '3 - a'),
    (lambda a, b: 2 * (a + 1) == b, '2 * (a + 1) == b'),
    (lambda a, b: (a == b) == 1, '(a == b) == 1'),
    (lambda a, b: (a + b).real, '(a + b).real'),
    (lambda a, b: (a * b)[0], '(a * b)[0]'),
    (lambda a, b: a[1:, ..., ::2], 'a[1:, ..., ::2]'),
    (lambda a, b: a[b:], 'a[b:]'),
    (lambda a, b: a['key'], "a['key']"),
    (lambda a, b: a(b, 1, axis=(0,)), 'a(b, 1, axis=(0,))'),
    (lambda a, b: (a + b)(), '(a + b)()'),
    (lambda a, b: 2 <= a, 'a >= 2'),
    (lambda a, b: numpy.int64(3) == a, 'a == 3'),
    (lambda a, b: tc.Constant(-2) ** a, '(-2) ** a'),
    (lambda a, b: tc.prod(a[1:]) == b, 'prod(a[1:]) == b'),
])
def test_str_follows_operator_precedence(build, text):
    a, b = tc.Variable(None, 'a'), tc.Variable(None, 'b')
    assert str(build(a, b)) == text


@pytest.mark.parametrize('op', [
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
    operator.mod, operator.pow, operator.and_, operator.or_, operator.xor,
    operator.lshift, operator.rshift, operator.eq, operator.ne, operator.lt,
    operator.le, operator.gt, operator.ge,
])
def test_binary_operators_evaluate_like_python(op):
    a, b = tc.Variable(7, 'a'), tc.Variable(3, 'b')
    assert op(a, b).eval() == op(7, 3)
    assert op(a, 2).eval() == op(7, 2)
    assert op(2, b).eval() == op(2, 3)


def test_unary_operators_and_getattr_getitem_call_evaluate():
    v = tc.Variable((4, 5, 6), 'v')
    assert (-v[0]).eval() == -4 and (+v[1]).eval() == 5 and (~v[2]).eval() == ~6
    assert v[1:].eval() == (5, 6)
    assert v[tc.Variable(2, 'i')].eval() == 6
    assert tc.Variable(numpy.zeros((2, 3)), 'z').shape.eval() == (2, 3)
    assert tc.Variable(max, 'max')(v[0], v[2]).eval() == 6


def test_expr_refuses_bool_and_iteration():
    in_types = _heavy(numpy.zeros((2, 3)))
    with pytest.raises(RuntimeError):
        bool(in_types[0].ndim == 2)
    with pytest.raises(TypeError):
        iter(in_types[0].shape)
    with pytest.raises(AttributeError):
        in_types[0].__array_interface__  # noqa: B018 - protocol probes must not become Exprs


# --- heavy / light parity ---------------------------------------------------------------------


_PARITY_CHECKS = [
    lambda t: t.size() == 2,
    lambda t: t[0].ndim == 2,
    lambda t: t[0].ndim >= t[1].ndim,
    lambda t: t[0].shape[0] == t[1].shape[0],
    lambda t: t[0].shape[-1] == t[1].shape[-1],
    lambda t: t[0].shape[0] * 2 > t[1].shape[-1] + 1,
    lambda t: t[0].size % 2 == 0,
    lambda t: t[0].size // 3 <= t[1].size,
    lambda t: -t[0].shape[0] < -1,
    lambda t: t[0].dtype == t[1].dtype,
    lambda t: t[0].dtype == numpy.float32,
    lambda t: t[0].dtype.kind == 'f',
    lambda t: t[1].dtype.kind != 'i',
    lambda t: t[1].dtype.itemsize == 8,
    lambda t: t[0].dtype.name == 'float32',
    lambda t: t[0].shape == t[1].shape,
    lambda t: tc.prod(t[0].shape) == t[0].size,
    lambda t: tc.prod(t[0].shape[1:]) == t[1].shape[0],
]
_DTYPES = [numpy.float32, numpy.float64, numpy.int32, numpy.int64]


def test_heavy_and_light_mode_agree_on_random_inputs():
    rng = numpy.random.default_rng(0)
    for _ in range(200):
        arrays = tuple(
            numpy.zeros(tuple(rng.integers(1, 4, size=rng.integers(1, 4))),
                        _DTYPES[rng.integers(len(_DTYPES))])
            for _ in range(2))
        light, heavy = tc.get_light_types(arrays), tc.get_types(arrays, 'in_types', False)
        for check in _PARITY_CHECKS:
            with tc.light_mode:              # as Chainer runs its light checks
                light_value = check(light)
            heavy_expr = check(heavy)
            # Outside light_mode (FunctionNode's cheap first try), prod is an expression
            # that expect() evaluates: the verdict is the same.
            assert _passes(check(light)) == _passes(light_value)
            assert isinstance(light_value, (bool, numpy.bool_))
            assert isinstance(heavy_expr, tc.Expr)
            assert bool(light_value) == bool(heavy_expr.eval())
            assert _passes(light_value) == _passes(heavy_expr)


def _passes(cond):
    try:
        tc.expect(cond)
    except tc.InvalidType:
        return False
    return True


def test_light_types_are_the_arrays_themselves():
    x, y = numpy.zeros((2, 3)), numpy.ones(4, numpy.int32)
    light = tc.get_light_types((x, y))
    assert isinstance(light, tuple)
    assert light[0] is x and light[1] is y
    assert light.size() == 2 and type(light.size()) is int
    assert tc.get_light_types(()).size() == 0


def test_light_mode_expect_on_plain_booleans():
    tc.expect(True, numpy.True_, numpy.bool_(True))
    tc.expect()
    with pytest.raises(tc.InvalidType) as info:
        tc.expect(True, numpy.False_)
    assert 'condition 1' in info.value.expect and info.value.actual == 'False'
    with pytest.raises(tc.InvalidType):
        tc.expect(False)


@pytest.mark.parametrize('bad', [1, 0, None, 'yes', numpy.array([True]), (True,)])
def test_expect_rejects_non_boolean_non_expr(bad):
    with pytest.raises(TypeError):
        tc.expect(bad)


# --- helpers ---------------------------------------------------------------------------------


def test_argname_renames_heavy_types_and_checks_count():
    in_types = _heavy(numpy.zeros((2, 3)), numpy.zeros((3,)), numpy.zeros(()))
    x_type, w_type = in_types[:2]
    cond = x_type.shape[1] == w_type.shape[0]
    tc.argname((x_type, w_type), ('x', 'W'))
    assert str(cond) == 'x.shape[1] == W.shape[0]'
    assert str(in_types[2].ndim) == 'in_types[2].ndim'
    with pytest.raises(tc.InvalidType) as info:
        tc.argname(in_types, ('x', 'W'))
    assert info.value.expect == '2 argument(s): x, W'
    assert info.value.actual == '3 argument(s)'
    assert tc._argname is tc.argname


def test_argname_in_light_mode_leaves_arrays_alone():
    x = numpy.zeros((2, 3))
    light = tc.get_light_types((x,))
    tc.argname(light, ('x',))
    assert light[0] is x
    with pytest.raises(tc.InvalidType):
        tc.argname(light, ('x', 'W'))


def test_same_types():
    a, b = numpy.zeros(2), numpy.ones((3, 3), numpy.int8)
    assert tc.same_types(a, b) is True
    assert tc.same_types() is True
    assert tc.same_types(a, None, b) is True
    assert tc.same_types(a, [1, 2]) is False
    assert tc.same_types(a, numpy.float32(1)) is False
    assert tc.same_types(tc.Variable(a, 'a'), b) is True


@pytest.mark.parametrize('shapes', [
    [(2, 3), (3,)], [(4, 1, 5), (3, 1)], [(), (2, 2)], [(1,), (0,)], [(2, 3)], [],
])
def test_expect_broadcast_shapes_accepts_broadcastable(shapes):
    tc.expect_broadcast_shapes(*shapes)
    arrays = tuple(numpy.zeros(s) for s in shapes)
    heavy = tc.get_types(arrays, 'in_types', False)
    tc.expect_broadcast_shapes(*(t.shape for t in heavy))
    numpy.broadcast_shapes(*shapes)  # the reference agrees


@pytest.mark.parametrize('shapes', [[(2, 3), (4,)], [(2, 1), (8, 4, 3)], [(0,), (2,)]])
def test_expect_broadcast_shapes_rejects_incompatible(shapes):
    with pytest.raises(ValueError):
        numpy.broadcast_shapes(*shapes)
    with pytest.raises(tc.InvalidType):
        tc.expect_broadcast_shapes(*shapes)


def test_expect_broadcast_shapes_heavy_message_names_shapes():
    in_types = _heavy(numpy.zeros((2, 3)), numpy.zeros(4))
    tc.argname(in_types, ('x', 'y'))
    with pytest.raises(tc.InvalidType) as info:
        tc.expect_broadcast_shapes(in_types[0].shape, in_types[1].shape)
    assert str(info.value) == (
        'Expect: shapes broadcastable together: x.shape, y.shape\n'
        'Actual: x.shape = (2, 3), y.shape = (4,)')


def test_expect_broadcast_shapes_allow_none():
    tc.expect_broadcast_shapes((2, 3), None, (3,), allow_none=True)
    with pytest.raises(tc.InvalidType):
        tc.expect_broadcast_shapes((2, 3), None, (3,))


def test_eval_make_variable_and_prod():
    v = tc.make_variable(5, 'n_out')
    assert isinstance(v, tc.Variable) and str(v) == 'n_out' and tc.eval(v) == 5
    assert tc.eval(7) == 7 and tc.eval(v * 2) == 10
    # Outside light mode prod is an expression even of plain numbers, as in Chainer.
    assert str(tc.prod([])) == 'prod([])' and tc.prod([]).eval() == 1
    assert tc.prod((2, 3, 4)).eval() == 24
    with tc.light_mode:
        assert tc.prod((2, 3, 4)) == 24 and tc.prod(()) == 1
    assert tc.prod((v, 2)).eval() == 10
    assert str(tc.prod((v, 2))) == 'prod((n_out, 2))'
    # A Variable compared with a plain value still works in light mode through expect.
    light = tc.get_light_types((numpy.zeros((3, 5)),))
    tc.expect(light[0].shape[1] == v)
    with pytest.raises(tc.InvalidType):
        tc.expect(light[0].shape[0] == v)


def test_get_types_contents_and_none_handling():
    x = numpy.zeros((2, 3), numpy.float32)
    in_types = tc.get_types((x, None), 'grads', True)
    assert isinstance(in_types, tc.TypeInfoTuple) and isinstance(in_types, tuple)
    info = in_types[0].eval()
    assert isinstance(info, tc.TypeInfo)
    assert (info.shape, info.dtype, info.ndim, info.size) == ((2, 3), numpy.float32, 2, 6)
    assert in_types[1].eval().dtype is None and in_types[1].eval().shape == ()
    assert str(in_types.size()) == 'grads.size()' and in_types.size().eval() == 2
    assert tc.get_types((x,), 'in_types', False, shapes=((6,),))[0].shape.eval() == (6,)
    with pytest.raises(TypeError):
        tc.get_types((x, None), 'in_types', False)
    with pytest.raises(TypeError):
        tc.get_types(([1, 2],), 'in_types', False)


def test_invalid_type_attributes_message_and_pickle():
    err = tc.InvalidType('a == b', '1 != 2')
    assert isinstance(err, Exception)
    assert (err.expect, err.actual) == ('a == b', '1 != 2')
    assert str(err) == 'Expect: a == b\nActual: 1 != 2'
    custom = tc.InvalidType('e', 'a', msg='custom text')
    assert str(custom) == 'custom text' and custom.expect == 'e'
    restored = pickle.loads(pickle.dumps(err))
    assert (restored.expect, restored.actual, str(restored)) == (err.expect, err.actual, str(err))


# --- Chainer's node constructors and helpers ------------------------------------------------


def test_node_constructors_take_chainers_arguments():
    x, y = tc.Variable(1, 'x'), tc.Variable(2, 'y')

    def pair(a, b):
        return a, b

    assert str(tc.BinaryOperator(7, x, y, '+', pair)) == 'x + y'
    assert str(tc.BinaryOperator(8, x, y, '+', pair)) == 'x + (y)'
    assert str(tc.BinaryOperator(9, x, y, '+', pair)) == '(x) + (y)'
    assert str(tc.BinaryOperator(8, x, y, '+', pair, True)) == '(x) + y'
    assert tc.BinaryOperator(7, x, y, '+', pair).eval() == (1, 2)
    assert str(tc.UnaryOperator(8, x, '-', lambda a: (a,))) == '-x'
    assert str(tc.UnaryOperator(9, x, '-', lambda a: (a,))) == '-(x)'
    assert tc.UnaryOperator(8, x, '-', lambda a: (a,)).eval() == (1,)
    f = tc.Variable(sum, 'sum')
    assert str(tc.Call(f, ([1, 2, 3],))) == 'sum([1, 2, 3])' == str(f([1, 2, 3]))
    assert tc.Call(f, ([1, 2, 3],)).eval() == 6
    with pytest.raises(TypeError):
        tc.Call(f, [1])


def test_bool_binary_operator():
    x, y = tc.Variable(1, 'x'), tc.Variable(2, 'y')
    same = tc.BoolBinaryOperator(x, x, '==', '!=', lambda a, b: a == b)
    differ = tc.BoolBinaryOperator(x, y, '==', '!=', lambda a, b: a == b)
    assert same.eval() is True
    same.expect()
    with pytest.raises(tc.InvalidType, match='1 != 2'):
        differ.expect()
    with pytest.raises(tc.InvalidType):
        tc.expect(differ)
    with pytest.raises(RuntimeError):
        bool(same)
    assert isinstance(x == y, tc.BoolBinaryOperator) and isinstance(x == y, tc.Testable)


def test_getattr_names_and_nested_values():
    class Obj:
        value = 10

    x = tc.Variable(Obj(), 'x')
    assert str(tc.GetAttr(x, 'value')) == 'x.value'
    assert str(tc.GetAttr(x, tc.Constant('value'))) == 'x.value'
    assert str(tc.GetAttr(x, 3)) == 'getattr(x, 3)'
    assert tc.GetAttr(x, tc.Constant('value')).eval() == 10
    # A field of a node never hides an attribute of the value: x.dtype.name is an expression.
    t = tc.get_types((numpy.zeros(2, numpy.float32),), 'in_types', False)
    assert tc.eval(t[0].dtype.name == 'float32') is True
    assert (tc.Constant([0]) == [tc.Constant(0)]).eval()
    assert (tc.Constant([[0]]) == [[tc.Constant(0)]]).eval()
    assert (tc.Constant((0,)) == (tc.Constant(0),)).eval()
    assert tc._repr([[tc.Constant(0)]]) == '[[0]]'
    assert tc._repr(()) == '()' and tc._repr((tc.Constant(0),)) == '(0,)'


def test_get_types_wants_a_tuple():
    for error in (TypeError, AssertionError):
        with pytest.raises(error, match='must be a tuple'):
            tc.get_types(1, 'name', False)


@pytest.mark.parametrize('error, extra', [
    (tc.InvalidType('x.ndim == 2', '3 != 2', 'Expect: x.ndim == 2'), ValueError),
    (IndexError('too many indices'), ValueError),
    (TypeError('bad'), AssertionError),
])
def test_also_keeps_the_error_and_adds_a_type(error, extra):
    mixed = tc._also(error, extra)
    assert isinstance(mixed, type(error)) and isinstance(mixed, extra)
    assert str(mixed) == str(error) and mixed.__dict__ == error.__dict__
    assert tc._also(mixed, extra) is mixed
    assert type(tc._also(pickle.loads(pickle.dumps(error)), extra)) is type(mixed)  # cached
    again = pickle.loads(pickle.dumps(mixed))
    assert type(again) is type(mixed) and str(again) == str(error)
    assert again.__dict__ == error.__dict__
