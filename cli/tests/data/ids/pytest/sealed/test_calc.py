import pytest

def test_add():
    assert 1 + 1 == 2

def test_sub():
    assert 3 - 1 == 1

@pytest.mark.parametrize("a,b", [(1, 2), (3, 4)])
def test_p(a, b):
    assert a < b

class TestX:
    def test_mul(self):
        assert 2 * 2 == 4

    def test_div(self):
        assert 4 / 2 == 3
