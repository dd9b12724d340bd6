def test_o4(): pass
