const calc = require('../../calc');
describe('calc', () => {
  test('adds', () => expect(calc.add(2,3)).toBe(5));
  test('muls', () => expect(calc.mul(2,3)).toBe(6));
});
