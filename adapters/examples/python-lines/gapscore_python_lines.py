#!/usr/bin/env python3
"""gapscore executable adapter "python-lines": the `lines` format of the C example
(adapters/examples/c-lines), read by a plain Python 3 program with no dependencies.

The protocol (docs/abi.md, "Executable adapters"):

- `gapscore_python_lines.py --gapscore-info` prints one JSON object: the protocol version, the
  adapter's name, version, format ids and detection rules.
- `gapscore_python_lines.py --gapscore-parse OPTIONS_JSON` reads the result file on stdin and
  writes one JSON event per line on stdout, ending with {"event": "end", "tests": N}. Invalid
  input is an {"event": "error", ...} line and exit status 1.

Load it with `gapscore score --plugin-exec 'python3 adapters/examples/python-lines/gapscore_python_lines.py' ...`.

The format, one result per line: `PASS <name>`, `FAIL <name>[: <message>]`,
`ERROR <name>[: <message>]`, `SKIP <name>[: <reason>]`, `TODO <name>`; blank lines and lines
starting with `#` are ignored; LF or CRLF; a UTF-8 byte order mark at the start is skipped.
"""

import json
import sys

INFO = {
    "gapscore_exec_adapter": 1,
    "name": "python-lines",
    "version": "0.1.0",
    "formats": ["lines-py"],
    # Confidence 0..100 for a file: the highest matching rule wins; every condition a rule
    # names must hold. A `.lines` file name alone is a weak hint; with a keyword, a strong one.
    "detect": [
        {"confidence": 85, "file_suffix": ".lines", "prefix_contains": "PASS "},
        {"confidence": 85, "file_suffix": ".lines", "prefix_contains": "FAIL "},
        {"confidence": 30, "file_suffix": ".lines"},
    ],
}

KEYWORDS = {
    "PASS": ("passed", False),
    "FAIL": ("failed", True),
    "ERROR": ("errored", True),
    "SKIP": ("skipped", True),
    "TODO": ("todo", False),
}
EXPECTED = "(expected PASS, FAIL, ERROR, SKIP or TODO)"
MAX_QUOTED = 32


class InputError(Exception):
    def __init__(self, message, line, column):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


def quoted(text):
    """The start of a piece of the input for a message, at most MAX_QUOTED UTF-8 bytes."""
    data = text.encode("utf-8")
    if len(data) <= MAX_QUOTED:
        return text
    return data[:MAX_QUOTED].decode("utf-8", errors="ignore") + "\u2026"


def parse_line(line, line_no):
    """The test of one result line, as the dict the test_finished event carries."""
    if line[0] in " \t":
        raise InputError("unexpected whitespace at the start of the line " + EXPECTED, line_no, 1)
    tok = 0
    while tok < len(line) and line[tok] not in " \t":
        tok += 1
    word = line[:tok]
    if word not in KEYWORDS:
        raise InputError('unknown keyword "%s" %s' % (quoted(word), EXPECTED), line_no, 1)
    # Columns count bytes, like the C example.
    col = len(word.encode("utf-8")) + 1
    if tok == len(line):
        raise InputError('missing test name after "%s"' % word, line_no, col)
    if line[tok] != " ":
        raise InputError('expected a space after "%s"' % word, line_no, col)
    status, takes_message = KEYWORDS[word]
    name, message = line[tok + 1:], None
    if takes_message and ": " in name:
        name, message = name.split(": ", 1)
    if name.strip(" \t") == "":
        raise InputError("empty test name", line_no, col + 1)
    test = {"name": name, "status": status}
    if message:
        test["message"] = message
    return test


def parse(stream, out):
    """Reads the lines of `stream` (bytes) and writes the events to `out`; returns the exit status."""
    count = 0
    for line_no, raw in enumerate(stream, 1):
        if line_no == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        if raw.endswith(b"\n"):
            raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        try:
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                raise InputError("invalid UTF-8 (byte 0x%02X)" % raw[e.start], line_no, e.start + 1)
            if line.strip(" \t") == "" or line.startswith("#"):
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
