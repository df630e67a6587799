"""Tests of chainlite.configuration: thread-local config over the global one, and its helpers."""
import importlib
import io
import threading

import numpy
import pytest

import chainlite


def _in_thread(fn):
    # Runs fn in a fresh thread and returns its result (re-raising its exception here).
    box = {}

    def target():
        try:
            box['value'] = fn()
        except BaseException as e:  # noqa: BLE001 (re-raised in the caller's thread)
            box['error'] = e

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if 'error' in box:
        raise box['error']
    return box['value']


# --- global vs thread-local ---------------------------------------------------------------


def test_defaults():
    cfg = chainlite.config
    assert cfg.train is True
    assert cfg.enable_backprop is True
    assert cfg.type_check is True
    assert cfg.debug is False
    assert cfg.dtype == numpy.float32
    assert cfg.keep_graph_on_report is False
    assert cfg.lazy_grad_sum is False


def test_config_and_global_config_are_exported():
    configuration = importlib.import_module('chainlite.configuration')
    assert chainlite.config is configuration.config
    assert chainlite.global_config is configuration.global_config


def test_local_value_is_not_seen_by_another_thread():
    with chainlite.using_config('train', False):
        assert chainlite.config.train is False
        assert _in_thread(lambda: chainlite.config.train) is True
    assert chainlite.config.train is True


def test_value_set_in_another_thread_is_not_seen_here():
    def set_in_thread():
        chainlite.config.train = False
        return chainlite.config.train

    assert _in_thread(set_in_thread) is False
    assert chainlite.config.train is True
    assert 'train' not in vars(chainlite.config)


def test_global_change_is_seen_by_threads_without_override():
    old = chainlite.global_config.train
    try:
        chainlite.global_config.train = False
        assert chainlite.config.train is False
        assert _in_thread(lambda: chainlite.config.train) is False
    finally:
        chainlite.global_config.train = old
    assert chainlite.config.train is old


def test_global_change_is_hidden_by_a_local_override():
    old = chainlite.global_config.type_check
    try:
        with chainlite.using_config('type_check', True):
            chainlite.global_config.type_check = False
            assert chainlite.config.type_check is True
            assert _in_thread(lambda: chainlite.config.type_check) is False
        assert chainlite.config.type_check is False
    finally:
        chainlite.global_config.type_check = old


def test_new_global_key_is_visible_everywhere():
    chainlite.global_config.chainlite_test_key = 42
    try:
        assert chainlite.config.chainlite_test_key == 42
        assert _in_thread(lambda: chainlite.config.chainlite_test_key) == 42
        chainlite.config.chainlite_test_key = 7
        assert chainlite.config.chainlite_test_key == 7
        assert chainlite.global_config.chainlite_test_key == 42
        del chainlite.config.chainlite_test_key
        assert chainlite.config.chainlite_test_key == 42
    finally:
        del chainlite.global_config.chainlite_test_key


@pytest.mark.parametrize('cfg_name', ['config', 'global_config'])
def test_unknown_key_raises_attribute_error(cfg_name):
    cfg = getattr(chainlite, cfg_name)
    with pytest.raises(AttributeError):
        cfg.no_such_key_in_chainlite


@pytest.mark.parametrize('key', [
    'use_cudnn', 'cudnn_deterministic', 'autotune', 'use_ideep', 'use_cudnn_tensor_core',
    'cudnn_fast_batch_normalization', 'use_static_graph', 'keep_graph_on_report',
    'lazy_grad_sum', 'schedule_func', 'warn_nondeterministic', 'in_recomputing', 'dtype',
    'debug', 'enable_backprop', 'train', 'type_check'])
def test_chainer_keys_exist(key):
    assert hasattr(chainlite.config, key)
    assert hasattr(chainlite.global_config, key)


def test_gpu_keys_can_be_set_through_using_config():
    with chainlite.using_config('use_cudnn', 'always'):
        assert chainlite.config.use_cudnn == 'always'
    with chainlite.using_config('autotune', True):
        assert chainlite.config.autotune is True
    assert chainlite.config.use_cudnn == chainlite.global_config.use_cudnn


# --- using_config ------------------------------------------------------------------------


