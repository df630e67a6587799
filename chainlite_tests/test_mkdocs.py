"""The documentation site: ``mkdocs.yml``'s nav and the pages under ``docs/`` agree, and the
site builds with ``mkdocs build --strict`` without a single warning when MkDocs is installed
(``pip install -e ".[docs]"``; the ``test`` extra brings it too), every code fence of a page
becoming a code block of the built site.

The nav check needs nothing beyond the standard library, so a page left out of the nav (or a
nav entry whose page was renamed) fails the suite even where MkDocs is not installed.
"""
from __future__ import annotations

import doctest
import html.parser
import importlib.util
import pathlib
import re
import subprocess
import sys

import pytest

_ROOT = pathlib.Path(__file__).resolve().parents[1]
_DOCS = _ROOT / 'docs'
# A nav entry: "- page.md" or "- Title: page.md" (the title may be quoted and hold colons).
_NAV_PAGE = re.compile(r'^\s*-\s+(?:.*:\s+)?(?P<page>[^\s:"\']+\.md)\s*$')


def _nav_pages(config_text: str) -> list[str]:
    """The pages named in the ``nav:`` section of an ``mkdocs.yml`` text, in order."""
    pages = []
    in_nav = False
    for line in config_text.splitlines():
        if re.match(r'^nav:\s*$', line):
            in_nav = True
            continue
        if in_nav and line and not line[0].isspace() and not line.startswith('#'):
            break  # the next top-level key
        m = _NAV_PAGE.match(line) if in_nav else None
        if m:
            pages.append(m.group('page'))
    return pages


def _config_text() -> str:
    return (_ROOT / 'mkdocs.yml').read_text(encoding='utf-8')


def test_nav_parser():
    text = '\n'.join([
        'site_name: x',
        'nav:',
        '  - Home: index.md',
        '  - "Tutorial: one": tutorial.md',
        '  - Section:',
        '      - Part: sub/part.md',
        '      - bare.md',
        'plugins:',
        '  - other.md',
    ])
    assert _nav_pages(text) == ['index.md', 'tutorial.md', 'sub/part.md', 'bare.md']


def test_config_names_the_docs_folder():
    text = _config_text()
    assert re.search(r'^site_name:\s*chainlite\s*$', text, re.MULTILINE)
    assert re.search(r'^docs_dir:\s*docs\s*$', text, re.MULTILINE)


def test_every_nav_page_exists():
    pages = _nav_pages(_config_text())
    assert pages and pages[0] == 'index.md'
    missing = [p for p in pages if not (_DOCS / p).is_file()]
    assert not missing, 'mkdocs.yml names pages that docs/ lacks: %s' % missing


def test_nav_lists_each_page_once():
    pages = _nav_pages(_config_text())
    twice = sorted({p for p in pages if pages.count(p) > 1})
    assert not twice, 'pages listed twice in the nav: %s' % twice


def test_every_page_is_in_the_nav():
    listed = set(_nav_pages(_config_text()))
    pages = {p.relative_to(_DOCS).as_posix() for p in _DOCS.glob('**/*.md')}
    unlisted = sorted(pages - listed)
    assert not unlisted, ('pages under docs/ missing from the nav of mkdocs.yml (the site '
                          'would not link them): %s' % unlisted)


