from app import greet


def test_greet_formats_name():
    assert greet("World") == "Hello, World!"
