#!/usr/bin/env python3
"""The gapscore executable adapter `@NAME@` (docs/abi.md, "Executable adapters"): one
`<status> <name>[: <message>]` a line, `<status>` one of passed, failed, errored, skipped,
xfailed, xpassed, todo; blank lines and lines starting with `#` are skipped.

- `adapter.py --gapscore-info` prints the info document (protocol version, name, version,
  format ids, detection rules) as one JSON line.
- `adapter.py --gapscore-parse OPTIONS_JSON` reads the result file on stdin and writes one JSON
  event a line, ending with {"event": "end", "tests": N}; invalid input is one
  {"event": "error", ...} line and exit status 1.

Load it with `gapscore score --plugin-exec 'python3 adapter.py' --sealed FILE`. Replace
`parse_line` with your format's reader and the detection rules with what tells your files apart.
"""

import json
import sys

INFO = {
    "gapscore_exec_adapter": 1,
    "name": "@NAME@",
    "version": "0.1.0",
    "formats": ["@NAME@"],
    # The highest matching rule wins; every condition a rule names must hold.
    "detect": [
        {"confidence": 80, "file_suffix": ".@NAME@", "prefix_contains": "passed "},
        {"confidence": 80, "file_suffix": ".@NAME@", "prefix_contains": "failed "},
        {"confidence": 40, "file_suffix": ".@NAME@"},
    ],
}

STATUSES = ("passed", "failed", "errored", "skipped", "xfailed", "xpassed", "todo")


class InputError(Exception):
    def __init__(self, message, line, column):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


def parse_line(line, line_no):
    """The test of one result line, as the dict the test_finished event carries."""
    word, _, rest = line.partition(" ")
    if word not in STATUSES:
        # Never guess a status: a word the format does not define is the user's to see.
        raise InputError("unknown status `%s` (expected %s)" % (word, ", ".join(STATUSES)), line_no, 1)
    name, _, message = rest.partition(": ")
    if name.strip() == "":
        raise InputError("empty test name", line_no, len(word) + 2)
    test = {"name": name, "status": word}
    if message:
        test["message"] = message
    return test


def parse(stream, out):
    """Reads the lines of `stream` (bytes) and writes the events to `out`; returns the exit status."""
    count = 0
    for line_no, raw in enumerate(stream, 1):
        if line_no == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]  # gapscore passes a UTF-8 byte order mark on as it is
        raw = raw.rstrip(b"\n").rstrip(b"\r")
        try:
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise InputError("invalid UTF-8", line_no, e.start + 1)
            if line.strip() == "" or line.startswith("#"):
                continue
            test = parse_line(line, line_no)
        except InputError as e:
            event = {"event": "error", "message": e.message, "line": e.line, "column": e.column}
            out.write(json.dumps(event) + "\n")
            return 1
        out.write(json.dumps({"event": "test_finished", "test": test}, ensure_ascii=False) + "\n")
        count += 1
    # The end event says the stream is complete: without it gapscore reads the run as cut.
    out.write(json.dumps({"event": "end", "tests": count}) + "\n")
    return 0


def main(argv):
    if argv[1:2] == ["--gapscore-info"]:
        print(json.dumps(INFO))
        return 0
    if argv[1:2] == ["--gapscore-parse"]:
        # argv[2] holds the options ({"source_name": ..., "format_id": ...}); unknown keys are
        # ignored, and this one-format adapter needs none of them.
        out = open(sys.stdout.fileno(), "w", encoding="utf-8", buffering=1 << 16, closefd=False)
        status = parse(sys.stdin.buffer, out)
        out.flush()
        return status
    sys.stderr.write("usage: %s --gapscore-info | --gapscore-parse OPTIONS_JSON\n" % argv[0])
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
