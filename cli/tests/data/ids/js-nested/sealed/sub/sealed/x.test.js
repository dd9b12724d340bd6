test('works', () => { expect(1 + 1).toBe(3); });
