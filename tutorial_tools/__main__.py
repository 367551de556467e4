"""`python -m tutorial_tools CHAPTER [options]`: the same as the `transformer-tutorial` command."""

import sys

from tutorial_tools.cli import main

sys.exit(main())
