const { div } = require('../../calc');
describe('div', () => {
  test('halves', () => { expect(div(4, 2)).toBe(2); });
  test('by zero is Infinity', () => { expect(div(1, 0)).toBe(0); });
});
