// Loads the real bridge with a fake dsh context, from a JSON config on argv[3], and reports
// on stdout what it did: whether the hand-off file survived, and what `tools/pre-execute` said.
import { existsSync } from 'node:fs';

const [, , bridgePath, configJson] = process.argv;
const config = JSON.parse(configJson);
const handlers = new Map();
const ctx = {
  on(event, handler) {
    handlers.set(event, handler);
    return () => {};
  },
  get() {
    return undefined;
  },
  tools: { guard: () => () => {} },
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
console.log(JSON.stringify({ handoffLeft: config.handoff ? existsSync(config.handoff) : null, verdict, stderr, env }));
dispose();
process.exit(0);
