"""Chapter "Local attention": the band mask, and the sliding-window cache's append step."""

from __future__ import annotations

from types import ModuleType

import torch
from tutorial_code import local_attention
from tutorial_code.attention import scaled_dot_product_attention
from tutorial_tools.exercises.checks import Wrong, expect_error
from tutorial_tools.exercises.common import (
    IN_PLACE,
    META,
    Grader,
    expect_kind,
    expect_on_meta,
    expect_same,
    generator,
)

# (T, window, causal): the usual sizes, a window of 1, a window wider than the sequence, one position, centred ones.
BAND_CASES = [
    (8, 3, True),
    (10, 1, True),
    (12, 4, True),
    (6, 9, True),
    (1, 2, True),
    (9, 2, False),
    (11, 3, False),
]

TOO_WIDE = "one key too many: the window holds `window` keys, the query's own included, so keep distance < window"
TOO_NARROW = "one key too few: the query's own position (distance 0) is one of the `window` keys"
WRONG_SIDE = (
    "the band lies on the wrong side of the diagonal: query t sees keys after it. The distance query - key must be "
    "0 to window - 1"
)
FLIPPED = "the mask is flipped: on this site True means 'may attend', so the band itself is True"
SHIFTED = "the query's own key is missing: distance 0 is in the window, so keep 0 <= distance < window"
NOT_CAUSAL = "with causal=True, the keys after the query must be blocked: only itself and the keys before it"
NOT_CENTRED = "with causal=False the window is centred: keys less than `window` positions after the query count too"


def _band_mistakes(T: int, window: int, causal: bool) -> list:
    expected = local_attention.band_mask(T, window, causal=causal)
    mistakes = [
        (local_attention.band_mask(T, window + 1, causal=causal), TOO_WIDE)
    ]
    if window > 1:
        mistakes.append(
            (
                local_attention.band_mask(T, window - 1, causal=causal),
                TOO_NARROW,
            )
        )
    if causal:
        shifted = local_attention.band_mask(T, window + 1) & ~torch.eye(
            T, dtype=torch.bool
        )
        mistakes += [(expected.T, WRONG_SIDE), (shifted, SHIFTED)]
        mistakes.append(
            (local_attention.band_mask(T, window, causal=False), NOT_CAUSAL)
        )
    else:
        mistakes.append((local_attention.band_mask(T, window), NOT_CENTRED))
    return [*mistakes, (~expected, FLIPPED)]


def _check_band(learner: ModuleType) -> None:
    for T, window, causal in BAND_CASES:
        what = f"band_mask({T}, {window}, causal={causal})"
        expected = local_attention.band_mask(T, window, causal=causal)
        mistakes = _band_mistakes(T, window, causal)
        expect_same(
            learner.band_mask(T, window, causal=causal),
            expected,
            what,
            mistakes,
        )


def _check_band_default(learner: ModuleType) -> None:
    centred = local_attention.band_mask(7, 3, causal=False)
    hint = "causal defaults to True: with causal left out, the band is causal"
    expect_same(learner.band_mask(7, 3), local_attention.band_mask(7, 3), "band_mask(7, 3), causal left out",
                [(centred, hint)])  # fmt: skip


def _check_band_device(learner: ModuleType) -> None:
    for device in (META, torch.device(META)):
        what = f"band_mask(6, 2, device={device!r})"
        got = learner.band_mask(6, 2, device=device)
        if isinstance(got, torch.Tensor) and got.device != torch.device(META):
            raise Wrong(
                f"{what}: the mask is on the device {got.device}",
                "create it on the device asked for",
            )
        expect_kind(got, local_attention.band_mask(6, 2, device=device), what)


def _check_band_errors(learner: ModuleType) -> None:
    for what, args, error in [
        ("a window of 0", (5, 0), ValueError),
        ("a negative window", (5, -2), ValueError),
        ("a length of 0", (0, 2), ValueError),
        ("a window of 2.5", (5, 2.5), TypeError),
    ]:
        expect_error(
            lambda args=args: learner.band_mask(*args),
            (error,),
            f"band_mask{args}: {what}",
        )


BAND_MASK: Grader = [
    (
        "band_mask for several lengths and windows, causal and centred",
        _check_band,
    ),
    ("causal by default", _check_band_default),
    ("the mask on the device asked for", _check_band_device),
    ("an error for a window below 1 or not an int", _check_band_errors),
]

# (window, (B, h), steps): how many new positions each append gives; the total is the sequence length.
CACHE_CASES = [
    (4, (1, 2), (1,) * 11),
    (3, (2, 1), (2, 1, 4, 1, 1, 3)),
    (1, (1, 1), (1,) * 5),
    (6, (1, 3), (1, 2, 1)),
    (3, (1, 2), (5, 1, 2, 1)),  # a first append longer than the window
]
KEEPS_ONE_MORE = "the cache keeps window + 1 positions: keep the last `window`, key[..., -self.window :, :]"
KEEPS_ONE_FEWER = "the cache keeps window - 1 positions: the new query's own key is one of the `window` it sees"
KEEPS_THE_OLDEST = "the cache keeps the oldest positions: the newest are at the end, key[..., -self.window :, :]"
KEEPS_ALL = "the cache never forgets: keep only the last `window` positions, so that its memory stays at window"
RETURNS_KEPT = (
    "append returned the keys after dropping the oldest: the new queries still need the kept ones and all the new "
    "ones, so return the joined keys before cutting"
)
RETURNS_NEW = "append returned only the new keys: join them after the kept ones, torch.cat([self.keys, key], dim=-2)"
EDITS_A_VIEW = (
    "the cache kept a view of the tensors an earlier append was given (key[..., -self.window :, :] is a view, not a "
    "copy), and a later append edited it in place: build new tensors (torch.cat), or .clone() what you keep before "
    "editing it"
)


