exports.add = (a, b) => a + b;
exports.sub = (a, b) => b - a;
