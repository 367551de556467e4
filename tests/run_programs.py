"""Run several Python programs one after another in this one process, each as `python PROGRAM` would in a fresh
one: its own globals, no result kept by a `functools.cache` of tutorial_code, PyTorch's, NumPy's and `random`'s
generators as a new process finds them, default print options, no figures left open, the same warning filters,
working folder and environment. A program's printing
goes to `PROGRAM.out`; an error ends that program only, its traceback in `PROGRAM.err`.

    python -m sitebuild.in_chapter.kernel ROOT tests/run_programs.py A.py B.py ...

(the kernel prepares the process as the build prepares a chapter's). The copy-paste test of the pages runs its
17 programs so: one import of PyTorch instead of 17.
"""

import contextlib
import copy
import os
import random
import runpy
import sys
import traceback
import warnings
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import torch

FRESH = {  # what a new process starts with, read before any program runs
    "torch": torch.get_rng_state(),
    "numpy": np.random.get_state(),
    "random": random.getstate(),
    "numpy print": np.get_printoptions(),
    "rc": copy.deepcopy(dict(matplotlib.rcParams)),
    "warnings": list(warnings.filters),
    "environ": dict(os.environ),
    "cwd": os.getcwd(),
    "dtype": torch.get_default_dtype(),
    "deterministic": torch.are_deterministic_algorithms_enabled(),
}


def as_new() -> None:
    for name, module in list(sys.modules.items()):  # results a program's calls kept (functools.cache)
        if name.startswith("tutorial_code"):
            for value in vars(module).values():
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()
    torch.set_rng_state(FRESH["torch"])
    np.random.set_state(FRESH["numpy"])
    random.setstate(FRESH["random"])
    torch.set_printoptions(profile="default", sci_mode=None)
    np.set_printoptions(**FRESH["numpy print"])
    plt.close("all")
    matplotlib.rcParams.update(FRESH["rc"])
    warnings.filters[:] = FRESH["warnings"]
    os.environ.clear()
    os.environ.update(FRESH["environ"])
    os.chdir(FRESH["cwd"])
    torch.set_default_dtype(FRESH["dtype"])
    torch.use_deterministic_algorithms(FRESH["deterministic"])


for program in map(Path, sys.argv[1:]):
    as_new()
    sys.argv = [str(program)]
    with open(program.with_suffix(".out"), "w", encoding="utf-8") as out, contextlib.redirect_stdout(out):
        try:
            runpy.run_path(str(program), run_name="__main__")
        except BaseException:  # noqa: BLE001 - reported in its own file; the next program runs
            program.with_suffix(".err").write_text(traceback.format_exc(), encoding="utf-8")
        finally:
            sys.stdout.flush()
