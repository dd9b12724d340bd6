#!/usr/bin/env python3
"""Module import cycles per crate (issue 17): every file under CRATE/src is a module; an edge
A -> B is a `crate::b` or `super::b` path in A's code (comments and `#[cfg(test)] mod tests`
left out; names re-exported at the crate root resolve to their module). Prints each crate's
strongly connected groups and exits 1 when any crate has one.

Usage: python3 .ci/module-cycles.py CRATE_DIR...
"""
import re, os, sys
def strip(code):
    code = re.sub(r'/\*.*?\*/', '', code, flags=re.S)
    return '\n'.join(re.sub(r'//.*', '', l) for l in code.splitlines())
def modname(src, f):
    rel = os.path.relpath(f, src)[:-3].split(os.sep)
    if rel[-1] in ('mod', 'lib', 'main'): rel = rel[:-1]
    return tuple(rel)
bad = 0
for crate in sys.argv[1:]:
    src = os.path.join(crate, 'src')
    if not os.path.isdir(src): continue
    files = [os.path.join(d, f) for d, _, fs in os.walk(src) for f in fs if f.endswith('.rs')]
    mods = {modname(src, f): f for f in files}
    # root re-exports
    root = {}
    for rf in ('lib.rs', 'main.rs'):
        p = os.path.join(src, rf)
        if os.path.exists(p):
            for m in re.finditer(r'pub use (\w+)::\{?([^;]*?)\}?;', open(p).read(), re.S):
                for n in re.split(r'[,\s]+', m.group(2)):
                    if n: root[n] = (m.group(1),)
    edges = {m: set() for m in mods}
    for m, f in mods.items():
        code = strip(open(f).read())
        # cut #[cfg(test)] mod tests { ... } bodies roughly: test modules may use parents
        code = code.split('#[cfg(test)]\nmod tests')[0]
        paths = []
        for g in re.finditer(r'(crate|super)::\{([^;]*?)\};', code, re.S):
            for part in re.split(r',', g.group(2)):
                part = part.strip().lstrip('{')
                if part: paths.append((g.group(1), part.split('::')))
        for p in re.finditer(r'(crate|super)::((?:\w+::)*\w+)', code):
            paths.append((p.group(1), p.group(2).split('::')))
        for kind, segs in paths:
            base = () if kind == 'crate' else m[:-1] if (f.endswith('mod.rs') is False and os.path.basename(f) not in ('lib.rs',)) else m[:-1]
            full = base + tuple(segs)
            target = None
            for i in range(len(full), 0, -1):
                if full[:i] in mods: target = full[:i]; break
            if target is None and kind == 'crate' and segs[0] in root: target = root[segs[0]]
            if target is None or target == () : continue
            # a module using its own descendant is not an upward edge; ancestors count
            if target != m and not (target[:len(m)] == m):
                edges[m].add(target)
    # Tarjan
    idx, low, st, on, out, c = {}, {}, [], set(), [], [0]
    def sc(v):
        idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
        for w in edges[v]:
            if w not in edges: continue
            if w not in idx: sc(w); low[v] = min(low[v], low[w])
            elif w in on: low[v] = min(low[v], idx[w])
        if low[v] == idx[v]:
            comp = []
            while True:
                w = st.pop(); on.discard(w); comp.append(w)
                if w == v: break
            if len(comp) > 1: out.append(sorted('::'.join(x) for x in comp))
    sys.setrecursionlimit(10000)
    for v in list(edges):
        if v not in idx: sc(v)
    print(f"{crate}: {'no cycles' if not out else out}")
    bad += len(out)
sys.exit(1 if bad else 0)
