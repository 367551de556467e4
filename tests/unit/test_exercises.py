"""The graded exercises: every reference passes its checks, every starter fails cleanly, planted mistakes
get their hint, and the learner's code runs in a separate process with a time limit."""

# ruff: noqa: E501 - the table of planted mistakes reads best one mistake per line

import subprocess
import sys

import pytest
from conftest import ROOT

from tutorial_tools.exercises import EXERCISES
from tutorial_tools.exercises.checks import NOT_IMPLEMENTED
from tutorial_tools.exercises.grading import grade, grade_in_subprocess, load
from tutorial_tools.exercises.starter import reference_code, starter_code

# (exercise, text of the reference solution, planted mistake, words of the hint it must get)
PLANTED = [
    ("recurrent-by-hand", "h = torch.tanh(x[:, t] @ rnn.weight_ih_l0.T", "h = (x[:, t] @ rnn.weight_ih_l0.T", "tanh"),
    ("recurrent-by-hand", "h @ rnn.weight_hh_l0.T", "0 * h @ rnn.weight_hh_l0.T", "starts again from zero"),
    ("self-attention", "self.W_V(x), mask)", "self.W_V(x))", "mask is ignored"),
    ("scaled-dot-product-attention", "/ math.sqrt(d_k)", "/ d_k", "not by d_k"),
    ("scaled-dot-product-attention", "weights = torch.softmax(scores, dim=-1)", "weights = torch.softmax(scores, dim=-2)", "dim=-1"),
    ("scaled-dot-product-attention", 'masked_fill(~mask, float("-inf"))', "masked_fill(~mask, -1e9)", "leaks"),
    ("scaled-dot-product-attention", "no_key = torch.isneginf(scores).all(dim=-1, keepdim=True)", "no_key = torch.zeros_like(scores[..., :1], dtype=torch.bool)", "NaN"),
    ("scaled-dot-product-attention", 'masked_fill(~mask, float("-inf"))', 'masked_fill(mask, float("-inf"))', "~mask"),
    ("causal-mask", ".tril()", ".tril(1)", "t + 1"),
    ("causal-mask", ".tril()", ".tril(-1)", "diagonal is missing"),
    ("causal-mask", ".tril()", ".triu()", "upper triangle"),
    ("padding-mask", "return keep[:, None, None, :]", "return keep", "(B, 1, 1, T)"),
    ("padding-mask", "positions[None, :] < lengths", "positions[None, :] <= lengths", "<="),
    ("padding-mask", "return keep[:, None, None, :]", "return ~keep[:, None, None, :]", "flipped"),
    ("mask-for-pytorch", "return ~mask", "return mask", "'blocked'"),
    ("split-and-combine-heads", "x.transpose(1, 2).reshape(B, T, h * d_k)", "x.reshape(B, T, h * d_k)", "transpose(1, 2)"),
    ("multi-head-forward", "return self.W_O(combine_heads(heads)), weights", "return combine_heads(heads), weights", "W_O"),
    ("multi-head-forward", "self.attend(Q, K, V, mask)", "self.attend(Q, K, V, None)", "mask is ignored"),
    ("sinusoidal-table", "torch.sin(position * frequency)\n    table[:, 1::2] = torch.cos", "torch.cos(position * frequency)\n    table[:, 1::2] = torch.sin", "swapped"),
    ("shift-rotation", "torch.sin(k * frequency)", "torch.sin(-k * frequency)", "back"),
    ("feed-forward", "self.dropout(torch.relu(self.linear1(x)))", "self.dropout(self.linear1(x))", "no activation"),
    ("encoder-layer", "self.attention(self.norm1(x), mask=mask)", "self.attention(self.norm1(x))", "mask is ignored"),
    ("encoder-layer", "if self.norm_first:", "if not self.norm_first:", "other order"),
    ("learning-rate-schedule", "return (step + 1) / warmup_steps", "return step / warmup_steps", "step 0"),
    ("classifier-pooling", "pooled = (encoded * real).sum(dim=1) / real.sum(dim=1).clamp(min=1)", "pooled = encoded.mean(dim=1)", "padding"),
    ("copy-attention-weights", "target.W_Q.weight.copy_(W_Q)", "target.W_Q.weight.copy_(W_Q.T)", ".T"),
    ("copy-attention-weights", "target.W_Q.weight.copy_(W_Q)", "target.W_Q.weight.copy_(W_K)", "in that order"),
    ("shift-right", "return torch.cat([start, target[:, :-1]], dim=1)", "return target", "not shifted"),
    ("decoder-layer", "self.self_attention(x, mask=target_mask)", "self.self_attention(x)", "future"),
    ("decoder-layer", "self.cross_attention(x, memory, memory, mask=memory_mask)", "self.cross_attention(x, memory, memory)", "memory_mask"),
    ("beam-search", "candidates = (scores.unsqueeze(-1) + log_p).flatten(1)", "candidates = log_p.flatten(1)", "total so far"),
    ("beam-search", "logits[:, -1].log_softmax(dim=-1)", "logits[:, -1].softmax(dim=-1)", "log_softmax"),
    ("beam-search", "source.repeat_interleave(beams, dim=0)", "source.repeat(beams, 1)", "repeat_interleave"),
    ("beam-search", "return drafts[:, 0, 1:]", "return drafts[:, -1, 1:]", "drafts[:, 0]"),
    ("beam-search", "candidates.topk(min(beam_width, beams * V), dim=-1)", "candidates.topk(1, dim=-1)", "greedy decoding"),
    ("unigram-bpc", "log_p = torch.log2(counts / counts.sum())", "log_p = torch.log(counts / counts.sum())", "nats"),
    ("unigram-bpc", "counts = torch.bincount(train_ids, minlength=vocab_size).double() + 1", "counts = torch.bincount(train_ids, minlength=vocab_size).double()", "add one"),
    ("bigram-bpc", "counts.sum(dim=1, keepdim=True)", "counts.sum(dim=0, keepdim=True)", "each row"),
    ("top-p-filter", "ahead = probabilities.cumsum(dim=-1) - probabilities", "ahead = probabilities.cumsum(dim=-1)", "not including it"),
    ("top-p-filter", "outside = outside.scatter(-1, order, outside)", "outside = outside", "own order"),
    ("top-p-filter", 'return logits.masked_fill(outside, float("-inf"))', "return logits.masked_fill(outside, 0.0)", "-inf"),
    ("kv-cache", "allowed = None if n == 1 else", "allowed = None if True else", "given together"),
    ("kv-cache", "offset = cache.length if position_offset is None", "offset = 0 if position_offset is None", "cache.length"),
    ("band-mask", "return (distance >= 0) & (distance < window)", "return (distance >= 0) & (distance <= window)", "one key too many"),
    ("band-mask", "return (distance >= 0) & (distance < window)", "return (distance <= 0) & (distance > -window)", "wrong side"),
    ("band-mask", "return distance.abs() < window", "return distance.abs() <= window", "one key too many"),
    ("sliding-window-cache", "self.keys = key[..., -self.window :, :]", "self.keys = key[..., -self.window - 1 :, :]", "window + 1"),
    ("sliding-window-cache", "self.keys = key[..., -self.window :, :]", "self.keys = key[..., -self.window + 1 :, :]", "window - 1"),
    ("sliding-window-cache", "self.keys = key[..., -self.window :, :]", "self.keys = key[..., : self.window, :]", "oldest"),
    ("rms-norm", "x.pow(2).mean(dim=-1, keepdim=True)", "x.pow(2).mean()", "last axis only"),
    ("rms-norm", "x * torch.rsqrt(mean_square + self.eps) * self.weight", "x * torch.rsqrt(mean_square + self.eps)", "self.weight"),
    ("rms-norm", "x * torch.rsqrt(mean_square + self.eps)", "x / (mean_square + self.eps)", "root of the mean square"),
    ("apply-rotary", "turned_a = a * cos - b * sin  # (..., T, d/2)\n    turned_b = b * cos + a * sin", "turned_a = a * cos + b * sin  # (..., T, d/2)\n    turned_b = b * cos - a * sin", "wrong way"),
    ("apply-rotary", "rotary_angles(T, head_dim, base, offset)", "rotary_angles(T, head_dim, base)", "offset"),
    ("swiglu", "F.silu(self.gate(x)) * self.up(x)", "self.gate(x) * F.silu(self.up(x))", "on the gate"),
    ("swiglu", "F.silu(self.gate(x)) * self.up(x)", "torch.sigmoid(self.gate(x)) * self.up(x)", "GLU's"),
    ("grouped-attention", "K = K.repeat_interleave(group, dim=1)  # (B, h, T_k, d_head): the same tensor\n    V = V.repeat_interleave(group, dim=1)", "K = K.repeat(1, group, 1, 1)  # (B, h, T_k, d_head): the same tensor\n    V = V.repeat(1, group, 1, 1)", "repeat_interleave"),
    ("grouped-attention", "scaled_dot_product_attention(Q, K, V, mask, dropout_p=dropout_p)", "scaled_dot_product_attention(Q, K, V, None, dropout_p=dropout_p)", "mask is ignored"),
]  # fmt: skip

