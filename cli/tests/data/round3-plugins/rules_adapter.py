#!/usr/bin/env python3
"""A process adapter (`--plugin-exec`) for the issue 36 tests of detection rules and the exec
timeout. Format `rules`: one test per line, `PASS name` or `FAIL name`; other lines are ignored.

Detection (docs/abi.md, "Executable adapters"):
- 88 when the first 64 KiB contain both `RULES-A` and `RULES-B` (prefix_contains, an array);
- 77 for a `*.rules` file whose first 64 KiB have a line `rules vN` (file_suffix + prefix_regex);
- 20 when they contain `RULES-A` alone (prefix_contains, one string, as before issue 36).

A line `SLEEP` makes the parse sleep 30 s (the timeout test stops it sooner).
"""

import json
import sys
import time

INFO = {
    "gapscore_exec_adapter": 1,
    "name": "rules",
    "version": "0.1.0",
    "formats": ["rules"],
    "detect": [
        {"confidence": 88, "prefix_contains": ["RULES-A", "RULES-B"]},
        {"confidence": 77, "file_suffix": ".rules", "prefix_regex": "(?m)^rules v[0-9]+$"},
        {"confidence": 20, "prefix_contains": "RULES-A"},
    ],
}


def main():
    if sys.argv[1] == "--gapscore-info":
        print(json.dumps(INFO))
        return 0
    tests = 0
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if line == "SLEEP":
            time.sleep(30)
        status = {"PASS": "passed", "FAIL": "failed"}.get(line[:4])
        if status and line[4:5] == " ":
            print(json.dumps({"event": "test_finished", "test": {"name": line[5:], "status": status}}))
            tests += 1
    print(json.dumps({"event": "end", "tests": tests}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
