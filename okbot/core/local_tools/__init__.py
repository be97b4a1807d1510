"""Tools that act on the user's machine: files, shell and web fetch — guarded, bounded, approved."""
