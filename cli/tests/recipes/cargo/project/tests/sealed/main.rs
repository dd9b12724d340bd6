use calc::{add, sub};

#[test]
fn adds() {
    assert_eq!(add(2, 2), 4);
}

#[test]
fn adds_negatives() {
    assert_eq!(add(-1, -2), -3);
}

#[test]
fn subtracts() {
    assert_eq!(sub(5, 3), 2);
}

#[test]
fn subtracts_zero() {
    assert_eq!(sub(0, 0), 0);
}
