"""The functions an export replaces are all put back afterwards, in every namespace."""
import subprocess
import sys

# In a fresh interpreter, chainlite.functions has not resolved n_step_lstm & co. yet when
# the export replaces them: the first lookup then happens while their modules hold the
# wrappers, and must still give back the originals.
_CODE = '''
import chainlite.functions as F
from chainlite.onnx.functions import _recorded
from chainlite.functions.rnn import n_step_gru, n_step_lstm, n_step_rnn
with _recorded.recorded_functions():
    assert F.n_step_lstm.__module__ == 'chainlite.onnx.functions.rnn', F.n_step_lstm
for module, names in ((n_step_lstm, ('n_step_lstm', 'n_step_bilstm')),
                      (n_step_gru, ('n_step_gru', 'n_step_bigru')),
                      (n_step_rnn, ('n_step_rnn', 'n_step_birnn'))):
    for name in names:
        original = getattr(module, name)
        assert original.__module__ == module.__name__, (name, original)
        assert getattr(F, name) is original, (name, getattr(F, name))
print('restored')
'''


def test_recorded_functions_are_restored_in_a_fresh_interpreter():
    out = subprocess.run([sys.executable, '-c', _CODE], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == 'restored'


def test_recorded_functions_are_restored_in_this_process():
    import chainlite.functions as F
    from chainlite.functions.rnn import n_step_lstm
    from chainlite.onnx.functions import _recorded
    before = F.n_step_lstm
    with _recorded.recorded_functions():
        assert F.n_step_lstm is not before
        assert n_step_lstm.n_step_lstm is not before
    assert F.n_step_lstm is before
    assert n_step_lstm.n_step_lstm is before
