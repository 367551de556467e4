"""The table of contents: every chapter, in reading order, described once.

Both editions' navigation, the `transformer-tutorial` command, the notebook list, the build and the
tests read this list. A chapter is one folder, `docs/<slug>/`, and one entry here (CONTRIBUTING.md).
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Chapter:
    """One chapter: a script that runs, and the page (in each language) that shows what it prints."""

    slug: str  # its folder, docs/<slug>/
    title: str  # the page's heading, without the number
    title_zh: str
    number: int | None = None  # the numbered chapters, 1 to 14; the home page and the two guides have none
    teaches: tuple[str, ...] = ()  # the tutorial_code modules whose code this page shows first
    page: str = ""  # docs/<page>; defaults to <slug>/index.md
    runs_alone: bool = False  # it times things: the build runs it with no other chapter beside it

    @property
    def folder(self) -> str:
        """Its folder in a checkout: the pages, the script, the checks, the exercises, the Chinese strings."""
        return f"docs/{self.slug}"

    @property
    def script(self) -> str:
        return f"{self.folder}/script.py"

    @property
    def page_path(self) -> str:
        """Its English page, under docs/; the Chinese page is the same name ending in `.zh.md`."""
        return self.page or f"{self.slug}/index.md"

    def file(self, name: str) -> Path:
        """A file of its folder (`script.py`): in this checkout, or in the installed package."""
        return chapter_folders() / self.slug / name

    @property
    def command(self) -> str:
        """Its `transformer-tutorial` command."""
        return self.slug.replace("_", "-")

    def heading(self, language: str = "en") -> str:
        """The title with its number, as the navigation and the page's first heading show it."""
        title = self.title_zh if language == "zh" else self.title
        return f"{self.number}. {title}" if self.number is not None else title


CHAPTERS = (
    Chapter("overview", "Attention, by hand", "手写注意力", page="index.md"),
    Chapter("why_attention", "Why attention", "为什么需要注意力", 1, ("why_attention",), runs_alone=True),
    Chapter("scaled_dot_product_attention", "Scaled dot-product attention", "缩放点积注意力", 2, ("attention",)),
    Chapter("masks", "Masks", "掩码", 3, ("masks",)),
    Chapter("multi_head_attention", "Multi-head attention and W_O", "多头注意力与 W_O", 4, ("multi_head",)),
    Chapter("positional_encoding", "Positional encoding", "位置编码", 5, ("positional",)),
    Chapter(
        "feed_forward_and_norm",
        "Feed-forward, residuals and LayerNorm",
        "前馈网络、残差连接与层归一化",
        6,
        ("feed_forward", "residual", "layer_norm", "encoder"),
    ),
    Chapter(
        "training",
        "The complete model, trained",
        "完整模型及其训练",
        7,
        ("digit_model", "training_loop", "sum_task", "tasks"),
    ),
    Chapter(
        "padded_tasks",
        "Classifying and tagging variable-length sequences",
        "给变长序列分类与逐词标注",
        8,
        ("padded_tasks",),
    ),
    Chapter("checking_against_pytorch", "Checking against PyTorch", "与 PyTorch 对照检验", 9, ("from_torch",)),
    Chapter(
        "encoder_decoder",
        "Cross-attention and the encoder-decoder",
        "交叉注意力与编码器-解码器",
        10,
        ("decoder", "reverse_task", "number_words"),
    ),
    Chapter(
        "language_model",
        "A language model that writes",
        "会生成文本的语言模型",
        11,
        ("language_model",),
    ),
    Chapter("kv_cache", "Generating fast, with a KV cache", "用 KV 缓存加速生成", 12),
    Chapter("local_attention", "Local attention", "局部注意力", 13, ("local_attention",)),
    Chapter(
        "todays_models",
        "From 2017 to today's models",
        "从 2017 年到今天的模型",
        14,
        (
            "rms_norm",
            "rotary",
            "alibi",
            "relative_position",
            "swiglu",
            "grouped_query",
            "llama",
            "gpt2",
            "from_transformers",
        ),
    ),
    Chapter("troubleshooting", "Troubleshooting", "故障排查", teaches=("debugging", "troubleshooting")),
    Chapter("best_practices", "Best practices", "最佳实践", teaches=("efficiency", "mixed_precision", "quantization")),
)
"""The chapters in reading order: the home page, the fourteen numbered chapters, the two guides."""

PAGES_AFTER = (  # pages without a script, after the chapters in the navigation: (page, title, Chinese title)
    ("where_to_go_next.md", "Where to go next", "接下来读什么"),
    ("corrections.md", "Corrections to the source articles", "对原文的更正"),
    ("notebooks.md", "Notebooks", "笔记本"),
)


def chapter_folders() -> Path:
    """The folder of the chapter folders: `docs/` in a checkout; where the package is installed without one, its
    copy `tutorial_chapters` (pyproject.toml)."""
    checkout = Path(__file__).resolve().parent.parent / "docs"
    if checkout.is_dir():
        return checkout
    return Path(str(importlib.resources.files("tutorial_chapters")))


def by_slug() -> dict[str, Chapter]:
    return {chapter.slug: chapter for chapter in CHAPTERS}


CORE_PATH_ENDS = 9  # the core path: chapters 1 to 9, from why attention to a trained model checked against PyTorch

PARTS = {  # the navigation's parts, in each language
    "core": ("The core path", "核心路径"),
    "further": ("Going further", "进阶"),
    "reference": ("Reference", "参考"),
}


def part(chapter: Chapter) -> str:
    """`core`, `further` or `reference`: the part of the navigation a chapter stands in (not the home page)."""
    if chapter.number is None:
        return "reference"
    return "core" if chapter.number <= CORE_PATH_ENDS else "further"


def navigation(language: str = "en") -> list:
    """The site's navigation in MkDocs' `nav` form, for one language (`en` or `zh`): the home page, then the
    core path, going further (with where to go next) and the reference (the guides and the notebooks)."""
    home, *rest = CHAPTERS
    zh = language == "zh"
    sections: dict[str, list] = {name: [] for name in PARTS}
    for chapter in rest:
        sections[part(chapter)].append({chapter.heading(language): chapter.page_path})
    for page, title, title_zh in PAGES_AFTER:
        sections["further" if page == "where_to_go_next.md" else "reference"].append({title_zh if zh else title: page})
    nav: list = [{"首页" if zh else "Home": home.page_path}]
    nav += [{PARTS[name][zh]: items} for name, items in sections.items()]
    if not zh:  # the API reference is English only; the Chinese navigation links to it (sitebuild/in_mkdocs/plugin.py)
        nav.append({"API reference": "reference/"})
    return nav
