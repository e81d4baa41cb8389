"""``python -m kifu``: the same command line as ``kifu``."""

import sys

from kifu.cli import main

sys.exit(main())
