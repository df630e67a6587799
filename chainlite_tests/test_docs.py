"""Runs the Python code blocks of every page under ``docs/``.

Conventions for page authors:

* Every block fenced as ```` ```python ```` is executed; blocks fenced otherwise
  (```` ```text ````, ```` ```console ````, ...) are only shown.
* Markers go after the language, as classes in braces, the attribute-list syntax of the
  site's Markdown (``pymdownx.superfences`` in ``mkdocs.yml``); GitHub still sees the
  language. A fence header with other words after the language (```` ```python no-run ````)
  would reach the site as raw text, so the tests reject it, and any marker not listed here.
* A block fenced as ```` ```python {.no-run} ```` is shown but not executed: use it for code
  that needs something the test machine lacks, or that is deliberately incomplete.
  ```` ```python {.no-run .mpi} ```` marks a script that the MPI tests run under ``mpiexec``
  (``chainlite_tests/distributed_tests/test_scripts.py``).
* A block fenced as ```` ```python {.gpu} ```` is GPU code: the page it is on runs with
  chainlite's CuPy stand-in installed (``chainlite.testing.cupy_stand_in``, so ``'@cupy:0'``
  works without a GPU), and is skipped where CuPy is not installed.
* The blocks of one page run in order, in one fresh namespace, so a block can use the names
  that earlier blocks of the same page defined. Each page starts from scratch.
* The current directory is a temporary folder, so a block may write files.

* A block fenced as ```` ```text {.output} ```` shows what the Python block before it prints.
  The runner captures that block's standard output and compares it with the shown text the
  way doctest does, with ``...`` standing for any text (times, run-dependent digits) and runs
  of white space compared as one space. So a page shows exactly what a reader who pastes its
  code sees, and the test keeps it so.

Write assertions into the blocks: a block passes when it runs without raising (and, as the
whole suite runs with ``-W error``, without warning) and prints what its output block shows.
"""
from __future__ import annotations

import contextlib
import doctest
import io
import linecache
import pathlib
import re
import traceback

import pytest

import chainlite

_ROOT = pathlib.Path(__file__).resolve().parents[1]
_DOCS = _ROOT / 'docs'
_FENCE = re.compile(r'^(?P<indent>[ \t]*)(?P<fence>`{3,})(?P<info>[^`]*)$')
# A fence header as pymdownx.superfences reads it: a language, then classes in braces
# (```python {.no-run}), or the classes alone with the language first (```{.python .no-run}).
_INFO = re.compile(
    r'^[ \t]*(?:\.?(?P<lang>[\w#.+-]+)(?=[ \t]|$))?[ \t]*(?:\{(?P<attrs>[^{}]*)\})?[ \t]*$')
_MARKERS = {'no-run', 'output', 'mpi', 'gpu'}


def _fence_info(info: str) -> tuple[str, list[str]]:
    """The language and the marker classes of a fence header (after the backticks).

    Raises ValueError for a header that the site would not read as a code block's, or for a
    marker that the tests don't know.
    """
    m = _INFO.match(info)
    words = m.group('attrs').split() if m and m.group('attrs') is not None else []
    if m is None or any(not w.startswith('.') or len(w) == 1 for w in words):
        raise ValueError('fence header %r: write markers as classes after the language, '
                         'e.g. ```python {.no-run}' % ('```' + info.strip()))
    classes = [w[1:] for w in words]
    lang = m.group('lang') or (classes.pop(0) if classes else '')
    unknown = [c for c in classes if c not in _MARKERS]
    if unknown:
        raise ValueError('fence header %r: unknown marker(s) %s (known: %s)' % (
            '```' + info.strip(), unknown, sorted(_MARKERS)))
    return lang, classes


def _blocks(text: str) -> list[tuple[int, str]]:
    """The runnable Python blocks of a page, as (line number of the fence, source) pairs."""
    return [(line, source) for line, source, _ in _blocks_with_output(text)]


def _fenced_blocks(text: str) -> list[tuple[int, str, list[str], str]]:
    """Every fenced block of a page: (line number of the fence, language, markers, body)."""
    blocks = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        indent, fence = m.group('indent'), m.group('fence')
        start = i + 1
        try:
            lang, markers = _fence_info(m.group('info'))
        except ValueError as e:
            raise ValueError('line %d: %s' % (start, e)) from None
        body = []
        i += 1
        while i < len(lines):
            close = _FENCE.match(lines[i])
            if close and len(close.group('fence')) >= len(fence) and not close.group(
                    'info').strip():
                break
            line = lines[i]
            # A fence indented inside a list item indents its body by the same amount.
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            i += 1
        i += 1
        blocks.append((start, lang, markers, '\n'.join(body) + '\n'))
    return blocks


def _blocks_with_output(text: str) -> list[tuple[int, str, str | None]]:
    """The runnable Python blocks with the output shown after each (None if none is shown).

    An output block (```` ```text {.output} ````) belongs to the nearest runnable Python
    block before it; two output blocks for one Python block are an error of the page.
    """
    blocks: list[tuple[int, str, str | None]] = []
    for start, lang, markers, body in _fenced_blocks(text):
        if lang == 'python' and 'no-run' not in markers:
            blocks.append((start, body, None))
        elif 'output' in markers:
            if not blocks or blocks[-1][2] is not None:
                raise ValueError('line %d: an output block with no Python block of its own '
                                 'before it' % start)
            blocks[-1] = (blocks[-1][0], blocks[-1][1], body)
    return blocks