def _sequence(
    batch: tuple[int, int], T: int, seed: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = generator(seed)
    q, k = (torch.randn(*batch, T, 4, generator=g) for _ in range(2))
    return q, k, torch.randn(*batch, T, 3, generator=g)


def _kept_mistakes(k: torch.Tensor, end: int, window: int) -> list:
    mistakes = [(k[..., max(0, end - window - 1) : end, :], KEEPS_ONE_MORE)]
    if window > 1:
        mistakes.append(
            (k[..., max(0, end - window + 1) : end, :], KEEPS_ONE_FEWER)
        )
    return [
        *mistakes,
        (k[..., :window, :], KEEPS_THE_OLDEST),
        (k[..., :end, :], KEEPS_ALL),
    ]


def _append_on_copies(
    cache, key: torch.Tensor, value: torch.Tensor, given: list, what: str
) -> object:
    """`cache.append` of copies of `key` and `value`; an edit of them, or of what an earlier append was given
    (`given`: the originals and the copies passed, call by call), is reported."""
    passed = (key.clone(), value.clone())
    returned = cache.append(*passed)
    given.append(((key, value), passed))
    for call, (
        (original_key, original_value),
        (passed_key, passed_value),
    ) in enumerate(given):
        now = call == len(given) - 1
        if not torch.equal(original_key, passed_key):
            raise (
                Wrong(
                    f"{what}: your append changed the keys it was given in place",
                    IN_PLACE,
                )
                if now
                else Wrong(
                    f"{what}: your append changed the keys given to append call {call + 1} in place",
                    EDITS_A_VIEW,
                )
            )
        if not torch.equal(original_value, passed_value):
            raise (
                Wrong(
                    f"{what}: your append changed the values it was given in place",
                    IN_PLACE,
                )
                if now
                else Wrong(
                    f"{what}: your append changed the values given to append call {call + 1} in place",
                    EDITS_A_VIEW,
                )
            )
    return returned


def _check_append(learner: ModuleType) -> None:
    for seed, (window, batch, steps) in enumerate(CACHE_CASES):
        T = sum(steps)
        _, k, v = _sequence(batch, T, seed)
        cache, start, given = learner.SlidingWindowCache(window), 0, []
        for n in steps:
            end = start + n
            what = f"window {window}, after positions {start}-{end - 1} were appended ({n} at once)"
            returned = _append_on_copies(
                cache, k[..., start:end, :], v[..., start:end, :], given, what
            )
            if not isinstance(returned, tuple) or len(returned) != 2:
                raise Wrong(
                    f"{what}: append returned {type(returned).__name__}, not (keys, values)"
                )
            joined = k[
                ..., max(0, start - window) : end, :
            ]  # the kept ones before, then the new ones
            mistakes = [(k[..., start:end, :], RETURNS_NEW)]
            if isinstance(cache.keys, torch.Tensor):
                mistakes.append((cache.keys, RETURNS_KEPT))
            expect_same(
                returned[0],
                joined,
                f"{what}: the keys append returned",
                mistakes,
            )
            expect_same(
                returned[1],
                v[..., max(0, start - window) : end, :],
                f"{what}: the values append returned",
            )
            kept = k[..., max(0, end - window) : end, :]
            expect_same(
                cache.keys,
                kept,
                f"{what}: cache.keys",
                _kept_mistakes(k, end, window),
            )
            expect_same(
                cache.values,
                v[..., max(0, end - window) : end, :],
                f"{what}: cache.values",
            )
            if cache.length != end:
                raise Wrong(f"{what}: cache.length is {cache.length}, expected {end}",
                            "add the number of new positions, key.size(-2), to self.length")  # fmt: skip
            start = end


def _check_attention(learner: ModuleType) -> None:
    for seed, (window, batch, steps) in enumerate(CACHE_CASES):
        T = sum(steps)
        q, k, v = _sequence(batch, T, seed + 10)
        full, _ = scaled_dot_product_attention(
            q, k, v, local_attention.band_mask(T, window)
        )
        cache, start = learner.SlidingWindowCache(window), 0
        for n in steps:
            part = slice(start, start + n)
            what = f"attention of positions {start}-{start + n - 1} (window {window}) with your cache"
            got = local_attention.sliding_window_step(
                q[..., part, :], k[..., part, :], v[..., part, :], cache
            )
            expect_same(got, full[..., part, :], what, atol=1e-5)
            start += n


def _check_cache_device(learner: ModuleType) -> None:
    cache = learner.SlidingWindowCache(2)
    for n, what in (
        (1, "the keys append returned for one new position on another device"),
        (
            3,
            "the keys append returned for three new positions on another device",
        ),
    ):
        new = torch.zeros(1, 2, n, 4, device=META)
        finished = []

        def append(new=new, finished=finished):
            returned = cache.append(new, new)
            finished.append(True)
            return _first(returned)

        expect_on_meta(
            append, torch.zeros(1, 2, 4 if n == 3 else 1, 4, device=META), what
        )
        if not finished:  # append read a value, fine on a GPU: the meta device cannot judge the rest
            return
        expect_kind(
            cache.keys,
            torch.zeros(1, 2, 2 if n == 3 else 1, 4, device=META),
            "cache.keys on another device",
        )


def _first(returned: object) -> object:
    """The keys of what append returned, or what it returned when that is no pair."""
    return (
        returned[0]
        if isinstance(returned, tuple) and len(returned) == 2
        else returned
    )


SLIDING_WINDOW_CACHE: Grader = [
    (
        "append keeps the last window and returns what the new queries need",
        _check_append,
    ),
    (
        "attention with your cache equals full attention under the band mask",
        _check_attention,
    ),
    ("the cache on the inputs' device", _check_cache_device),
]
