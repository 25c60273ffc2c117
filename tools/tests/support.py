"""Shared by the tool tests: where the engine binary under test is."""

import os


def vier_bin(test):
    """The path of the vier binary from VIER_BIN; fails `test` clearly when it is missing."""
    path = os.environ.get("VIER_BIN")
    if not path:
        test.fail("VIER_BIN is not set: point it at the vier binary, e.g. "
                  "VIER_BIN=target/release/vier python3 -m unittest discover -s tools/tests -t tools")
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        test.fail(f"VIER_BIN={path!r} is not an executable file")
    return os.path.abspath(path)