# The hint each find-the-bug starter must get, untouched.
BUG_HINTS = {
    "recurrent-time-axis": "dim=1",
    "shared-projection": "W_K",
    "attention-too-sharp": "sqrt(d_k)",
    "attention-wrong-axis": "dim=-1",
    "flipped-mask": "'may attend'",
    "heads-without-transpose": "transpose(1, 2)",
    "dropout-on-the-residual": "residual stream",
    "decoder-sees-the-future": "causal mask",
    "cache-offset": "cache.length",
}


def graded(text: str, name: str, tmp_path):
    path = tmp_path / EXERCISES[name].file_name
    path.write_text(text, encoding="utf-8")
    return grade(EXERCISES[name], load(path), str(path))


def test_at_least_20_exercises_on_at_least_ten_chapters():
    assert len(EXERCISES) >= 20
    assert len({exercise.chapter for exercise in EXERCISES.values()}) >= 10
    assert {name for name, exercise in EXERCISES.items() if exercise.bug} == set(BUG_HINTS)


@pytest.mark.parametrize("name", EXERCISES)
def test_the_solution_shown_on_the_page_passes_every_check(name, tmp_path):
    results = graded(reference_code(EXERCISES[name]), name, tmp_path)
    assert all(result.passed for result in results), [result for result in results if not result.passed]


