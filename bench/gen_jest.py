#!/usr/bin/env python3
"""Generate a large Jest `--json` or Vitest `--reporter=json` document for benchmarking the jest
adapter (not used by tests).

Usage: python3 bench/gen_jest.py [SIZE_MB=40] [OUT=/tmp/bench/jest.json] [jest|vitest]

Jest's shape: test files of 200 tests each under two levels of `describe`, about 10 % failing
(with a failure message holding escapes, as Jest's ANSI-coloured ones do), 3 % pending, the rest
passing; declared counts match. `vitest` writes Vitest's shape of the same tests: its root keys
(with `snapshot`), its tests' `meta` and no `invocations`/`retryReasons`. Seeded, so the same
arguments give the same file. The test files are written to `OUT.files` first and appended
after the counts (which come ahead of them), so a 1 GB file needs no 1 GB of memory."""
import json, os, random, sys

random.seed(42)
target = int(float(sys.argv[1] if len(sys.argv) > 1 else 40) * 1024 * 1024)
out = sys.argv[2] if len(sys.argv) > 2 else "/tmp/bench/jest.json"
vitest = (sys.argv[3] if len(sys.argv) > 3 else "jest") == "vitest"
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
counts = dict(passed=0, failed=0, pending=0)
size = 0
files = 0
failed_files = 0
body = out + ".files"
with open(body, "w", encoding="utf-8") as w:
    while size < target:
        files += 1
        path = f"/home/ci/project/src/pkg{files % 97}/module_{files}.test.js"
        tests = []
        failed_here = 0
        for i in range(200):
            r = random.random()
            anc = [f"Module{files}", f"group {i % 7}"]
            title = f"handles case {i} with param {random.randint(0, 10**6)}"
            if vitest:
                t = {"ancestorTitles": anc, "fullName": " ".join(anc + [title]),
                     "status": "passed", "title": title, "duration": random.randint(0, 40) + 0.5,
                     "failureMessages": [], "meta": {}}
            else:
                t = {"ancestorTitles": anc, "duration": random.randint(0, 40),
                     "failureDetails": [], "failureMessages": [], "fullName": " ".join(anc + [title]),
                     "invocations": 1, "location": None, "numPassingAsserts": 1,
                     "retryReasons": [], "status": "passed", "title": title}
            if r < 0.10:
                counts["failed"] += 1; failed_here += 1
                t["status"] = "failed"
                t["failureMessages"] = [f"Error: \u001b[2mexpect(\u001b[22m\u001b[31mreceived\u001b[39m\u001b[2m).\u001b[22mtoBe\u001b[2m(\u001b[22m\u001b[32mexpected\u001b[39m\u001b[2m)\u001b[22m\n\nExpected: \u001b[32m{i + 1}\u001b[39m\nReceived: \u001b[31m{i}\u001b[39m\n    at Object.<anonymous> ({path}:{i * 3}:17)"]
                if not vitest:
                    t["failureDetails"] = [{"matcherResult": {"expected": i + 1, "actual": i, "pass": False}}]
            elif r < 0.13:
                counts["pending"] += 1
                t["status"] = "skipped" if vitest else "pending"
            else:
                counts["passed"] += 1
            tests.append(t)
        failed_files += failed_here > 0
        status = "failed" if failed_here else "passed"
        if vitest:
            f = {"assertionResults": tests, "startTime": 1700000000000, "endTime": 1700000000000 + files,
                 "status": status, "message": "", "name": path}
        else:
            f = {"assertionResults": tests, "endTime": 1700000000000 + files, "message": "",
                 "name": path, "startTime": 1700000000000, "status": status, "summary": ""}
        chunk = ("," if files > 1 else "") + json.dumps(f, separators=(",", ":"))
        w.write(chunk)
        size += len(chunk.encode())
total = sum(counts.values())
with open(out, "w", encoding="utf-8") as w:
    if vitest:
        w.write('{"numTotalTestSuites":%d,"numPassedTestSuites":%d,"numFailedTestSuites":%d,'
                '"numPendingTestSuites":0,"numTotalTests":%d,"numPassedTests":%d,"numFailedTests":%d,'
                '"numPendingTests":%d,"numTodoTests":0,"snapshot":{"added":0,"failure":false,"filesAdded":0,'
                '"filesRemoved":0,"filesRemovedList":[],"filesUnmatched":0,"filesUpdated":0,"matched":0,'
                '"total":0,"unchecked":0,"uncheckedKeysByFile":[],"unmatched":0,"updated":0,"didUpdate":false},'
                '"startTime":1700000000000,"success":false,"testResults":['
                % (files, files - failed_files, failed_files, total, counts["passed"], counts["failed"], counts["pending"]))
    else:
        # Jest's own key order: the counts, then `testResults`, then `wasInterrupted`.
        w.write('{"numFailedTestSuites":0,"numFailedTests":%d,"numPassedTestSuites":0,"numPassedTests":%d,'
                '"numPendingTestSuites":0,"numPendingTests":%d,"numRuntimeErrorTestSuites":0,"numTodoTests":0,'
                '"numTotalTestSuites":%d,"numTotalTests":%d,"openHandles":[],"startTime":1700000000000,'
                '"success":false,"testResults":[' % (counts["failed"], counts["passed"], counts["pending"], files, total))
    with open(body, encoding="utf-8") as r:
        while True:
            block = r.read(1 << 20)
            if not block:
                break
            w.write(block)
    w.write(']}\n' if vitest else '],"wasInterrupted":false}\n')
os.remove(body)
print(out, files, "files", total, "tests", counts, file=sys.stderr)
