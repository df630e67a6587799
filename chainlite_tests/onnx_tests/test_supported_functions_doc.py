"""The list of supported functions in docs/onnx.md matches the converter table."""
import importlib.util
import pathlib

_ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_docs_list_is_current():
    spec = importlib.util.spec_from_file_location(
        'generate_onnx_functions', _ROOT / 'docs' / 'generate_onnx_functions.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = (_ROOT / 'docs' / 'onnx.md').read_text()
    assert module.render(text) == text, (
        'docs/onnx.md lists other functions than the converter table: run '
        'python docs/generate_onnx_functions.py')
