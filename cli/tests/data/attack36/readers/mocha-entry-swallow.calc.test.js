const assert = require('assert');
const calc = require('../calc');
describe('calc', function () {
  it('adds', function () { assert.strictEqual(calc.add(1, 2), 3); });
  it('divides', function () { assert.strictEqual(calc.div(6, 3), 2); });
  it('multiplies', function () { assert.strictEqual(calc.mul(2, 3), 6); });
});
