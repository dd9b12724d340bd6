#!/usr/bin/env python3
"""Generate a large pytest-json-report document, or the same run as a pytest-reportlog stream,
for benchmarking the pytest adapter (not used by tests).

Usage: python3 bench/gen_pytest_json.py [SIZE_MB=40] [OUT=/tmp/bench/pytest.json] [--reportlog]

pytest's shape: modules of 200 tests in classes, setup/call/teardown phases, about 10 % failed
(a crash and a `longrepr` traceback with escaped newlines), 3 % skipped, 1 test in 10 with
captured stdout, the rest passing; summary, collectors' counts and exit status match. With
--reportlog it writes one JSON line per phase report (pytest --report-log). Seeded, so the same
arguments give the same file."""
import json, os, random, sys

args = [a for a in sys.argv[1:] if a != "--reportlog"]
reportlog = "--reportlog" in sys.argv[1:]
random.seed(42)
target = int(float(args[0] if args else 40) * 1024 * 1024)
out = args[1] if len(args) > 1 else ("/tmp/bench/pytest.reportlog.jsonl" if reportlog else "/tmp/bench/pytest.json")
os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
counts = dict(passed=0, failed=0, skipped=0)
dumps = lambda o: json.dumps(o, separators=(",", ":"))


def phases(n, nodeid, path, outcome):
    """The test's three phase reports as (when, outcome, duration, longrepr, stdout)."""
    tb = (f"def test_case_{n}():\n>       assert {n} == {n + 1}\nE       assert {n} == {n + 1}\n\n"
          f"{path}:{n % 300}: AssertionError")
    out = f"log line {n}\nsecond line\n" if n % 10 == 0 else None
    call = {"passed": ("passed", None), "failed": ("failed", tb),
            "skipped": ("skipped", f"('{path}', {n % 300}, 'Skipped: unsupported platform')")}[outcome]
    if outcome == "skipped":
        return [("setup", "skipped", 0.0001, call[1], None), ("teardown", "passed", 0.0001, None, None)]
    return [("setup", "passed", 0.0002, None, None), ("call", call[0], random.random() * 2, call[1], out),
            ("teardown", "passed", 0.0001, None, None)]


size = 0
n = 0
with open(out, "w", encoding="utf-8") as w:
    if reportlog:
        w.write(dumps({"pytest_version": "8.3.3", "$report_type": "SessionStart"}) + "\n")
    else:
        w.write('{"created":1700000000.0,"duration":100.0,"exitcode":1,"root":"/home/ci/project",'
                '"environment":{"Python":"3.11.7","Packages":{"pytest":"8.3.3"}},"tests":[')
    while size < target:
        n += 1
        m = n // 200
        path = f"tests/pkg{m % 97}/test_module_{m}.py"
        nodeid = f"{path}::TestClass{n % 7}::test_case_{n}[param-{random.randint(0, 10**6)}]"
        r = random.random()
        outcome = "failed" if r < 0.10 else "skipped" if r < 0.13 else "passed"
        counts[outcome] += 1
        ph = phases(n, nodeid, path, outcome)
        if reportlog:
            lines = []
            for when, oc, d, lr, so in ph:
                rec = {"nodeid": nodeid, "location": [path, n % 300, f"TestClass{n % 7}.test_case_{n}"],
                       "keywords": {f"test_case_{n}": 1, f"TestClass{n % 7}": 1, path: 1},
                       "outcome": oc, "longrepr": lr, "when": when, "user_properties": [],
                       "sections": [["Captured stdout call", so]] if so else [],
                       "duration": d, "$report_type": "TestReport"}
                lines.append(dumps(rec) + "\n")
            chunk = "".join(lines)
        else:
            t = {"nodeid": nodeid, "lineno": n % 300, "outcome": outcome,
                 "keywords": [f"test_case_{n}", f"TestClass{n % 7}", path, "project"]}
            for when, oc, d, lr, so in ph:
                p = {"duration": d, "outcome": oc}
                if oc == "failed":
                    p["crash"] = {"path": f"/home/ci/project/{path}", "lineno": n % 300,
                                  "message": f"assert {n} == {n + 1}"}
                    p["traceback"] = [{"path": path, "lineno": n % 300, "message": "AssertionError"}]
                if lr:
                    p["longrepr"] = lr
                if so:
                    p["stdout"] = so
                t[when] = p
            chunk = ("," if n > 1 else "") + dumps(t)
        w.write(chunk)
        size += len(chunk.encode())
    if reportlog:
        w.write(dumps({"exitstatus": 1, "$report_type": "SessionFinish"}) + "\n")
    else:
        w.write('],"summary":%s}\n' % dumps(dict(counts, total=n, collected=n)))
print(out, n, "tests", counts, file=sys.stderr)
