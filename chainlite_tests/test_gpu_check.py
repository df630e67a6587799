"""benchmarks/gpu_check.py's GPU workloads run (on the CuPy stand-in: the script's code paths,
not its timings, which need a real GPU)."""
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_gpu_check_bench_runs_on_the_stand_in():
    pytest.importorskip('cupy', reason='the stand-in mirrors the installed CuPy')
    out = subprocess.run([sys.executable, 'benchmarks/gpu_check.py', '--only', 'bench',
                          '--stand-in', '--steps', '1'], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    for name in ('mlp_step', 'resnet_step', 'lstm_lm_step'):
        assert name in out.stdout
    assert 'the CuPy stand-in' in out.stdout
