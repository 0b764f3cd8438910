"""How the report tools of tools/ end (ggml-hexagon-profile.py, ggml-hexagon-trace.py).

A module beside them (installed with them in share/ggml-hexagon/tools; a tool run through its
link in scripts/snapdragon/ finds it through the link's real path).
"""

import sys


def run(main):
    """sys.exit(main()); a reader that stops early (| head) closes the pipe, which is a normal
    end for a report, not a traceback."""
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(0)
