def test_parses_empty_file():
    assert parse("") == []
