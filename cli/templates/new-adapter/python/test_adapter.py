"""The adapter on its fixtures, through the protocol as gapscore speaks it (no gapscore
needed): `python3 -m unittest` in this directory runs it."""

import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def run(*args, stdin=b""):
    done = subprocess.run(
        [sys.executable, os.path.join(HERE, "adapter.py"), *args],
        input=stdin, capture_output=True, check=False,
    )
    events = [json.loads(line) for line in done.stdout.decode("utf-8").splitlines()]
    return done.returncode, events


def fixture(path):
    with open(os.path.join(HERE, "tests", "fixtures", path), "rb") as f:
        return f.read()


class AdapterTest(unittest.TestCase):
    def test_info(self):
        status, [info] = run("--gapscore-info")
        self.assertEqual(status, 0)
        self.assertEqual((info["gapscore_exec_adapter"], info["name"]), (1, "@NAME@"))

    def test_valid_fixture(self):
        status, events = run("--gapscore-parse", "{}", stdin=fixture("valid/example.@NAME@"))
        self.assertEqual(status, 0)
        self.assertEqual(events, [
            {"event": "test_finished", "test": {"name": "adds two numbers", "status": "passed"}},
            {"event": "test_finished", "test": {
                "name": "divides by zero", "status": "failed",
                "message": "expected an error, got 0"}},
            {"event": "test_finished", "test": {
                "name": "uploads a file", "status": "skipped", "message": "needs network"}},
            {"event": "end", "tests": 3},
        ])

    def test_unknown_status_is_refused_at_its_place(self):
        status, events = run("--gapscore-parse", "{}",
                             stdin=fixture("invalid/unknown-status.@NAME@"))
        self.assertEqual(status, 1)
        self.assertEqual(events[-1]["event"], "error")
        self.assertEqual((events[-1]["line"], events[-1]["column"]), (2, 1))


if __name__ == "__main__":
    unittest.main()
