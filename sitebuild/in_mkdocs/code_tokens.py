"""Fewer elements in highlighted code. Pygments wraps every token in a `<span>`, so a page of code is mostly spans
(todays_models had 11,000 of its 12,000 elements), and a phone spends seconds laying them out. Three steps, each
keeping what mkdocs-material draws (the notebook pages keep their own, nbconvert's, colours and are left alone):

- the spans of names, whitespace and string prefixes (`f` of an f-string), drawn in the code's own colour, are
  unwrapped; so are those of punctuation and operators, which lose a slightly lighter grey;
- classes that the theme draws in one colour become one class (`s2` and `si` of an f-string are both `s`);
- neighbouring spans of one class, with nothing or only whitespace between them (the lines of a docstring),
  become one span.
"""

from __future__ import annotations

import re

PLAIN_TOKENS = ("n", "w", "sa", "p", "o")  # a name, whitespace, a string prefix, punctuation, an operator
# Pygments' classes that mkdocs-material's stylesheet colours in one rule, under the class that stands for them
# (tests/unit/test_code_tokens.py reads the theme's stylesheet to hold this to it).
SAME_COLOUR = {
    "k": ("kd", "kn", "kp", "kr", "kt"),  # keywords
    "s": ("s1", "s2", "sb", "sc", "si", "ss"),  # strings
    "m": ("il", "mb", "mf", "mh", "mi", "mo"),  # numbers
    "nb": ("bp", "no"),  # builtins and constants
    "nf": ("nc", "ne", "nn"),  # names of functions, classes, exceptions and modules
    "c": ("c1", "ch", "cm", "cs", "sd"),  # comments and docstrings
}
_CANONICAL = {member: main for main, members in SAME_COLOUR.items() for member in members}
_PLAIN_SPAN = re.compile(rf'<span class="(?:{"|".join(PLAIN_TOKENS)})">([^<]*)</span>')
_ONE_COLOUR = re.compile(rf'<span class="({"|".join(_CANONICAL)})">')
# Only token classes merge: line numbers (linenos, normal, special) and highlighted lines (hll) keep their spans.
_NEIGHBOURS = re.compile(
    r'<span class="((?!linenos\b|normal\b|special\b|hll\b)\w+)">([^<]*)</span>(\s*)<span class="\1">'
)
_CODE_BLOCK = re.compile(r"<pre\b[^>]*>.*?</pre>", re.S)


def _lighter(block: str) -> str:
    block = _PLAIN_SPAN.sub(r"\1", block)
    block = _ONE_COLOUR.sub(lambda span: f'<span class="{_CANONICAL[span[1]]}">', block)
    merged = None
    while merged != block:
        merged, block = block, _NEIGHBOURS.sub(r'<span class="\1">\2\3', block)
    return block


def lighter_code(html: str) -> str:
    """`html` with fewer spans in its `<pre>` blocks, drawn the same (see the module's text); text is untouched.

    Examples:
        >>> lighter_code('<pre><code><span class="n">x</span><span class="o">=</span>'
        ...              '<span class="sa">f</span><span class="s2">&quot;</span><span class="si">{</span>'
        ...              '<span class="n">y</span><span class="si">}</span><span class="s2">&quot;</span></code></pre>')
        '<pre><code>x=f<span class="s">&quot;{</span>y<span class="s">}&quot;</span></code></pre>'
        >>> lighter_code('<p><span class="n">kept outside code</span></p>')
        '<p><span class="n">kept outside code</span></p>'
    """
    return _CODE_BLOCK.sub(lambda block: _lighter(block.group(0)), html)
