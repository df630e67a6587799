"""Runs the Python code blocks of every page under ``docs/``.

Conventions for page authors:

* Every block fenced as ```` ```python ```` is executed; blocks fenced otherwise
  (```` ```text ````, ```` ```console ````, ...) are only shown.
* A block fenced as ```` ```python no-run ```` is shown but not executed: use it for code that
  needs something the test machine lacks, or that is deliberately incomplete.
* The blocks of one page run in order, in one fresh namespace, so a block can use the names
  that earlier blocks of the same page defined. Each page starts from scratch.
* The current directory is a temporary folder, so a block may write files.

Write assertions into the blocks: a block passes when it runs without raising (and, as the
whole suite runs with ``-W error``, without warning).
"""
from __future__ import annotations

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
    blocks = []
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
            blocks.append((start, '\n'.join(body) + '\n'))
    return blocks


def _run_block(source: str, filename: str, namespace: dict) -> str | None:
    """Executes one block; returns the formatted traceback if it raised, else None."""
    # Registered (until the page is done) so that tracebacks quote the page's lines.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        exec(compile(source, filename, 'exec'), namespace)
    except Exception as e:
        # Drop the frame of this helper: the reader wants the block's own lines.
        return ''.join(traceback.format_exception(type(e), e, e.__traceback__.tb_next))
    return None


def _pages() -> list[pathlib.Path]:
    return sorted(_DOCS.glob('**/*.md'))


def test_pages_exist():
    assert _pages(), 'no Markdown pages found under %s' % _DOCS


@pytest.mark.parametrize('page', _pages(), ids=lambda p: p.relative_to(_DOCS).as_posix())
def test_page(page: pathlib.Path, tmp_path, monkeypatch):
    name = page.relative_to(_ROOT).as_posix()
    blocks = _blocks(page.read_text(encoding='utf-8'))
    if not blocks:
        pytest.skip('%s has no runnable ```python blocks' % name)
    monkeypatch.chdir(tmp_path)
    namespace = {'__name__': '__docs__'}
    # A page that flips thread-local configuration must not leak it into later tests.
    saved_config = dict(vars(chainlite.config))
    try:
        for index, (line, source) in enumerate(blocks):
            error = _run_block(source, '%s[block %d]' % (name, index), namespace)
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
