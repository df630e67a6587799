"""Runs the Python code blocks of every page under ``docs/``.

Conventions for page authors:

* Every block fenced as ```` ```python ```` is executed; blocks fenced otherwise
  (```` ```text ````, ```` ```console ````, ...) are only shown.
* A block fenced as ```` ```python no-run ```` is shown but not executed: use it for code that
  needs something the test machine lacks, or that is deliberately incomplete.
* The blocks of one page run in order, in one fresh namespace, so a block can use the names
  that earlier blocks of the same page defined. Each page starts from scratch.
* The current directory is a temporary folder, so a block may write files.

* A block fenced as ```` ```text output ```` shows what the Python block before it prints. The
  runner captures that block's standard output and compares it with the shown text the way
  doctest does, with ``...`` standing for any text (times, run-dependent digits) and runs of
  white space compared as one space. So a page shows exactly what a reader who pastes its
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


def _blocks(text: str) -> list[tuple[int, str]]:
    """The runnable Python blocks of a page, as (line number of the fence, source) pairs."""
    return [(line, source) for line, source, _ in _blocks_with_output(text)]


def _blocks_with_output(text: str) -> list[tuple[int, str, str | None]]:
    """The runnable Python blocks with the output shown after each (None if none is shown).

    An output block (```` ```text output ````) belongs to the nearest runnable Python block
    before it; two output blocks for one Python block are an error of the page.
    """
    blocks: list[tuple[int, str, str | None]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        indent, fence = m.group('indent'), m.group('fence')
        words = m.group('info').split()
        start = i + 1
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
        if words and words[0] == 'python' and 'no-run' not in words[1:]:
            blocks.append((start, '\n'.join(body) + '\n', None))
        elif words[1:2] == ['output']:
            if not blocks or blocks[-1][2] is not None:
                raise ValueError('line %d: an output block with no Python block of its own '
                                 'before it' % start)
            blocks[-1] = (blocks[-1][0], blocks[-1][1], '\n'.join(body) + '\n')
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
    blocks = _blocks_with_output(page.read_text(encoding='utf-8'))
    if not blocks:
        pytest.skip('%s has no runnable ```python blocks' % name)
    monkeypatch.chdir(tmp_path)
    namespace = {'__name__': '__docs__'}
    # A page that flips thread-local configuration must not leak it into later tests.
    saved_config = dict(vars(chainlite.config))
    try:
        for index, (line, source, expected) in enumerate(blocks):
            error = _run_block(source, '%s[block %d]' % (name, index), namespace, expected)
            if error is not None:
                first = next((s for s in source.splitlines() if s.strip()), '')
                pytest.fail('%s: block %d (fence on line %d) failed; it starts with:\n'
                            '    %s\n\n%s' % (name, index, line, first, error), pytrace=False)
    finally:
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
        '```python no-run',
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
    ])
    assert _blocks(text) == [(2, 'a = 1\n'), (13, 'b = a + 1\n'), (16, 'print("```")\n')]


def test_output_blocks_are_compared():
    text = '\n'.join(['```python', 'print("loss 0.25 after", 3, "epochs")', '```',
                      'It prints:', '```text output', 'loss ... after 3 epochs', '```'])
    (_, source, expected), = _blocks_with_output(text)
    assert expected == 'loss ... after 3 epochs\n'
    assert _run_block(source, 'page[block 0]', {}, expected) is None
    error = _run_block(source, 'page[block 0]', {}, 'loss ... after 4 epochs\n')
    assert error is not None and 'after 4 epochs' in error


def test_output_block_without_code_is_an_error():
    with pytest.raises(ValueError, match='no Python block'):
        _blocks_with_output('```text output\nx\n```')