_CHECKER = doctest.OutputChecker()
_OPTIONS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _run_block(source: str, filename: str, namespace: dict,
               expected: str | None = None) -> str | None:
    """Executes one block; returns what went wrong (a traceback, an output diff) or None."""
    # Registered (until the page is done) so that tracebacks quote the page's lines.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(source, filename, 'exec'), namespace)
    except Exception as e:
        # Drop the frame of this helper: the reader wants the block's own lines.
        return ''.join(traceback.format_exception(type(e), e, e.__traceback__.tb_next))
    if expected is not None and not _CHECKER.check_output(expected, printed.getvalue(),
                                                          _OPTIONS):
        example = doctest.Example(source, expected)
        return 'it printed something else than the page shows:\n' + \
            _CHECKER.output_difference(example, printed.getvalue(), _OPTIONS)
    return None


def _pages() -> list[pathlib.Path]:
    return sorted(_DOCS.glob('**/*.md'))


def test_pages_exist():
    assert _pages(), 'no Markdown pages found under %s' % _DOCS


@pytest.mark.parametrize('page', _pages(), ids=lambda p: p.relative_to(_DOCS).as_posix())
def test_page(page: pathlib.Path, tmp_path, monkeypatch):
    name = page.relative_to(_ROOT).as_posix()
    try:
        blocks = _blocks_with_output(page.read_text(encoding='utf-8'))
    except ValueError as e:
        pytest.fail('%s: %s' % (name, e), pytrace=False)
    if not blocks:
        pytest.skip('%s has no runnable ```python blocks' % name)
    monkeypatch.chdir(tmp_path)
    gpu = contextlib.nullcontext()
    if any('gpu' in markers for _, _, markers, _ in _fenced_blocks(page.read_text('utf-8'))):
        pytest.importorskip('cupy', reason='a GPU page runs on the CuPy stand-in')
        from chainlite.testing import cupy_stand_in
        gpu = cupy_stand_in.installed()
    namespace = {'__name__': '__docs__'}
    # A page that flips thread-local configuration must not leak it into later tests.
    saved_config = dict(vars(chainlite.config))
    stack = contextlib.ExitStack()
    try:
        stack.enter_context(gpu)
        for index, (line, source, expected) in enumerate(blocks):
            error = _run_block(source, '%s[block %d]' % (name, index), namespace, expected)
            if error is not None:
                first = next((s for s in source.splitlines() if s.strip()), '')
                pytest.fail('%s: block %d (fence on line %d) failed; it starts with:\n'
                            '    %s\n\n%s' % (name, index, line, first, error), pytrace=False)
    finally:
        stack.close()
        for index in range(len(blocks)):
            linecache.cache.pop('%s[block %d]' % (name, index), None)
        vars(chainlite.config).clear()
        vars(chainlite.config).update(saved_config)


def test_block_parser():
    text = '\n'.join([
        'Intro.',
        '```python',
        'a = 1',
        '```',
        '```text',
        'not code',
        '```',
        '```python {.no-run}',
        'raise SystemExit',
        '```',
        '1. A list item:',
        '',
        '   ```python',
        '   b = a + 1',
        '   ```',
        '````python',
        'print("```")',
        '````',
        '```{.python .no-run .mpi}',
        'raise SystemExit',
        '```',
        '``` python  { .mpi .no-run }',
        'raise SystemExit',
        '```',
        '```',
        'plain = "shown only"',
        '```',
    ])
    assert _blocks(text) == [(2, 'a = 1\n'), (13, 'b = a + 1\n'), (16, 'print("```")\n')]


def test_fence_headers():
    assert _fence_info('') == ('', [])
    assert _fence_info('python') == ('python', [])
    assert _fence_info('python {.no-run .mpi}') == ('python', ['no-run', 'mpi'])
    assert _fence_info('{.python .no-run}') == ('python', ['no-run'])
    assert _fence_info('text {.output}') == ('text', ['output'])
    # Words after the language, the old syntax: the site would show the fence as raw text.
    for header in ['python no-run', 'text output', 'python no-run mpi', 'python{.no-run}',
                   'python {no-run}', 'python {.no-run']:
        with pytest.raises(ValueError, match='classes after the language'):
            _fence_info(header)
    with pytest.raises(ValueError, match=r"unknown marker.*'norun'"):
        _fence_info('python {.norun}')
    with pytest.raises(ValueError, match='line 3: fence header'):
        _blocks('Text.\n\n```python no-run\nx = 1\n```\n')


def test_output_blocks_are_compared():
    text = '\n'.join(['```python', 'print("loss 0.25 after", 3, "epochs")', '```',
                      'It prints:', '```text {.output}', 'loss ... after 3 epochs', '```'])
    (_, source, expected), = _blocks_with_output(text)
    assert expected == 'loss ... after 3 epochs\n'
    assert _run_block(source, 'page[block 0]', {}, expected) is None
    error = _run_block(source, 'page[block 0]', {}, 'loss ... after 4 epochs\n')
    assert error is not None and 'after 4 epochs' in error


def test_output_block_without_code_is_an_error():
    with pytest.raises(ValueError, match='no Python block'):
        _blocks_with_output('```text {.output}\nx\n```')
    with pytest.raises(ValueError, match='no Python block'):
        _blocks_with_output('```python {.no-run}\nx\n```\n```text {.output}\nx\n```')
