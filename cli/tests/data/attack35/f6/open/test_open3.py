def test_o3(): pass
