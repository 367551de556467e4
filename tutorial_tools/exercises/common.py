"""What the graders share: seeded inputs, the learner's twin of a reference module, copies of the inputs, and
comparisons that also look at the dtype and the device of what the learner returns."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from functools import partial
from types import ModuleType
from typing import TypeVar

import torch
from torch import nn

from tutorial_tools.exercises.checks import Mistake, Wrong, dtype_hint, expect_close, expect_plain_tensor

Grader = list[tuple[str, Callable[[ModuleType], None]]]
"""A grader: `(name, check)` pairs; each check takes the learner's module and raises `Wrong` on a difference."""

T = TypeVar("T")

META = "meta"
"""A device with shapes and dtypes but no values: it stands in for a GPU, so that a tensor created on the CPU
next to the inputs shows on any machine."""

# The first computations on the meta device import more of PyTorch, which wraps some of its functions (torch._dynamo
# wraps torch.manual_seed). Doing one now, while the graders load, keeps PyTorch as it is while the checks run.
torch.ones(2, 2, device=META).tril()

ON_THE_INPUT_DEVICE = (
    "a tensor your code creates stays on the CPU while the inputs are elsewhere (on a GPU, say): "
    "create it on the inputs' device, e.g. torch.ones(..., device=x.device)"
)
IN_PLACE = (
    "compute a new tensor instead of editing an input (an operation whose name ends in _, or x[...] = ...): "
    "the caller still needs it"
)