@pytest.mark.parametrize("name", EXERCISES)
def test_the_untouched_starter_fails_cleanly(name, tmp_path):
    exercise = EXERCISES[name]
    results = graded(starter_code(exercise), name, tmp_path)
    failed = [result for result in results if not result.passed]
    assert failed
    if exercise.bug:  # the starter runs, and the planted mistake gets its hint
        assert any(BUG_HINTS[name] in result.hint for result in failed), failed
    else:  # every check says "not implemented yet", nothing else
        assert all(result.message == NOT_IMPLEMENTED and not result.hint for result in results), results


@pytest.mark.parametrize(("name", "correct", "planted", "hint"), PLANTED, ids=[f"{p[0]}:{p[3]}" for p in PLANTED])
def test_a_planted_mistake_gets_its_hint(name, correct, planted, hint, tmp_path):
    code = reference_code(EXERCISES[name])
    assert code.count(correct) >= 1, f"the reference of {name} no longer contains {correct!r}"
    results = graded(code.replace(correct, planted, 1), name, tmp_path)
    hints = [result.hint for result in results if not result.passed]
    assert any(hint in text for text in hints), hints


def test_every_exercise_with_a_planted_mistake_is_covered():
    covered = {name for name, *_ in PLANTED} | set(BUG_HINTS)
    assert covered == set(EXERCISES)


def run_cli(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "tutorial_tools", *args], capture_output=True, text=True, cwd=cwd, timeout=120
    )


