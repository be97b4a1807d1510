"""Entry script of the packaged app: the same ``main`` as the ``okbot`` console script."""

import multiprocessing
import sys

from okbot.__main__ import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # a frozen app runs the PDF reader's child process through this script
    sys.exit(main())
