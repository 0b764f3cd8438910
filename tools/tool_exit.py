"""How the report tools of tools/ (ggml-hexagon-profile.py, ggml-hexagon-trace.py) and
bench/cost-model-whatif.py parse their options and end.

A module beside them (installed with them in share/ggml-hexagon/tools; a tool run through its
link in scripts/snapdragon/ finds it through the link's real path).
"""

import argparse
import os
import sys


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line, "tool: what was wrong (see --help)", exit 2, instead of
    the usage text and the error."""

    def error(self, message):
        name = os.path.splitext(os.path.basename(self.prog))[0]
        print(f"{name}: {message} (see --help)", file=sys.stderr)
        sys.exit(2)


def run(main):
    """sys.exit(main()); a reader that stops early (| head) closes the pipe, which is a normal
    end for a report, not a traceback."""
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(0)
