"""Rewrites the list of supported functions in docs/onnx.md from the converter table.

    python docs/generate_onnx_functions.py

chainlite_tests/onnx_tests/test_supported_functions_doc.py fails while the page is stale.
"""
import pathlib
import sys

_ROOT = pathlib.Path(__file__).resolve().parents[1]
_PAGE = _ROOT / 'docs' / 'onnx.md'
BEGIN = '<!-- supported-functions-begin -->'
END = '<!-- supported-functions-end -->'


def render(text: str) -> str:
    """``text`` (the page) with the list between the markers regenerated."""
    sys.path.insert(0, str(_ROOT))
    from chainlite.onnx import functions
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + BEGIN + '\n' + functions.supported_functions_markdown() + END + tail


if __name__ == '__main__':
    _PAGE.write_text(render(_PAGE.read_text()))
