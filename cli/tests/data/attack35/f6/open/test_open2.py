def test_o2(): pass
