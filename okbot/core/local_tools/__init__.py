"""Tools that act on the user's machine: files, shell, web fetch and web search — guarded, bounded, approved.

Each assistant works in its own workspace folder (``guard.workspace_dir``); a path outside it asks
the user even when the tool is allowed, and OkBot's own files and keys are never reachable.
"""

from __future__ import annotations

from okbot.core.local_tools.files import FILE_TOOLS
from okbot.core.local_tools.shell import RUN_SHELL
from okbot.core.local_tools.web.search_tool import WEB_SEARCH
from okbot.core.local_tools.web.tool import WEB_FETCH

LOCAL_TOOLS = (*FILE_TOOLS, RUN_SHELL, WEB_FETCH, WEB_SEARCH)
LOCAL_TOOL_NAMES = frozenset(tool.name for tool in LOCAL_TOOLS)
