const { add, sub } = require('../calc');
test('adds', () => { expect(add(1, 2)).toBe(3); });
test('subtracts', () => { expect(sub(3, 1)).toBe(2); });
describe('group', () => {
  describe('inner', () => {
    test('adds zero', () => { expect(add(0, 5)).toBe(5); });
  });
  test.skip('skipped one', () => {});
});
