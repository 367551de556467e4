"""The numbers-in-words task: the words of every number from 0 to 999, the tokens both ways, the split, the letters'
digits, and greedy writing on random weights (no training here; the chapter trains it)."""

import re

import pytest
import torch

from tutorial_code.number_words import (
    CHARS,
    END,
    NUM_TOKENS,
    PAD,
    decode_words,
    encode_digits,
    encode_words,
    number_words,
    spelled_digit,
    split_numbers,
    write_words,
)
from tutorial_code.reverse_task import Seq2SeqModel

KNOWN = {
    0: "zero",
    7: "seven",
    13: "thirteen",
    20: "twenty",
    21: "twenty-one",
    99: "ninety-nine",
    100: "one hundred",
    101: "one hundred one",
    110: "one hundred ten",
    347: "three hundred forty-seven",
    900: "nine hundred",
    999: "nine hundred ninety-nine",
}


@pytest.mark.parametrize(("n", "words"), KNOWN.items())
def test_the_words_of_known_numbers(n, words):
    assert number_words(n) == words


def test_every_number_has_its_own_words_in_a_regular_shape():
    words = [number_words(n) for n in range(1000)]
    assert len(set(words)) == 1000
    shape = re.compile(r"^(\w+ hundred)?( ?\w+(-\w+)?)?$")
    assert all(shape.match(w) and not w.startswith(" ") and "  " not in w for w in words)
    assert CHARS == sorted(set("".join(words))) and " " in CHARS and "-" in CHARS


@pytest.mark.parametrize("n", [-1, 1000, 12345, 3.5, True])
def test_a_number_outside_0_to_999_is_refused(n):
    with pytest.raises(ValueError, match="n must be a whole number from 0 to 999"):
        number_words(n)


def test_tokens_go_both_ways_and_pad_after_eos():
    numbers = [7, 347, 40]
    target = encode_words(numbers)  # (3, 26)
    assert target.shape == (3, len(number_words(347)) + 1)
    assert [decode_words(row) for row in target] == [number_words(n) for n in numbers]
    assert (target[0, len("seven")] == END) and (target[0, len("seven") + 1 :] == PAD).all()
    assert encode_digits([7, 347]).tolist() == [[3, 3, 10], [6, 7, 10]]
    assert int(target.max()) < NUM_TOKENS


def test_the_split_holds_out_a_fifth_and_covers_every_number_once():
    train, held_out = split_numbers()
    assert len(train) == 800 and len(held_out) == 200
    assert sorted(train + held_out) == list(range(1000))
    assert split_numbers() == (train, held_out)  # the same split every time


def test_each_letter_s_digit():
    digits = spelled_digit(347)
    text = number_words(347)
    assert len(digits) == len(text)
    assert {text[i] for i, d in enumerate(digits) if d is None} == {" ", "-"}
    assert "".join(c for c, d in zip(text, digits, strict=True) if d == 1) == "forty"
    with pytest.raises(ValueError, match="n must have three parts"):
        spelled_digit(340)


def test_greedy_writing_stops_at_eos_and_gives_text():
    torch.manual_seed(0)
    model = Seq2SeqModel(NUM_TOKENS)
    written = write_words(model, [5, 347], max_len=4)
    assert len(written) == 2 and all(len(w) <= 4 for w in written)
    with torch.no_grad():  # a model that always writes END first writes nothing
        model.output.bias.fill_(-1e4)
        model.output.bias[END] = 1e4
    assert write_words(model, [5, 347]) == ["", ""]