def generator(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def perturbed(module: nn.Module, seed: int = 0) -> nn.Module:
    """`module`, every parameter moved by seeded noise (in place).

    A fresh LayerNorm is all ones and zeros, so two of them are interchangeable: after this, a learner who
    uses one LayerNorm for two sub-layers, or leaves out a bias, gets a different output.
    """
    g = generator(seed)
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.add_(0.2 * torch.randn(parameter.shape, generator=g))
    return module


def twin(learner_class: type[nn.Module], reference: nn.Module, *args, **kwargs) -> nn.Module:
    """The learner's module built with the same arguments, holding the reference's weights, in its mode."""
    module = learner_class(*args, **kwargs)
    try:
        module.load_state_dict(reference.state_dict())
    except RuntimeError as error:
        raise Wrong(
            f"your {learner_class.__name__} does not hold the same parameters as the reference: {error}",
            "keep `__init__` as the starter gives it, and write only the method it asks for",
        ) from None
    return module.train(reference.training)


def with_parts(module: nn.Module, **parts: nn.Module | str) -> nn.Module:
    """A copy of `module` whose named sub-modules are replaced: `norm2="norm1"` makes it use norm1 twice."""
    changed = copy.deepcopy(module)
    for name, part in parts.items():
        setattr(changed, name, getattr(changed, part) if isinstance(part, str) else part)
    return changed


def call_on_copies(function: Callable[..., T], *args, **kwargs) -> T:
    """`function` called on copies of the tensor arguments; an edit of one of them is reported.

    The reference's expected values come from the originals, so an in-place edit by the learner's
    code cannot change them.
    """
    copies = [arg.clone() if isinstance(arg, torch.Tensor) else arg for arg in args]
    keyword_copies = {name: arg.clone() if isinstance(arg, torch.Tensor) else arg for name, arg in kwargs.items()}
    result = function(*copies, **keyword_copies)
    given = list(zip(args, copies, strict=True)) + [(kwargs[name], keyword_copies[name]) for name in kwargs]
    for original, passed in given:
        changed = isinstance(original, torch.Tensor) and not original.is_meta and not torch.equal(original, passed)
        if changed:
            name = getattr(function, "__name__", type(function).__name__)
            raise Wrong(f"your {name} changed its input of shape {tuple(original.shape)} in place", IN_PLACE)
    return result


def first_output(module: nn.Module, *args, **kwargs) -> torch.Tensor:
    """The first output of `module` (a layer returns its attention weights too), called on copies of the inputs."""
    return call_on_copies(module, *args, **kwargs)[0]


def expect_same(
    got: object,
    expected: torch.Tensor,
    what: str,
    mistakes: Iterable[Mistake] | Callable[[], Iterable[Mistake]] = (),
    atol: float = 1e-5,
) -> None:
    """`expect_close`, then the same dtype and device as the reference's result.

    `mistakes` may be a function that returns them: it is called only when `got` differs, so that a
    right answer does not pay for computing what every mistake would have given.
    """
    try:
        expect_close(got, expected, what, atol=atol)
    except Wrong:
        expect_close(got, expected, what, mistakes() if callable(mistakes) else mistakes, atol=atol)
        raise
    expect_kind(got, expected, what)


def expect_kind(got: object, expected: torch.Tensor, what: str) -> None:
    """Raise `Wrong` unless `got` is a tensor of the reference's shape, dtype and device (values not compared)."""
    expect_plain_tensor(got, what)
    if got.shape != expected.shape:
        raise Wrong(f"{what}: shape {tuple(got.shape)}, expected {tuple(expected.shape)}")
    if got.dtype != expected.dtype:
        raise Wrong(
            f"{what}: dtype {got.dtype}, expected {expected.dtype} as the reference gives",
            dtype_hint(got.dtype, expected.dtype),
        )
    if got.device != expected.device:
        raise Wrong(f"{what}: on the device {got.device}, expected {expected.device}", ON_THE_INPUT_DEVICE)


# What PyTorch says when code reads the values of a meta tensor, which has none: such code runs on a GPU, so a
# check on the meta device cannot judge it.
NO_VALUES = (  # what PyTorch says when code needs values that a meta tensor does not have
    "cannot be called on meta tensors",
    "Cannot copy out of meta tensor",
    "meta device type tensor",
    "data-independent implementation does not exist",  # boolean indexing, nonzero(): sizes that depend on values
)


def expect_on_meta(run: Callable[[], torch.Tensor], expected: torch.Tensor, what: str) -> None:
    """Raise `Wrong` unless `run()`, given inputs on the meta device, returns a tensor like `expected`.

    Shape, dtype and device are compared (a meta tensor has no values). A device mismatch in the learner's
    code gets a hint; code that reads values, which is fine on a real device, passes unjudged.
    """
    try:
        got = run()
    except (RuntimeError, NotImplementedError, TypeError) as error:
        if any(text in str(error) for text in NO_VALUES):
            return
        if isinstance(error, RuntimeError) and "device" in str(error):
            raise Wrong(f"{what}: your code raised RuntimeError: {error}", ON_THE_INPUT_DEVICE) from None
        raise
    expect_kind(got, expected, what)


def expect_same_on_meta(
    reference: Callable[..., object],
    ours: Callable[..., object],
    inputs: tuple,
    what: str,
    keywords: dict | None = None,
) -> None:
    """`expect_on_meta` for a module or a function: copies of the modules, their weights and the tensor inputs
    (`inputs`, then the `keywords`: the masks a layer takes by name) on the meta device, where a tensor the
    learner's code makes on the CPU shows (the first output is compared)."""

    def on_meta(run: Callable[..., object]) -> Callable[..., object]:
        return copy.deepcopy(run).to(META) if isinstance(run, nn.Module) else run

    def moved(x: object) -> object:
        return x.to(META) if isinstance(x, torch.Tensor) else x

    args = tuple(moved(x) for x in inputs)
    named = {name: moved(x) for name, x in (keywords or {}).items()}
    expected, ours = _first(on_meta(reference)(*args, **named)), on_meta(ours)
    expect_on_meta(lambda: _first(ours(*args, **named)), expected, what)


def _first(output: object) -> object:
    return output[0] if isinstance(output, tuple | list) else output


def shape(x: torch.Tensor) -> str:
    """`(2, 5, 16)`: a shape as the messages write it."""
    return str(tuple(x.shape))


def seeded(run: Callable[[], T], seed: int = 0) -> T:
    """`run()` after `torch.manual_seed(seed)`, without gradients: dropout draws the same numbers every time."""
    torch.manual_seed(seed)
    with torch.no_grad():
        return run()


DRAWS = 2000  # how many draws of dropout the law of an output is judged on (expect_same_dropout)


def repeated(tensor: torch.Tensor, r: int) -> torch.Tensor:
    """`tensor` repeated `r` times along its first (batch) dimension, for `expect_same_dropout`; a boolean mask
    that broadcasts over the batch (2-D, or of batch size 1) stays as it is."""
    if tensor.dtype == torch.bool and (tensor.dim() == 2 or tensor.size(0) == 1):
        return tensor
    return tensor.repeat(r, *(1,) * (tensor.dim() - 1))


def expect_same_dropout(
    ours: Callable[[int], torch.Tensor],
    reference: Callable[[int], torch.Tensor],
    what: str,
    mistakes: Iterable[Mistake] | Callable[[], Iterable[Mistake]] = (),
) -> None:
    """The learner's output in training, where dropout draws at random: `ours(r)` and `reference(r)` compute it
    for the inputs repeated `r` times along the batch, so that one call makes `r` independent draws.

    Under the reference's random seed, code that drops with PyTorch's dropout in the reference's order gives the
    reference's output exactly: that passes, and an output that is one known mistake's gets its hint. Code that
    draws another way (its own Bernoulli mask, in float64, in another order) gives other draws of the same law, so
    any other output of the right shape, dtype and device is judged on `DRAWS` draws: the mean and the variance
    of every element must match the reference's within 7 standard errors. No dropout, dropout in the wrong place,
    p taken for 1 - p, or no rescaling each move a mean or a variance by far more.
    """
    got, expected = seeded(lambda: ours(1)), seeded(lambda: reference(1))
    try:
        expect_same(got, expected, f"{what}, under the reference's random seed", mistakes)
        return
    except Wrong as wrong:
        different_kind = not isinstance(got, torch.Tensor) or (got.shape, got.dtype, got.device) != (
            expected.shape,
            expected.dtype,
            expected.device,
        )
        if wrong.hint or different_kind:
            raise
    many_got = seeded(lambda: ours(DRAWS), seed=1)
    many_expected = seeded(lambda: reference(DRAWS), seed=2)
    expect_plain_tensor(many_got, what)
    if many_got.shape != many_expected.shape:
        raise Wrong(f"{what}, the inputs repeated {DRAWS} times: shape {tuple(many_got.shape)}, expected "
                    f"{tuple(many_expected.shape)}")  # fmt: skip
    flat_got, flat_expected = (t.detach().cpu().double().reshape(DRAWS, -1) for t in (many_got, many_expected))
    if not bool(flat_got.isfinite().all()) and bool(flat_expected.isfinite().all()):
        raise Wrong(f"{what}: your output holds NaN or inf over {DRAWS} draws of dropout; the reference's does not")
    for moment, difference, error in _law_differences(flat_got, flat_expected):
        too_far = ~(difference.abs() <= 7 * error + 1e-5)  # a NaN is too far
        if bool(too_far.any()):
            at = int((difference.abs() - 7 * error).argmax())
            off, spread = float(difference[at]), float(error[at])
            raise Wrong(  # no hint: an error outside the dropout moves the mean too
                f"{what}: over {DRAWS} draws of dropout, the mean of element {at} of your output is {off:+.4f} off "
                f"the reference's (standard error {spread:.4f})"
                if moment == "mean"
                else f"{what}: over {DRAWS} draws of dropout, the variance of element {at} of your output is "
                f"{off:+.4f} off the reference's (standard error {spread:.4f})"
            )


def _law_differences(got: torch.Tensor, expected: torch.Tensor) -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    """For draws `(DRAWS, n)`: the difference of each element's mean and of its variance, with its standard
    error (the variance's from the fourth central moment)."""
    count = got.size(0)
    (mean_g, var_g, fourth_g), (mean_e, var_e, fourth_e) = (_moments(t) for t in (got, expected))
    mean_error = ((var_g + var_e) / count).sqrt()
    variance_error = ((fourth_g - var_g**2 + fourth_e - var_e**2).clamp(min=0) / count).sqrt()
    return [("mean", mean_g - mean_e, mean_error), ("variance", var_g - var_e, variance_error)]


def _moments(draws: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    mean = draws.mean(0)
    centred = draws - mean
    return mean, centred.pow(2).mean(0), centred.pow(4).mean(0)


# The layers' graders: the encoder layer's (chapter 6) and the decoder layer's (chapter 10).
PRE_NORM = (
    "you built the other order: norm_first=True normalizes each sub-layer's input and adds its output to x "
    "untouched, x + attention(norm1(x)); norm_first=False normalizes after the sum, norm1(x + attention(x))"
)
NOT_IN_TRAINING = (
    "your output in training is what the layer gives without its own Dropouts: drop what each sub-layer adds, "
    "x + self.dropout1(attended), and the same with the next Dropout for each later sub-layer"
)


def layers(learner_class: type[nn.Module], reference_class: type[nn.Module], sizes: tuple, norm_first: bool,
           dropout: float = 0.0, seed: int = 0) -> tuple[nn.Module, nn.Module, nn.Module]:  # fmt: skip
    """`(reference, learner's twin, the reference's weights in the other norm order)`.

    The reference's parameters are perturbed, so that its LayerNorms differ from each other; the layers are
    in training mode when `dropout` is set, in eval mode otherwise.
    """
    torch.manual_seed(seed)
    training = dropout > 0
    reference = perturbed(reference_class(*sizes, dropout=dropout, norm_first=norm_first), seed).train(training)
    other = reference_class(*sizes, dropout=dropout, norm_first=not norm_first).train(training)
    other.load_state_dict(reference.state_dict())
    return reference, twin(learner_class, reference, *sizes, dropout=dropout, norm_first=norm_first), other


def expect_same_in_training(
    reference: nn.Module, ours: nn.Module, run: Callable[[nn.Module, int], torch.Tensor], what: str, dropouts: tuple
) -> None:
    """`run(ours, r)` against `run(reference, r)` in training (`expect_same_dropout`: `r` repeats the inputs).

    The hint names the layer's own Dropouts (`dropouts`, the attributes that drop what a sub-layer adds)
    when the learner's output is the reference's without them: attention and feed-forward still drop inside.
    """

    def mistakes() -> list:
        without = with_parts(reference, **dict.fromkeys(dropouts, nn.Identity()))
        return [(seeded(lambda: run(without, 1)), NOT_IN_TRAINING)]

    expect_same_dropout(partial(run, ours), partial(run, reference), what, mistakes)


def expect_layer_in_eval_mode(learner_class: type[nn.Module], reference_class: type[nn.Module], sizes: tuple,
                              inputs: tuple, name: str, keywords: dict | None = None) -> None:  # fmt: skip
    """A layer built with dropout 0.5, in eval mode, in both norm orders: its output is the reference's (no Dropout
    acts, whatever its rate), backward() reaches every input and weight as the reference's, and on the meta device
    its output is on the inputs' device."""
    for norm_first in (False, True):
        reference, ours, _ = layers(learner_class, reference_class, sizes, norm_first, 0.5, seed=7)
        reference.eval(), ours.eval()
        with torch.no_grad():
            expected, got = reference(*inputs, **keywords or {})[0], first_output(ours, *inputs, **keywords or {})
        expect_same(got, expected, f"the output in eval mode, dropout = 0.5, norm_first={norm_first}")
        what = f"{name}, norm_first={norm_first}"
        expect_same_gradients(reference, ours, inputs, what, keywords=keywords)
        expect_same_on_meta(reference, ours, inputs, f"{what}, its inputs on another device", keywords)


CUT_GRAPH = (
    "backward() must reach every input and weight: no .detach(), no torch.no_grad() and no .item() or .tolist() "
    "inside the computation, and no in-place edit of a tensor that autograd still needs"
)
NAN_GRADIENT = (
    "a NaN made in the forward pass and replaced afterwards (nan_to_num, masked_fill, torch.where) still sends NaN "
    "back through backward(): do not make it, e.g. change the scores of a row with no key before the softmax, "
    "not its weights after it"
)


class _BackwardFailed(Exception):
    """backward() raised on the learner's output (the forward pass ran)."""


def _gradients(
    run: Callable[..., torch.Tensor], inputs: tuple[torch.Tensor, ...], module: nn.Module | None, keywords: dict
):
    """The gradients of one fixed weighted sum of `run(*inputs, **keywords)`'s output: the inputs', then each
    parameter's (the keywords, a layer's masks, get none)."""
    leaves = tuple(x.detach().clone().requires_grad_(x.is_floating_point()) for x in inputs)
    if module is not None:
        module.zero_grad(set_to_none=True)
    try:
        output = run(*leaves, **keywords)
    except RuntimeError as error:  # "a leaf Variable that requires grad is being used in an in-place operation"
        if "requires grad" not in str(error):
            raise  # the learner's own error, which the check reports with its line
        raise _BackwardFailed(str(error).splitlines()[0]) from None
    output = output[0] if isinstance(output, tuple) else output
    weights = torch.linspace(-1.0, 1.0, output.numel(), dtype=output.dtype).view_as(output)
    try:
        (output * weights).sum().backward()  # every output counts, each differently
    except RuntimeError as error:  # "element 0 of tensors does not require grad", "modified by an inplace operation"
        raise _BackwardFailed(str(error).splitlines()[0]) from None
    parameters = {} if module is None else {name: p.grad for name, p in module.named_parameters()}
    return output.detach(), [leaf.grad for leaf in leaves if leaf.requires_grad], parameters


def expect_same_gradients(
    reference: Callable[..., torch.Tensor],
    ours: Callable[..., torch.Tensor],
    inputs: tuple[torch.Tensor, ...],
    what: str,
    atol: float = 1e-4,
    keywords: dict | None = None,
) -> None:
    """Backpropagate the same loss through the reference and through the learner's code: the gradient of every
    floating-point input, and of every parameter where `reference` and `ours` are modules, must match. A gradient
    that is missing (a cut graph) or that backward() cannot compute (an in-place edit) gets the `CUT_GRAPH` hint, one
    that is NaN where the reference's has numbers the `NAN_GRADIENT` hint; an error of the forward pass is the
    learner's error, reported as such by the check. Where the outputs differ already, the check of the outputs
    says so, and this one passes: a weight that gets no gradient because the learner's code leaves it out is not a
    cut graph."""
    expected_output, expected_inputs, expected_parameters = _gradients(
        reference, inputs, reference if isinstance(reference, nn.Module) else None, keywords or {}
    )
    try:
        got_output, got_inputs, got_parameters = _gradients(
            ours, inputs, ours if isinstance(ours, nn.Module) else None, keywords or {}
        )
    except _BackwardFailed as error:
        raise Wrong(f"{what}: backward() failed: {error}", CUT_GRAPH) from None
    if got_output.shape != expected_output.shape or not torch.allclose(
        got_output.double(), expected_output.double(), atol=atol
    ):
        return
    pairs = zip(got_inputs, expected_inputs, strict=True)
    named = [(f"input {i}", got, expected) for i, (got, expected) in enumerate(pairs)]
    named += [(f"weight {name}", got_parameters.get(name), grad) for name, grad in expected_parameters.items()]
    for name, got, expected in named:
        if expected is None:
            continue
        if got is None:
            raise Wrong(f"{what}: no gradient reaches {name}", CUT_GRAPH)
        if got.isnan().any() and not expected.isnan().any():
            raise Wrong(f"{what}: the gradient of {name} holds NaN where the reference's has numbers", NAN_GRADIENT)
        try:
            expect_close(got, expected, f"{what}: the gradient of {name}", atol=atol, check_dtype=False)
        except Wrong as wrong:  # the outputs match: something between them and the inputs cuts or bends backward()
            raise Wrong(
                wrong.message, f"the outputs match the reference's, their gradients do not: {CUT_GRAPH}"
            ) from None
