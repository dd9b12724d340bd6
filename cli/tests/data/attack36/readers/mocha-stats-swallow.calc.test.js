const assert = require('assert');
const c = require('../calc');
describe('calc', () => {
  it('adds', () => { assert.strictEqual(c.add(1,2), 3); });
  it('subs', () => { assert.strictEqual(c.sub(3,2), 1); });
  it('muls', () => { assert.strictEqual(c.mul(3,2), 6); });
});
