"""HTML to readable text, on its own."""

from __future__ import annotations

from okbot.core.local_tools.web.text import html_to_text


def test_html_to_text_handles_broken_markup():
    title, text = html_to_text("<title>x</title><div><p>one<p>two</div><script>if (a < b) {}</script>three")
    assert title == "x" and text.split() == ["one", "two", "three"]
    assert html_to_text("")[1] == "" and html_to_text("<<<>>>&&&")[1]