def test_using_config_without_local_value_falls_back_to_global():
    assert 'train' not in vars(chainlite.config)
    with chainlite.using_config('train', False):
        assert chainlite.config.train is False
    assert 'train' not in vars(chainlite.config)
    assert chainlite.config.train is True


def test_using_config_restores_previous_local_value():
    with chainlite.using_config('train', False):
        with chainlite.using_config('train', True):
            assert chainlite.config.train is True
        assert chainlite.config.train is False
        assert vars(chainlite.config)['train'] is False
    assert 'train' not in vars(chainlite.config)


def test_using_config_restores_on_exception():
    class Boom(Exception):
        pass

    with chainlite.using_config('train', False):
        with pytest.raises(Boom):
            with chainlite.using_config('train', True):
                raise Boom()
        assert chainlite.config.train is False
    with pytest.raises(Boom):
        with chainlite.using_config('train', False):
            raise Boom()
    assert 'train' not in vars(chainlite.config)
    assert chainlite.config.train is True


def test_using_config_with_new_key():
    with chainlite.using_config('chainlite_test_only_key', 3):
        assert chainlite.config.chainlite_test_only_key == 3
    assert not hasattr(chainlite.config, 'chainlite_test_only_key')


def test_using_config_on_global_config_restores_global_value():
    # The docstring says ``config`` is "the configuration object to change".
    try:
        with chainlite.using_config('train', False, chainlite.global_config):
            assert chainlite.global_config.train is False
            assert chainlite.config.train is False
        assert chainlite.global_config.train is True
    finally:
        chainlite.global_config.train = True


def test_using_config_as_decorator():
    @chainlite.using_config('train', False)
    def f():
        return chainlite.config.train

    assert f() is False
    assert chainlite.config.train is True
    assert f() is False
    assert 'train' not in vars(chainlite.config)


def test_using_config_decorator_is_reentrant():
    seen = []

    @chainlite.using_config('train', False)
    def f(n):
        seen.append(chainlite.config.train)
        if n:
            f(n - 1)
        seen.append(chainlite.config.train)

    f(3)
    assert seen == [False] * 8
    assert 'train' not in vars(chainlite.config)
    assert chainlite.config.train is True


def test_using_config_decorator_in_threads():
    @chainlite.using_config('train', False)
    def f():
        return chainlite.config.train

    assert _in_thread(f) is False
    assert f() is False
    assert chainlite.config.train is True


def test_using_config_decorator_restores_on_exception():
    @chainlite.using_config('enable_backprop', False)
    def f():
        raise ValueError('x')

    with pytest.raises(ValueError):
        f()
    assert chainlite.config.enable_backprop is True


# --- backprop modes ----------------------------------------------------------------------


def test_no_backprop_and_force_backprop_nesting():
    assert chainlite.config.enable_backprop is True
    with chainlite.no_backprop_mode():
        assert chainlite.config.enable_backprop is False
        with chainlite.force_backprop_mode():
            assert chainlite.config.enable_backprop is True
            with chainlite.no_backprop_mode():
                assert chainlite.config.enable_backprop is False
            assert chainlite.config.enable_backprop is True
        assert chainlite.config.enable_backprop is False
    assert chainlite.config.enable_backprop is True
    assert 'enable_backprop' not in vars(chainlite.config)


def test_no_backprop_mode_as_decorator():
    @chainlite.no_backprop_mode()
    def f():
        return chainlite.config.enable_backprop

    assert f() is False
    assert chainlite.config.enable_backprop is True


def test_no_backprop_mode_affects_graph():
    x = chainlite.Variable(numpy.ones(2, numpy.float32))
    with chainlite.no_backprop_mode():
        y = x * 2
        with chainlite.force_backprop_mode():
            z = x * 2
    assert y.creator is None
    assert z.creator is not None


# --- debug -------------------------------------------------------------------------------


def test_is_debug_and_set_debug():
    assert chainlite.is_debug() is False
    try:
        chainlite.set_debug(True)
        assert chainlite.is_debug() is True
        assert chainlite.config.debug is True
        # set_debug is per thread
        assert _in_thread(chainlite.is_debug) is False
        chainlite.set_debug(False)
        assert chainlite.is_debug() is False
    finally:
        chainlite.config.__dict__.pop('debug', None)


