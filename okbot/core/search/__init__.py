"""Search across every chat: a full-text index (SQLite FTS5) kept beside the records.

``session.jsonl`` stays the source of truth; :mod:`.index` keeps ``index/search.sqlite`` caught up with
it by reading only the bytes appended since, and :mod:`.text` turns text and a person's query into what
the index holds (CJK spelled as bigrams), and finds the matched words again for snippets.
"""

from __future__ import annotations

from okbot.core.search.index import CatchUp, Hit, IndexBusy, SearchIndex

__all__ = ["CatchUp", "Hit", "IndexBusy", "SearchIndex"]
