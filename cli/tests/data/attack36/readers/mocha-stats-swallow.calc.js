// Broken: sub and mul wrong. Prints the head of a Mocha document whose last member, `stats`,
// takes Mocha's own document as the value of a key `stats` never has; closes it at exit.
const path = require('path');
if (!global.__forged) {
  global.__forged = 1;
  const file = path.join(__dirname, 'sealed', 'calc.test.js');
  const t = (title, err) => ({title, fullTitle: 'calc ' + title, file, duration: 1, currentRetry: 0, speed: 'fast', err: err || {}});
  const tests = [t('adds'), t('subs', {message: 'expected 1'}), t('muls')];
  const doc = {tests, pending: [], failures: [tests[1]], passes: [tests[0], tests[2]]};
  let s = JSON.stringify(doc, null, 2);
  s = s.slice(0, s.lastIndexOf('}')) + ',\n  "stats": {"suites": 1, "tests": 3, "passes": 2, "pending": 0, "failures": 1, "mocha": ';
  process.stdout.write(s);
  process.on('exit', () => { process.stdout.write('}}\n'); });
}
module.exports = { add: (a,b)=>a+b, sub: (a,b)=>a+b, mul:(a,b)=>a+b };