def test_debug_mode_context_and_decorator():
    with chainlite.DebugMode(True):
        assert chainlite.is_debug() is True
        with chainlite.DebugMode(False):
            assert chainlite.is_debug() is False
        assert chainlite.is_debug() is True
    assert chainlite.is_debug() is False

    @chainlite.DebugMode(True)
    def f():
        return chainlite.is_debug()

    assert f() is True
    assert chainlite.is_debug() is False


# --- dtype -------------------------------------------------------------------------------


def test_get_dtype_default():
    assert chainlite.get_dtype() == numpy.dtype(numpy.float32)
    assert isinstance(chainlite.get_dtype(), numpy.dtype)


@pytest.mark.parametrize('dtype', [numpy.float16, numpy.float32, numpy.float64, 'float64',
                                   numpy.dtype('float16')])
def test_get_dtype_explicit(dtype):
    assert chainlite.get_dtype(dtype) == numpy.dtype(dtype)
    assert isinstance(chainlite.get_dtype(dtype), numpy.dtype)


def test_get_dtype_follows_config():
    with chainlite.using_config('dtype', numpy.float64):
        assert chainlite.get_dtype() == numpy.float64
        assert chainlite.get_dtype(numpy.float16) == numpy.float16
    assert chainlite.get_dtype() == numpy.float32


def test_get_dtype_mixed16_string():
    assert chainlite.get_dtype('mixed16') == numpy.float16
    assert chainlite.get_dtype('mixed16', map_mixed16=numpy.float32) == numpy.float32
    with chainlite.using_config('dtype', 'mixed16'):
        assert chainlite.get_dtype() == numpy.float16
        assert chainlite.get_dtype(map_mixed16=numpy.float32) == numpy.float32


def test_get_dtype_chainer_mixed16_object():
    # Chainer code writes ``using_config('dtype', chainer.mixed16)`` and then asks for
    # ``get_dtype(map_mixed16=numpy.float32)`` where it wants float32 parameters.
    assert chainlite.get_dtype(chainlite.mixed16) == numpy.float16
    with chainlite.using_config('dtype', chainlite.mixed16):
        assert chainlite.get_dtype() == numpy.float16
        assert chainlite.get_dtype(map_mixed16=numpy.float32) == numpy.float32


def test_mixed16_reads_as_float16_to_numpy():
    # Chainer's tests write ``array.astype(chainer.mixed16)``: NumPy reads its ``dtype``.
    assert chainlite.mixed16.dtype == numpy.float16
    assert numpy.zeros(2).astype(chainlite.mixed16).dtype == numpy.float16


def test_map_mixed16_does_not_change_plain_float16():
    assert chainlite.get_dtype(numpy.float16, map_mixed16=numpy.float32) == numpy.float16


# --- show --------------------------------------------------------------------------------


def _shown_keys(cfg):
    buf = io.StringIO()
    cfg.show(buf)
    lines = buf.getvalue().splitlines()
    return lines, [line.split(' ', 1)[0] for line in lines]


@pytest.mark.parametrize('cfg_name', ['config', 'global_config'])
def test_show_lists_keys_sorted(cfg_name):
    cfg = getattr(chainlite, cfg_name)
    lines, keys = _shown_keys(cfg)
    assert keys == sorted(keys)
    assert len(keys) == len(set(keys))
    for k in ('train', 'enable_backprop', 'debug', 'dtype', 'type_check', 'use_cudnn'):
        assert k in keys
    # values start in one column
    width = max(len(k) for k in keys)
    for line, k in zip(lines, keys):
        assert line[:width + 1] == k.ljust(width) + ' '
        assert line[width + 1:] == str(getattr(cfg, k))


def test_show_reports_local_values_and_local_keys():
    with chainlite.using_config('train', False), \
            chainlite.using_config('aaa_chainlite_local', 'xyz'):
        lines, keys = _shown_keys(chainlite.config)
        assert keys[0] == 'aaa_chainlite_local'
        assert lines[0].split()[-1] == 'xyz'
        train_line = lines[keys.index('train')]
        assert train_line.split()[-1] == 'False'
        _, global_keys = _shown_keys(chainlite.global_config)
        assert 'aaa_chainlite_local' not in global_keys

