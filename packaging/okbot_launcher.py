"""Entry script of the packaged app: the same ``main`` as the ``okbot`` console script.

Two other roles run through it, since a frozen executable runs no ``.py`` file: the PDF reader's
child process (multiprocessing) and the MCP servers' warden (``okbot.mcp.warden``).
"""

import multiprocessing
import sys

from okbot.mcp import warden

if __name__ == "__main__":
    multiprocessing.freeze_support()  # a frozen app runs the PDF reader's child process through this script
    if sys.argv[1:2] == [warden.FROZEN_FLAG]:  # before the app is imported: the warden starts in milliseconds
        sys.exit(warden.main(sys.argv[2:]))
    from okbot.__main__ import main

    sys.exit(main())
