import pytest

from chainlite import training


def test_priorities():
    assert (training.PRIORITY_WRITER, training.PRIORITY_EDITOR, training.PRIORITY_READER) == (
        300, 200, 100)


def test_extension_defaults():
    class MyExtension(training.Extension):
        pass

    ext = MyExtension()
    assert ext.trigger == (1, 'iteration')
    assert ext.priority == training.PRIORITY_READER
    assert ext.name is None
    assert ext.default_name == 'MyExtension'
    # The hooks do nothing by default.
    assert ext.initialize(None) is None
    assert ext.on_error(None, ValueError(), None) is None
    assert ext.finalize() is None
    assert ext.serialize(None) is None
    with pytest.raises(NotImplementedError, match='MyExtension'):
        ext(None)


def test_default_name_can_be_a_class_attribute():
    class Renamed(training.Extension):
        default_name = 'other'
    assert Renamed().default_name == 'other'


def test_make_extension_defaults():
    @training.make_extension()
    def ext(trainer):
        pass
    assert ext.trigger == (1, 'iteration')
    assert ext.priority == training.PRIORITY_READER
    assert ext.default_name == 'ext'
    assert ext.initialize is None and ext.on_error is None and ext.finalize is None


def test_make_extension_arguments():
    def init(trainer):
        pass

    def fin():
        pass

    def err(trainer, exc, tb):
        pass

    @training.make_extension(trigger=(2, 'epoch'), default_name='named', priority=300,
                             finalizer=fin, initializer=init, on_error=err)
    def ext(trainer):
        return 'called'
    assert ext(None) == 'called'
    assert (ext.trigger, ext.default_name, ext.priority) == ((2, 'epoch'), 'named', 300)
    assert (ext.initialize, ext.finalize, ext.on_error) == (init, fin, err)


def test_make_extension_rejects_unknown_arguments():
    with pytest.raises(ValueError, match='initializer='):
        training.make_extension(invoke_before_training=True)
    with pytest.raises(TypeError, match="make_extension.*'bogus'"):
        training.make_extension(bogus=1)
