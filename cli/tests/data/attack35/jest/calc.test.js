describe('calc', () => { test('adds', () => {}); test('muls', () => {}); });
