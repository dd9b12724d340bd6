#!/usr/bin/env python3
"""Generate a large Mocha `--reporter json` document for benchmarking the mocha adapter (not
used by tests).

Usage: python3 bench/gen_mocha.py [SIZE_MB=40] [OUT=/tmp/bench/mocha.json]

Mocha's shape, as its JSON reporter writes it: `stats`, then `tests` (every test), `pending`,
`failures` and `passes` (each test again in the array of its outcome), two-space indented.
100 tests per file under one `describe`; every 10th test fails (an `err` with message, stack,
expected and actual), every 33rd is pending (no duration), the rest pass. The counts are
computed ahead, so the file is written as it is generated, in constant memory."""
import json, os, sys

target = int(float(sys.argv[1] if len(sys.argv) > 1 else 40) * 1024 * 1024)
out = sys.argv[2] if len(sys.argv) > 2 else "/tmp/bench/mocha.json"
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)


def test(i):
    f = i // 100
    t = {"title": f"handles case {i}", "fullTitle": f"Module{f} handles case {i}",
         "file": f"/home/ci/project/test/module_{f}.spec.js", "duration": i % 40 + 1,
         "currentRetry": 0, "speed": "fast", "err": {}}
    if i % 33 == 5:
        del t["duration"], t["speed"]
        return t, "pending"
    if i % 10 == 7:
        t["err"] = {"message": f"expected {i} to equal {i + 1}",
                    "stack": f"AssertionError: expected {i} to equal {i + 1}\n    at Context.<anonymous> (test/module_{f}.spec.js:{i % 90 + 3}:10)\n    at process.processImmediate (node:internal/timers:483:21)",
                    "generatedMessage": False, "name": "AssertionError", "actual": str(i), "expected": str(i + 1),
                    "operator": "strictEqual", "code": "ERR_ASSERTION"}
        return t, "failures"
    return t, "passes"


def text(t):
    return json.dumps(t, indent=2).replace("\n", "\n    ")


# Each test is written twice (in `tests` and in its outcome's array): about twice its text.
per_test = 2 * len(text(test(1))) + 8
n = max(1, target // per_test)
kinds = {"pending": 0, "failures": 0, "passes": 0}
for i in range(n):
    kinds[test(i)[1]] += 1
with open(out, "w", encoding="utf-8") as w:
    stats = {"suites": (n + 99) // 100, "tests": n, "passes": kinds["passes"], "pending": kinds["pending"],
             "failures": kinds["failures"], "start": "2026-11-29T00:00:00.000Z",
             "end": "2026-11-29T00:01:00.000Z", "duration": 60000}
    w.write('{\n  "stats": ' + json.dumps(stats, indent=2).replace("\n", "\n  ") + ',\n  "tests": [')
    for i in range(n):
        w.write(("," if i else "") + "\n    " + text(test(i)[0]))
    for kind in ("pending", "failures", "passes"):
        w.write('\n  ],\n  "%s": [' % kind)
        first = True
        for i in range(n):
            t, k = test(i)
            if k == kind:
                w.write(("" if first else ",") + "\n    " + text(t))
                first = False
    w.write("\n  ]\n}\n")
print(out, n, "tests", kinds, file=sys.stderr)
