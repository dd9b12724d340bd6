const test = require('node:test');
const assert = require('node:assert');

test('adds', () => { assert.strictEqual(1 + 1, 2); });
test('subtracts', () => { assert.strictEqual(3 - 1, 1); });
test('skipped one', { skip: 'no network' }, () => {});
test('todo passing', { todo: 'later' }, () => {});
test('todo failing', { todo: true }, () => { assert.ok(false); });
test('group', async (t) => {
  await t.test('inner a', () => {});
  await t.test('inner b', () => {});
});
