"""Entry script of the packaged app: the same ``main`` as the ``okbot`` console script."""

import sys

from okbot.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
