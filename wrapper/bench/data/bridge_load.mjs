// Load generator for `python -m wrapper.bench`: behaves like the dsh bridge on the wire.
// Streams reasoning-delta events at RATE per second and asks for a verdict every VERDICT_MS,
// timing each verdict's round trip. Prints one JSON line with the results.
import net from 'node:net';

const rate = Number(process.env.RATE ?? 1000);
const seconds = Number(process.env.SECONDS ?? 5);
const verdictMs = Number(process.env.VERDICT_MS ?? 20);
const sock = new net.Socket({ fd: Number(process.env.BREAKER_FD), readable: true, writable: true });
sock.setNoDelay(true);
let bytes = 0;
const pending = new Map();
const rtts = [];
let buf = '';
function send(obj) {
  const line = JSON.stringify(obj) + '\n';
  bytes += Buffer.byteLength(line);
  sock.write(line);
}
sock.on('data', (chunk) => {
  buf += chunk;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    const msg = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    const t0 = pending.get(msg.id);
    if (t0 !== undefined) {
      rtts.push(performance.now() - t0);
      pending.delete(msg.id);
    }
  }
});
// an inherited socket is already connected: no 'connect' event comes
(async () => {
  send({ t: 'hello', pid: process.pid, runner: false });
  send({ t: 'request_start', sessionId: 'bench', turn: 1, step: 1 });
  const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu'.split(' ');
  const start = performance.now();
  let sent = 0;
  let vid = 0;
  let nextVerdict = start;
  while (performance.now() - start < seconds * 1000) {
    const due = Math.floor(((performance.now() - start) / 1000) * rate);
    while (sent < due) {
      const text = `step ${sent}: ${words[sent % 12]} ${words[(sent * 7) % 12]} case ${sent * 31 % 7919}. `;
      send({ t: 'event', sessionId: 'bench', event: { type: 'assistant/chunk', seq: sent, time: Date.now(),
        data: { turn: 1, step: 1, chunk: { type: 'reasoning-delta', index: 0, text } } } });
      sent++;
    }
    if (performance.now() >= nextVerdict) {
      const id = `v${++vid}`;
      pending.set(id, performance.now());
      send({ t: 'verdict_request', id, sessionId: 'bench', callId: `c${vid}`, name: 'bash',
        args: { command: `curl -s https://api.example.com/items?page=${vid} -o page${vid % 9}.json`, description: 'x' } });
      nextVerdict += verdictMs;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  const deadline = performance.now() + 5000;
  while (pending.size && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  rtts.sort((a, b) => a - b);
  const pct = (q) => rtts[Math.min(rtts.length - 1, Math.floor(q * rtts.length))];
  console.log(JSON.stringify({ events: sent, events_per_s: sent / seconds, verdicts: rtts.length, lost: pending.size,
    rtt_p50_ms: pct(0.5), rtt_p99_ms: pct(0.99), bytes }));
  sock.end();
})();
