import calc
def test_pow(): assert calc.pow2(3) == 9
def test_neg(): assert calc.neg(3) == -3
