const assert = require('assert');
const calc = require('../../calc');
describe('calc', function () {
  it('adds', function () { assert.strictEqual(calc.add(2, 3), 5); });
  it('subs', function () { assert.strictEqual(calc.sub(5, 3), 2); });
  it('muls', function () { assert.strictEqual(calc.mul(2, 3), 6); });
});
