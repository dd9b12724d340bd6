def add(a, b):
    raise NotImplementedError


def sub(a, b):
    raise NotImplementedError
