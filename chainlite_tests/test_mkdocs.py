"""The documentation site: ``mkdocs.yml``'s nav and the pages under ``docs/`` agree, and the
site builds with ``mkdocs build --strict`` when MkDocs is installed (``pip install -e ".[docs]"``).

The nav check needs nothing beyond the standard library, so a page left out of the nav (or a
nav entry whose page was renamed) fails the suite even where MkDocs is not installed.
"""
from __future__ import annotations

import doctest
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


def test_site_builds_strictly(tmp_path):
    pytest.importorskip('mkdocs')
    pytest.importorskip('mkdocstrings')
    proc = subprocess.run(
        [sys.executable, '-m', 'mkdocs', 'build', '--strict', '--quiet',
         '--site-dir', str(tmp_path / 'site')],
        cwd=_ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / 'site' / 'index.html').is_file()
    assert (tmp_path / 'site' / 'api' / 'core' / 'index.html').is_file()


def test_performance_figures_match_the_benchmarks_readme():
    # docs/performance.md copies the measured rows; they must stay those of the benchmarks.
    measured = set((_ROOT / 'benchmarks' / 'README.md').read_text(encoding='utf-8').splitlines())
    page = (_DOCS / 'performance.md').read_text(encoding='utf-8').splitlines()
    rows = [line for line in page if line.startswith('| `')]
    assert len(rows) >= 15, 'the benchmark tables are missing from docs/performance.md'
    stale = [row for row in rows if row not in measured]
    assert not stale, ('rows of docs/performance.md not found verbatim in '
                       'benchmarks/README.md:\n%s' % '\n'.join(stale))
