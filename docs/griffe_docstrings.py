"""A Griffe extension for the API reference: adapts chainlite's docstrings to Markdown.

chainlite's docstrings head their doctests ``Example:``, which the Google docstring parser
reads as an admonition of Markdown text, so the ``>>>`` lines would be shown as prose (and
their brackets taken for links). This extension renames the heading ``Examples:``, the
section Griffe parses into doctest code blocks. It also shows Sphinx cross-reference roles
(``:class:`Link```, ``:meth:`~Link.params```) as inline code rather than as raw text.
``mkdocs.yml`` loads it for mkdocstrings.
"""
from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE_HEADING = re.compile(r'^(?P<indent>[ \t]*)Example:[ \t]*$', re.MULTILINE)
_SPHINX_ROLE = re.compile(r':(?:class|meth|func|attr|mod|data|exc|obj):`~?(?P<target>[^`]+)`')


def rename_example_headings(text: str) -> str:
    """Returns ``text`` with each line reading ``Example:`` changed to ``Examples:``.

    Args:
        text: A docstring, already dedented.

    Returns:
        The docstring with its example sections renamed; indentation is kept.

    Example:
        >>> rename_example_headings('Summary.\\n\\nExample:\\n    >>> 1 + 1\\n    2')
        'Summary.\\n\\nExamples:\\n    >>> 1 + 1\\n    2'
    """
    return _EXAMPLE_HEADING.sub(r'\g<indent>Examples:', text)


def strip_sphinx_roles(text: str) -> str:
    """Returns ``text`` with Sphinx roles such as ``:class:`~a.B``` turned into inline code.

    Args:
        text: A docstring.

    Returns:
        The docstring with each role replaced by its target in backquotes.

    Example:
        >>> strip_sphinx_roles('See :meth:`forward` and :class:`~chainlite.Link`.')
        'See `forward` and `chainlite.Link`.'
    """
    return _SPHINX_ROLE.sub(r'`\g<target>`', text)


class MarkdownDocstrings(griffe.Extension):
    """Adapts every loaded object's docstring: example sections and Sphinx roles."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Called by Griffe once per loaded object, before its docstring is parsed.

        Args:
            obj: The module, class, function or attribute just loaded.
            **kwargs: Griffe's other hook arguments (unused).
        """
        if obj.docstring is not None:
            obj.docstring.value = strip_sphinx_roles(rename_example_headings(obj.docstring.value))
