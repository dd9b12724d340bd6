const { add, sub } = require('../calc');

describe('add', () => {
  test('adds', () => expect(add(2, 2)).toBe(4));
  test('adds negatives', () => expect(add(-1, -2)).toBe(-3));
});

describe('sub', () => {
  test('subtracts', () => expect(sub(5, 3)).toBe(2));
  test('subtracts zero', () => expect(sub(0, 0)).toBe(0));
});
