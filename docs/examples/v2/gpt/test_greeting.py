from app import greet


def test_empty_name_is_rejected():
    assert greet("") is None
