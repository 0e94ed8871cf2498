// Loads the real bridge with a fake dsh context, from a JSON config on argv[3], and reports
// on stdout what it did: which hooks it took, whether it set a guard, and what `tools/pre-execute` said.

const [, , bridgePath, configJson] = process.argv;
const config = JSON.parse(configJson);
const handlers = new Map();
let guard = null;
const ctx = {
  on(event, handler) {
    handlers.set(event, handler);
    return () => {};
  },
  get() {
    return undefined;
  },
  tools: {
    guard: (fn) => {
      guard = fn;
      return () => {};
    },
  },
};
const mod = await import(bridgePath);
const stderr = [];
const write = process.stderr.write.bind(process.stderr);
process.stderr.write = (s) => {
  stderr.push(String(s));
  return true;
};
const dispose = mod.apply(ctx, config);
process.stderr.write = write;
const pre = handlers.get('tools/pre-execute');
const verdict = await pre({ name: 'bash', callId: 'c1', arguments: { command: 'ls' } }, async () => ({ kind: 'allow' }));
const env = Object.keys(process.env).filter((k) => k.startsWith('BREAKER_'));
const events = [...handlers.keys()];
console.log(JSON.stringify({ verdict, stderr, env, events, guard: typeof guard === 'function' }));
dispose();
process.exit(0);