def _docstrings_extension():
    pytest.importorskip('griffe')
    spec = importlib.util.spec_from_file_location(
        'griffe_docstrings', _DOCS / 'griffe_docstrings.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_headings_become_examples_sections():
    module = _docstrings_extension()
    text = 'Summary.\n\n    Example:\n        >>> 1\n        1\n\nNo Example: here.'
    assert module.rename_example_headings(text) == (
        'Summary.\n\n    Examples:\n        >>> 1\n        1\n\nNo Example: here.')


def test_sphinx_roles_become_inline_code():
    module = _docstrings_extension()
    assert module.strip_sphinx_roles(':class:`~chainlite.Link`, :meth:`Link.params`, '
                                     ':mod:`a`, ``code``') == (
        '`chainlite.Link`, `Link.params`, `a`, ``code``')
    tests = doctest.DocTestFinder().find(module)
    results = [doctest.DocTestRunner().run(t, out=lambda s: None) for t in tests]
    assert sum(r.attempted for r in results) >= 2
    assert not any(r.failed for r in results)


_FENCE_LINE = re.compile(r'^[ \t]*(`{3,})(.*)$')


def _fence_count(markdown: str) -> int:
    """How many fenced code blocks a Markdown text opens."""
    count, closing = 0, None
    for line in markdown.splitlines():
        m = _FENCE_LINE.match(line)
        if m is None:
            continue
        if closing is None:
            count, closing = count + 1, len(m.group(1))
        elif len(m.group(1)) >= closing and not m.group(2).strip():
            closing = None
    return count


class _TextOutsideCode(html.parser.HTMLParser):
    """Collects the text of an HTML page that is not inside code, a script or a style."""

    _SKIPPED = {'code', 'pre', 'script', 'style', 'textarea'}

    def __init__(self):
        super().__init__()
        self.depth = 0
        self.text = []

    def handle_starttag(self, tag, attrs):
        self.depth += tag in self._SKIPPED

    def handle_endtag(self, tag):
        self.depth -= tag in self._SKIPPED and self.depth > 0

    def handle_data(self, data):
        if not self.depth:
            self.text.append(data)


def _text_outside_code(page_html: str) -> str:
    parser = _TextOutsideCode()
    parser.feed(page_html)
    parser.close()
    return ''.join(parser.text)


def test_fence_count_and_text_outside_code():
    text = 'a\n```python {.no-run}\nx\n```\n````\n```\n````\n  ```\n  y\n  ```\n'
    assert _fence_count(text) == 3
    assert _text_outside_code(
        '<p>a <code>```python</code></p><pre><code>```</code></pre><script>"```"</script>'
        '<p>b</p>') == 'a b'
    assert '```' in _text_outside_code('<p><code>x</code>```python no-run</p>')


def test_site_builds_strictly(tmp_path):
    pytest.importorskip('mkdocs')
    pytest.importorskip('mkdocstrings')
    pytest.importorskip('pymdownx')
    site = tmp_path / 'site'
    pages = sorted(_DOCS.glob('**/*.md'))
    fences = [_fence_count(page.read_text(encoding='utf-8')) for page in pages]
    # No --quiet: with it, MkDocs 1.6 hides the warnings from --strict too, and builds.
    # The build takes 10-20 s on an idle 2-core machine, and up to two minutes on a busy one.
    proc = subprocess.run(
        [sys.executable, '-m', 'mkdocs', 'build', '--strict', '--site-dir', str(site)],
        cwd=_ROOT, capture_output=True, text=True, timeout=300, check=False)
    output = proc.stdout + proc.stderr
    warnings = [line for line in output.splitlines() if 'WARNING' in line]
    assert not warnings, 'mkdocs build warned:\n' + '\n'.join(warnings)
    assert proc.returncode == 0, output
    assert (site / 'index.html').is_file()
    assert (site / 'api' / 'core' / 'index.html').is_file()

    # Every fence of a page is a code block of its built page: a fence header that the
    # Markdown extensions don't read leaves backticks in the text, or swallows the block
    # into a paragraph.
    problems = []
    for page, count in zip(pages, fences):
        # MkDocs' directory URLs: a.md is built as a/index.html, sub/index.md as sub/index.html.
        name = page.relative_to(_DOCS).with_suffix('')
        built = site / (name.parent if name.name == 'index' else name) / 'index.html'
        blocks = built.read_text(encoding='utf-8').count('<pre')
        if blocks < count:
            problems.append('%s: %d fenced blocks in the Markdown, %d code blocks built' % (
                page.relative_to(_ROOT).as_posix(), count, blocks))
    for built in sorted(site.glob('**/*.html')):
        if '```' in _text_outside_code(built.read_text(encoding='utf-8')):
            problems.append('%s: raw ``` in the text outside code' % built.relative_to(site))
    assert not problems, '\n'.join(problems)


def test_performance_figures_match_the_benchmarks_readme():
    # docs/performance.md copies the measured rows; they must stay those of the benchmarks.
    measured = set((_ROOT / 'benchmarks' / 'README.md').read_text(encoding='utf-8').splitlines())
    page = (_DOCS / 'performance.md').read_text(encoding='utf-8').splitlines()
    rows = [line for line in page if line.startswith('| `')]
    assert len(rows) >= 15, 'the benchmark tables are missing from docs/performance.md'
    stale = [row for row in rows if row not in measured]
    assert not stale, ('rows of docs/performance.md not found verbatim in '
                       'benchmarks/README.md:\n%s' % '\n'.join(stale))
