"""The lighter code blocks are drawn as the theme draws the full ones: the classes merged into one are coloured by
one rule of mkdocs-material's stylesheet, and the unwrapped ones by none but the code's own colour, or the
punctuation and operator greys the module says are given up."""

import re
from pathlib import Path

import material

from sitebuild.in_mkdocs.code_tokens import PLAIN_TOKENS, SAME_COLOUR, lighter_code


def theme_rules() -> list[tuple[set[str], str]]:
    """Each rule of the theme's stylesheet that colours Pygments classes: (its classes, its declarations)."""
    folder = Path(material.__file__).parent / "templates" / "assets" / "stylesheets"
    css = "".join(path.read_text(encoding="utf-8") for path in folder.glob("main.*.min.css"))
    rules = []
    for selectors, declarations in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        classes = set(re.findall(r"\.highlight \.(\w+)(?=,|$)", selectors))
        if classes and "color" in declarations:
            rules.append((classes, declarations))
    return rules


def test_classes_made_one_share_one_colour_rule():
    rules = theme_rules()
    for main, members in SAME_COLOUR.items():
        holding = [declarations for classes, declarations in rules if main in classes]
        assert holding, f"no colour for .{main}"
        for member in members:
            assert [d for classes, d in rules if member in classes] == holding, f".{member} is drawn unlike .{main}"


def test_unwrapped_classes_have_no_colour_of_their_own():
    given_up = {"p": "punctuation", "o": "operator"}  # a lighter grey, given up (the module's text says so)
    for classes, declarations in theme_rules():
        for token in set(PLAIN_TOKENS) & classes:
            colour = re.search(r"(?<![-\w])color:([^;]+)", declarations)[1]
            assert colour == f"var(--md-code-hl-{given_up.get(token, 'name')}-color)", (token, colour)


def test_the_text_of_a_block_is_unchanged_and_has_fewer_spans():
    block = (
        '<pre><code><span class="kn">from</span><span class="w"> </span><span class="nn">torch</span>'
        '<span class="w"> </span><span class="kn">import</span><span class="w"> </span><span class="n">nn</span>\n'
        '<span class="n">x</span> <span class="o">=</span> <span class="mi">1</span><span class="o">+</span>'
        '<span class="mf">2.0</span>  <span class="c1"># sum</span></code></pre>'
    )
    lighter = lighter_code(block)
    assert re.sub(r"<[^>]+>", "", lighter) == re.sub(r"<[^>]+>", "", block)
    assert lighter.count("<span") == 6 < block.count("<span") == 13
    assert '<span class="k">from</span> <span class="nf">torch</span> <span class="k">import</span> nn' in lighter
