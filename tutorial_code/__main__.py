"""`python -m tutorial_code CHAPTER [options]`: the same as the `transformer-tutorial` command."""

import sys

from tutorial_code.cli import main

sys.exit(main())
