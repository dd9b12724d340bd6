#!/usr/bin/env python3
"""Generate a large CTRF document for benchmarking the ctrf adapter (not used by tests).

Usage: python3 bench/gen_ctrf.py [SIZE_MB=40] [OUT=/tmp/bench/ctrf.json]

jest-ctrf-json-reporter's shape: `suite` as an array (file, describe), `filePath`, `rawStatus`,
about 10 % failed with a message and trace (escaped newlines), 3 % skipped, the rest passed;
the summary matches. Seeded, so the same arguments give the same file."""
import json, os, random, sys

random.seed(42)
target = int(float(sys.argv[1] if len(sys.argv) > 1 else 40) * 1024 * 1024)
out = sys.argv[2] if len(sys.argv) > 2 else "/tmp/bench/ctrf.json"
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
counts = dict(passed=0, failed=0, skipped=0)
size = 0
n = 0
with open(out, "w", encoding="utf-8") as w:
    w.write('{"reportFormat":"CTRF","specVersion":"0.0.0","results":{"tool":{"name":"jest","version":"29.7.0"},"tests":[')
    while size < target:
        n += 1
        f = n // 200
        path = f"src/pkg{f % 97}/module_{f}.test.js"
        t = {"name": f"handles case {n} with param {random.randint(0, 10**6)}",
             "status": "passed", "duration": random.randint(0, 40),
             "suite": [f"module_{f}.test.js", f"group {n % 7}"], "filePath": path,
             "rawStatus": "passed", "tags": [], "type": "unit"}
        r = random.random()
        if r < 0.10:
            counts["failed"] += 1
            t["status"] = t["rawStatus"] = "failed"
            t["message"] = f"Error: expect(received).toBe(expected)\n\nExpected: {n + 1}\nReceived: {n}"
            t["trace"] = f"Error: expect(received).toBe(expected)\n    at Object.<anonymous> ({path}:{n % 300}:17)\n    at processTicksAndRejections (node:internal/process/task_queues:95:5)"
        elif r < 0.13:
            counts["skipped"] += 1
            t["status"] = "skipped"; t["rawStatus"] = "pending"; t["duration"] = 0
        else:
            counts["passed"] += 1
        chunk = ("," if n > 1 else "") + json.dumps(t, separators=(",", ":"))
        w.write(chunk)
        size += len(chunk.encode())
    w.write('],"summary":%s}}\n' % json.dumps(
        {"tests": n, "passed": counts["passed"], "failed": counts["failed"], "skipped": counts["skipped"],
         "pending": 0, "other": 0, "start": 1700000000000, "stop": 1700000100000}))
print(out, n, "tests", counts, file=sys.stderr)
