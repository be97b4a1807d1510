"""Model Context Protocol servers: their tools offered to assistants, through the official ``mcp`` SDK.

:mod:`okbot.mcp.hub` runs the servers (stdio processes OkBot starts, or remote Streamable HTTP ones) on
one background event loop; :mod:`okbot.mcp.schema` fits their tools to a Chat Completions request;
:mod:`okbot.mcp.secrets` keeps the values of their variables and headers with the API keys. Nothing
here imports Qt.
"""
