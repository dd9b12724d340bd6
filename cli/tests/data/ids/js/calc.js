exports.add = (a, b) => a + b;
exports.sub = (a, b) => a + b; // the bug the sealed suite finds
exports.div = (a, b) => a / b;