@pytest.mark.integration
def test_exercise_writes_a_starter_once_and_check_grades_it(tmp_path):
    written = run_cli("exercise", "causal-mask", cwd=tmp_path)
    assert written.returncode == 0 and (tmp_path / "causal_mask.py").is_file()
    again = run_cli("exercise", "causal-mask", cwd=tmp_path)
    assert again.returncode == 2 and "--force" in again.stderr
    starter = run_cli("check", "causal-mask", cwd=tmp_path)
    assert starter.returncode == 1 and "not implemented yet" in starter.stdout
    assert "Traceback" not in starter.stdout + starter.stderr
    (tmp_path / "causal_mask.py").write_text(reference_code(EXERCISES["causal-mask"]))
    (tmp_path / "shift_right.py").write_text("import torch\n\n\ndef shift_right(target):\n    return target\n")
    solved = run_cli("check", "causal-mask", cwd=tmp_path)
    assert solved.returncode == 0 and "all checks pass" in solved.stdout
    listed = run_cli("exercise", "--list", cwd=tmp_path).stdout.splitlines()
    state = {line.split()[0]: line for line in listed}
    assert set(state) == set(EXERCISES)
    assert state["causal-mask"].endswith("passes") and state["shift-right"].endswith("does not pass yet")
    assert state["kv-cache"].endswith("not started") and "kv_cache" in state["kv-cache"]
    forced = run_cli("exercise", "causal-mask", "--force", cwd=tmp_path)
    assert forced.returncode == 0 and "NotImplementedError" in (tmp_path / "causal_mask.py").read_text()


@pytest.mark.integration
def test_an_unknown_exercise_gets_a_suggestion(tmp_path):
    result = run_cli("check", "causal-masks", cwd=tmp_path)
    assert result.returncode == 2 and "did you mean 'causal-mask'" in result.stderr


@pytest.mark.integration
def test_a_syntax_error_is_reported_with_its_line(tmp_path):
    (tmp_path / "causal_mask.py").write_text("import torch\n\ndef causal_mask(seq_len)\n    return None\n")
    result = run_cli("check", "causal-mask", cwd=tmp_path)
    assert result.returncode == 1 and "syntax error on line 3" in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_a_missing_module_is_named(tmp_path):
    path = tmp_path / "causal_mask.py"
    path.write_text("import torhc\n")
    with pytest.raises(Exception, match="imports 'torhc', which is not installed"):
        load(path)


@pytest.mark.integration
def test_an_endless_loop_is_stopped_and_reported(tmp_path):
    path = tmp_path / "causal_mask.py"
    path.write_text("import itertools\n\nfor step in itertools.count():\n    pass\n")
    status, text = grade_in_subprocess("causal-mask", path, time_limit=3)
    assert status == 1
    assert "did not finish within 3 s while loading the file: look for a loop that never ends" in text


def test_the_site_build_never_imports_the_grader():
    """Pages show the solutions as included text; no chapter, hook or build module runs a learner's file."""
    paths = [*(ROOT / "hooks").rglob("*.py"), *(ROOT / "sitebuild").rglob("*.py")]
    paths += [*(ROOT / "docs").glob("*/script.py"), *(ROOT / "docs").glob("*/checks.py")]
    for path in paths:
        assert "exercises" not in path.read_text(encoding="utf-8"), path


def test_every_exercise_ends_its_chapter_page_with_the_commands_and_a_folded_solution():
    for name, exercise in EXERCISES.items():
        page = (ROOT / "docs" / exercise.chapter / "index.md").read_text(encoding="utf-8")
        exercises = page.split("\n## Exercises\n", 1)
        assert len(exercises) == 2, f"docs/{exercise.chapter}/index.md has no Exercises section"
        entry = exercises[1].split(f"### {exercise.title}\n", 1)[1].split("\n### ", 1)[0]
        assert f"`transformer-tutorial exercise {name}`" in entry and f"`transformer-tutorial check {name}`" in entry
        source = f"tutorial_code/{exercise.module.split('.')[-1]}.py"
        solution = entry.split('??? success "Solution', 1)[1]
        included = [line.strip() for line in solution.splitlines() if "--8<--" in line]
        if exercise.bug:  # the one repaired function, after one line that says what the bug was
            (fixed,) = [
                section for section in exercise.sections if exercise.bug[0] in starter_section(exercise, section)
            ]
            assert included == [f'--8<-- "{source}:{fixed}"'], name
            assert "**The bug:** " in solution.split("```", 1)[0], name
        else:
            assert included == [f'--8<-- "{source}:{section}"' for section in ("imports", *exercise.sections)], name


def starter_section(exercise, name: str) -> str:
    """The text of section `name` of the exercise's module."""
    from snippets import section

    return section(f"tutorial_code/{exercise.module.split('.')[-1]}.py", name)
