const { test } = require('node:test');
const assert = require('node:assert');
test('adds', () => { assert.strictEqual(1 + 1, 2); });
test('subtracts', () => { assert.strictEqual(5 - 3, 3); });
test('compares objects', () => { assert.deepStrictEqual({ a: 1 }, { a: 2 }); });
test('throws', () => { throw new Error('plain error'); });
