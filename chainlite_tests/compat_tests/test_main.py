"""``python -m chainlite.compat``: argv, sys.path, exit status, ``-c``, ``-m`` and usage."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _compat(*args, cwd=ROOT):
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(filter(None, [ROOT, env.get('PYTHONPATH')]))
    return subprocess.run([sys.executable, '-m', 'chainlite.compat', *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_script_sees_its_argv_name_and_folder(tmp_path):
    (tmp_path / 'helper_mod.py').write_text('VALUE = 42\n')
    script = tmp_path / 'show.py'
    script.write_text('import sys\nimport chainer, chainlite\nimport helper_mod\n'
                      'print(__name__, sys.argv, chainer.Link is chainlite.Link,\n'
                      '      helper_mod.VALUE)\n')
    proc = _compat(str(script), 'a', '--b')
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.strip() == "__main__ ['%s', 'a', '--b'] True 42" % script


def test_exit_status_and_exceptions_propagate(tmp_path):
    script = tmp_path / 'fail.py'
    script.write_text('import sys\nsys.exit(3)\n')
    assert _compat(str(script)).returncode == 3
    script.write_text('import chainer.links as L\nL.TheanoFunction\n')
    proc = _compat(str(script))
    assert proc.returncode == 1
    assert 'chainer.links.TheanoFunction is not implemented by chainlite' in proc.stderr


def test_code_and_module_options(tmp_path):
    proc = _compat('-c', 'import sys, chainer, chainerx\n'
                         'print(chainer.__name__, chainerx.is_available(), sys.argv)', 'x')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "chainer False ['-c', 'x']"
    (tmp_path / 'as_module.py').write_text('import chainer\nprint(__name__, chainer.__name__)\n')
    proc = _compat('-m', 'as_module', cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == '__main__ chainer'


def test_usage():
    proc = _compat()
    assert proc.returncode == 2 and 'usage: python -m chainlite.compat' in proc.stderr
    proc = _compat('--help')
    assert proc.returncode == 0 and 'SCRIPT.py [ARGS...]' in proc.stdout
    proc = _compat('-c')
    assert proc.returncode == 2 and 'requires an argument' in proc.stderr
