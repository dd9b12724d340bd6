const test = require('node:test'); const assert = require('assert');
const lib = require('../lib.js');
test('adds', () => { assert.strictEqual(lib.add(1,2), 3); });
test('subtracts', () => { assert.strictEqual(lib.sub(3,1), 2); });
test('multiplies', () => { assert.strictEqual(lib.mul(2,3), 6); });
