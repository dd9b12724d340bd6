const test = require('node:test');
const assert = require('node:assert');
const { add, sub } = require('../../calc');

test('adds', () => assert.strictEqual(add(2, 2), 4));
test('adds negatives', () => assert.strictEqual(add(-1, -2), -3));
test('subtracts', () => assert.strictEqual(sub(5, 3), 2));
test('subtracts zero', () => assert.strictEqual(sub(0, 0), 0));
