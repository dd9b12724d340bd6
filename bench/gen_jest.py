#!/usr/bin/env python3
"""Generate a large Jest `--json` document for benchmarking the jest adapter (not used by tests).

Usage: python3 bench/gen_jest.py [SIZE_MB=40] [OUT=/tmp/bench/jest.json]

Jest's shape: test files of 200 tests each under two levels of `describe`, about 10 % failing
(with a failure message holding escapes, as Jest's ANSI-coloured ones do), 3 % pending, the rest
passing; declared counts match. Seeded, so the same arguments give the same file."""
import json, os, random, sys

random.seed(42)
target = int(float(sys.argv[1] if len(sys.argv) > 1 else 40) * 1024 * 1024)
out = sys.argv[2] if len(sys.argv) > 2 else "/tmp/bench/jest.json"
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
counts = dict(passed=0, failed=0, pending=0)
size = 0
files = 0
chunks = []  # the files first: Jest writes the counts ahead of them
while size < target:
    files += 1
    path = f"/home/ci/project/src/pkg{files % 97}/module_{files}.test.js"
    tests = []
    failed_here = 0
    for i in range(200):
        r = random.random()
        anc = [f"Module{files}", f"group {i % 7}"]
        title = f"handles case {i} with param {random.randint(0, 10**6)}"
        t = {"ancestorTitles": anc, "duration": random.randint(0, 40),
             "failureDetails": [], "failureMessages": [], "fullName": " ".join(anc + [title]),
             "invocations": 1, "location": None, "numPassingAsserts": 1,
             "retryReasons": [], "status": "passed", "title": title}
        if r < 0.10:
            counts["failed"] += 1; failed_here += 1
            t["status"] = "failed"
            t["failureMessages"] = [f"Error: \u001b[2mexpect(\u001b[22m\u001b[31mreceived\u001b[39m\u001b[2m).\u001b[22mtoBe\u001b[2m(\u001b[22m\u001b[32mexpected\u001b[39m\u001b[2m)\u001b[22m\n\nExpected: \u001b[32m{i + 1}\u001b[39m\nReceived: \u001b[31m{i}\u001b[39m\n    at Object.<anonymous> ({path}:{i * 3}:17)"]
            t["failureDetails"] = [{"matcherResult": {"expected": i + 1, "actual": i, "pass": False}}]
        elif r < 0.13:
            counts["pending"] += 1
            t["status"] = "pending"
        else:
            counts["passed"] += 1
        tests.append(t)
    f = {"assertionResults": tests, "endTime": 1700000000000 + files, "message": "",
         "name": path, "startTime": 1700000000000, "status": "failed" if failed_here else "passed",
         "summary": ""}
    chunk = ("," if files > 1 else "") + json.dumps(f, separators=(",", ":"))
    chunks.append(chunk)
    size += len(chunk.encode())
total = sum(counts.values())
with open(out, "w", encoding="utf-8") as w:
    # Jest's own key order: the counts, then `testResults`, then `wasInterrupted`.
    w.write('{"numFailedTestSuites":0,"numFailedTests":%d,"numPassedTestSuites":0,"numPassedTests":%d,'
            '"numPendingTestSuites":0,"numPendingTests":%d,"numRuntimeErrorTestSuites":0,"numTodoTests":0,'
            '"numTotalTestSuites":%d,"numTotalTests":%d,"openHandles":[],"startTime":1700000000000,'
            '"success":false,"testResults":[' % (counts["failed"], counts["passed"], counts["pending"], files, total))
    w.writelines(chunks)
    w.write('],"wasInterrupted":false}\n')
print(out, files, "files", sum(counts.values()), "tests", counts, file=sys.stderr)
