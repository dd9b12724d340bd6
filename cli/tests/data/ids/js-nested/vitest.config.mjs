export default { test: { globals: true, include: ['sealed/**/*.test.js'] } };
