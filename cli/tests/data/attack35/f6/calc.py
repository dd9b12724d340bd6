def add(a,b): return a+b
def sub(a,b): return a-b
def mul(a,b): return a+b
def div(a,b): return a*b
def pow2(a): return a*a
def neg(a): return -a
