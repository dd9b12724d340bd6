def test_o1(): pass
