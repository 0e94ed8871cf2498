// breaker-bridge: the dsh plugin breaker-tui mounts with `--patch`.
//
// It relays dsh's live events to the breaker-tui wrapper over an inherited socketpair end
// (JSON lines; the descriptor number is in the launch overlay, nothing to find or swap),
// asks the wrapper for a verdict before every tool call, forwards approval requests, lets
// the wrapper rewrite finished results, and obeys commands: abort the current model stream
// (then retry with thinking off when told), cancel the turn, take a prompt, quit.
// It decides nothing itself, depends on nothing, and never throws into dsh: every hook is
// wrapped, and every question to the wrapper has a timeout that fails closed.
//
// No verdict, no run: another plugin can register on `tools/pre-execute` in front of the bridge
// and answer `allow` without asking (dsh re-applies user patch layers live). So the bridge's last
// word is `ctx.tools.guard()`, which runs after the whole waterfall and the approval, whoever
// answered them, and can only deny: it denies every call the monitor did not allow through the
// bridge's own listeners. Beside it, tripwires report to the monitor: a listener registered on
// the tool hooks once dsh has booted is vetoed (`internal/listener`), and the HMR service's
// watches on the user patch layers are refused, so a patch written during the session is never
// applied. In-process checks are tripwires, not a boundary: the monitor also checks that every
// result it sees belongs to a call it allowed.

import net from 'node:net';
import { readFileSync } from 'node:fs';
import { createHash, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';

export const name = 'breaker-bridge';
export const inject = ['tools'];

const VERSION = '1';

function log(...args) {
  try {
    process.stderr.write(`[breaker-bridge] ${args.join(' ')}\n`);
  } catch {}
}

function sidOf(agent) {
  try {
    if (agent == null) return null;
    if (typeof agent.id === 'string' && agent.id) return agent.id;
    const h = agent.session?.header?.id ?? agent.session?.id;
    if (typeof h === 'string' && h) return h;
    return agent.id === undefined ? null : String(agent.id);
  } catch {
    return null;
  }
}

function textOf(content) {
  if (!Array.isArray(content)) return '';
  return content
    .filter((b) => b && typeof b.text === 'string' && b.text !== '')
    .map((b) => b.text)
    .join('\n');
}

function safeJson(value) {
  try {
    return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  } catch {
    return null;
  }
}

// Optional helpers from dsh's own packages, resolved next to the running dsh.
async function dshModule(spec) {
  try {
    const req = createRequire(process.argv[1] ?? import.meta.url);
    return await import(req.resolve(spec));
  } catch {
    return null;
  }
}

// Every timeout and limit comes from the launch overlay breaker-tui writes (one home: the
// wrapper's settings); a missing or invalid one makes the bridge deny every tool call instead
// of guessing.
function settingsOf(config) {
  const problems = [];
  const num = (key, { min, zeroOk = false }) => {
    const v = config[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || (v < min && !(zeroOk && v === 0))) {
      problems.push(`${key} must be a number >= ${min}${zeroOk ? ' (or 0)' : ''} (got ${JSON.stringify(v)})`);
      return min;
    }
    return v;
  };
  const cfg = {
    verdictTimeoutMs: num('verdictTimeoutMs', { min: 10 }),
    approvalTimeoutMs: num('approvalTimeoutMs', { min: 10, zeroOk: true }), // 0 = wait for the person
    resultTimeoutMs: num('resultTimeoutMs', { min: 10 }),
    maxLineBytes: num('maxLineBytes', { min: 4096 }),
    maxTokens: num('maxTokens', { min: 0 }),
    answerApprovals: config.answerApprovals !== false,
    runner: config.runner === true,
    omit: Array.isArray(config.omit) ? config.omit : ['request/header'],
    fd: Number.isInteger(config.fd) && config.fd > 2 ? config.fd : null,
  };
  return { cfg, problems };
}

// The channel is a socketpair end dsh inherited from breaker-tui, and it has no name a same-user
// process could open. Node marks inherited descriptors close-on-exec at start-up, but past fd 15
// it stops at the first number that is not open. So breaker-tui passes it as fd 3. This checks it:
// a channel a tool would inherit makes the bridge deny every call.
const O_CLOEXEC = 0o2000000;

function inheritable(fd) {
  try {
    const line = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n').find((l) => l.startsWith('flags:'));
    if (!line) return 'its flags cannot be read';
    return (parseInt(line.slice(6).trim(), 8) & O_CLOEXEC) === 0 ? 'it is not close-on-exec: every tool would hold it' : null;
  } catch (e) {
    return `its flags cannot be read (${e?.code ?? e?.message})`;
  }
}

function openChannel(fd) {
  if (fd === null) return { sock: null, problem: null };
  const leak = inheritable(fd);
  if (leak) return { sock: null, problem: `the inherited channel (fd ${fd}) is unsafe: ${leak}` };
  try {
    return { sock: new net.Socket({ fd, readable: true, writable: true }), problem: null };
  } catch (e) {
    return { sock: null, problem: `cannot open the inherited channel (fd ${fd}: ${e?.code ?? e?.message})` };
  }
}

// Tool hooks a foreign plugin could use to answer before the bridge, or to skip a call's body.
const GUARDED_HOOKS = new Set(['tools/pre-execute', 'tools/execute', 'approval/request']);

export function apply(ctx, config = {}) {
  const { cfg, problems } = settingsOf(config ?? {});
  const channel = openChannel(cfg.fd);
  if (channel.problem) problems.push(channel.problem);
  // set when this bridge cannot be trusted to ask the monitor: every tool call is then denied
  let broken = problems.length ? `breaker-tui's bridge is misconfigured (${problems.join('; ')})` : null;
  if (broken) log(broken);
  const attached = cfg.fd !== null; // launched by breaker-tui: every call must be vetted
  const omit = new Set(cfg.omit);
  const pending = new Map(); // id -> {resolve, timer, fallback}
  const agents = new Map(); // sessionId -> agent
  const streams = new Map(); // sessionId -> {reqId, abort: null | {message, resolve}}
  const steps = new Map(); // sessionId -> {turn, step}
  const thinkingOff = new Map(); // sessionId -> turn forced to thinking off
  const retryArmed = new Map(); // sessionId -> boolean (set by the wrapper's abort command)
  const guardDeny = new Map(); // callId -> text (a denial decided while answering an approval)
  const vetted = new WeakSet(); // exec objects the monitor allowed through the bridge's pre-execute
  const approvedCalls = new Set(); // callIds the monitor approved through the bridge's approval listener
  let booted = false; // set once dsh's loader has settled: later tool-hook registrations are foreign
  let sock = null;
  let alive = false;
  let seq = 0;
  let root = null;
  let buf = '';
  const disposers = [];

  function send(msg) {
    if (!alive || sock === null) return false;
    try {
      let line = safeJson({ ts: Date.now(), ...msg });
      if (line === null) return false;
      if (Buffer.byteLength(line) > cfg.maxLineBytes) {
        line = safeJson({ ts: Date.now(), t: msg.t, id: msg.id, sessionId: msg.sessionId, oversized: Buffer.byteLength(line) });
      }
      sock.write(line + '\n');
      return true;
    } catch (e) {
      return false;
    }
  }

  function settleAll() {
    for (const [id, p] of pending) {
      clearTimeout(p.timer);
      p.resolve(p.fallback);
      pending.delete(id);
    }
  }

  function ask(t, body, timeoutMs, fallback) {
    return new Promise((resolve) => {
      if (!alive) return resolve(fallback);
      const id = `${process.pid}-${++seq}`;
      const timer = timeoutMs > 0 ? setTimeout(() => {
        pending.delete(id);
        // tell the monitor the question is closed, so it records what the agent really got
        send({ t: 'closed', id, what: t, reason: 'timeout' });
        resolve(fallback);
      }, timeoutMs) : null;
      pending.set(id, { resolve, timer, fallback });
      if (!send({ t, id, ...body })) {
        clearTimeout(timer);
        pending.delete(id);
        resolve(fallback);
      }
    });
  }

  function onCommand(msg) {
    if (msg.id !== undefined && pending.has(msg.id) && msg.t !== 'abort') {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      clearTimeout(p.timer);
      p.resolve(msg);
      return;
    }
    switch (msg.t) {
      case 'abort': {
        const st = streams.get(msg.sessionId);
        retryArmed.set(msg.sessionId, !!msg.retry);
        const turn = steps.get(msg.sessionId)?.turn;
        if (msg.thinkingOff && turn !== undefined) thinkingOff.set(msg.sessionId, turn);
        if (st && st.abort === null) {
          st.abort = { message: String(msg.message ?? 'breaker-tui aborted a runaway stream') };
          st.wake?.();
        }
        break;
      }
      case 'cancel': {
        const targets = msg.sessionId ? [agents.get(msg.sessionId)] : root ? [root] : [...agents.values()];
        for (const a of targets) {
          try {
            a?.cancel({ kind: 'user' });
          } catch (e) {
            log('cancel failed', e?.message);
          }
        }
        break;
      }
      case 'prompt': {
        promptRoot(String(msg.text ?? '')).catch((e) => send({ t: 'runner_error', message: String(e?.message ?? e) }));
        break;
      }
      case 'ping': {
        // liveness: the monitor stops the session when a ping goes unanswered
        send({ t: 'pong', id: String(msg.id ?? '') });
        break;
      }
      case 'quit': {
        const code = Number(msg.code ?? 0);
        // a graceful exit first; if dsh is still here shortly after, leave anyway
        setTimeout(() => process.exit(code), 1500).unref?.();
        try {
          const exit = ctx.get('appExit');
          if (exit) exit(code);
          else process.exit(code);
        } catch {
          process.exit(code);
        }
        break;
      }
      default:
        break;
    }
  }

  function connect() {
    if (!attached) {
      log('not launched by breaker-tui; running detached (every tool call passes through untouched)');
      return;
    }
    sock = channel.sock;
    if (sock === null) return;
    alive = true;
    sock.setEncoding('utf8');
    send({ t: 'hello', pid: process.pid, version: VERSION, runner: !!cfg.runner, cwd: process.cwd(),
      dsh: process.argv[1] ?? null });
    if (broken) send({ t: 'runner_error', message: `${broken}; every tool call is denied` });
    if (!cfg.runner) sock.unref();
    sock.on('data', (chunk) => {
      buf += chunk;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (!line.trim()) continue;
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          continue;
        }
        try {
          onCommand(msg);
        } catch (e) {
          log('command failed', e?.message);
        }
      }
    });
    const down = () => {
      if (!alive) return;
      alive = false;
      settleAll();
      if (cfg.runner) {
        // the wrapper is gone: nobody can drive this agent any more, so do not linger
        try {
          (ctx.get('appExit') ?? process.exit)(1);
        } catch {
          process.exit(1);
        }
      }
    };
    sock.on('error', down);
    sock.on('close', down);
  }

  async function promptRoot(text) {
    if (!root) throw new Error('no runner agent (is `runner: true` set?)');
    const llm = await dshModule('@deepseek-ai/dsh-llm');
    const message = llm?.createUserMessage
      ? llm.createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } })
      : { role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' }, id: randomUUID() };
    root.followup(message);
  }

  async function startRunner() {
    try {
      await ctx.get('loader')?.await?.();
      const registry = ctx.get('agents');
      const model = ctx.get('agentDefaultModel');
      if (!registry) throw new Error('the agents service is not available in this profile');
      const selection = model?.currentSelection?.() ?? {};
      const agentOptions = { provider: selection.provider, model: selection.model };
      const args = ctx.get('cmdlineArgs')?.get?.() ?? [];
      const list = Array.isArray(args) ? args : Array.isArray(args?.args) ? args.args : [];
      const at = list.indexOf('--resume');
      const resumeId = at >= 0 ? list[at + 1] : undefined;
      const agentMod = await dshModule('@deepseek-ai/dsh-agent');
      const setup = agentMod?.installModelSelection
        ? (agentCtx) => {
          agentMod.installModelSelection(agentCtx, { current: selection, assembled: undefined });
        }
        : undefined;
      let made;
      if (resumeId) made = await registry.resume({ resumeSessionId: resumeId, agentOptions, setup });
      else made = await registry.create({ sessionId: `session-${randomUUID()}`, meta: { cwd: process.cwd() }, agentOptions, setup });
      root = made?.agent ?? made;
      agents.set(sidOf(root), root);
      await root.whenIdle?.();
      send({ t: 'ready', sessionId: sidOf(root), provider: selection.provider, model: selection.model, resumed: !!resumeId });
    } catch (e) {
      // the monitor says it (as the person's stop, when it was one); dsh's own output only when no monitor hears
      if (!send({ t: 'runner_error', message: String(e?.message ?? e) })) log('runner failed:', e?.message ?? e);
    }
  }

  function on(event, handler) {
    try {
      const d = ctx.on(event, handler, { prepend: true });
      if (typeof d === 'function') disposers.push(d);
    } catch (e) {
      log(`cannot listen to ${event}:`, e?.message);
    }
  }

  function hookNames(event) {
    try {
      const hooks = ctx.root?.events?._hooks?.[event] ?? ctx.events?._hooks?.[event] ?? [];
      return hooks.map((h) => String(h?.ctx?.fiber?.name ?? '?'));
    } catch {
      return [];
    }
  }

  // dsh watches `$DSH_HOME/cordis.patch.yml` and the profile's patch file and re-applies them live
  // (even with the `hmr` row disabled it makes a watch-only HMR for them). A layer written by a
  // tool during the session could then insert a plugin; refusing the watch keeps the session on
  // the layers it booted with. registerConfig must return a disposer: a throw would fail boot.
  function lockHmr(service) {
    try {
      if (!service || service.__breakerLocked) return;
      service.__breakerLocked = true;
      service.registerConfig = async (filename) => {
        send({ t: 'tripwire', kind: 'patch-watch', detail: String(filename) });
        return async () => {};
      };
    } catch (e) {
      log('cannot lock the patch layers', e?.message);
    }
  }

  function lockPatchLayers() {
    if (!attached) return;
    try {
      lockHmr(ctx.get('hmr'));
    } catch {}
    try {
      const d = ctx.on('internal/service', (name, value) => {
        if (name === 'hmr') lockHmr(value ?? ctx.get('hmr'));
      }, { global: true });
      if (typeof d === 'function') disposers.push(d);
    } catch (e) {
      log('cannot watch services', e?.message);
    }
  }

  // Once dsh has booted, a plugin that registers on a tool hook was loaded during the session
  // (a hot patch): its registration is vetoed (a truthy return) and reported.
  function watchListeners() {
    if (!attached) return;
    const mine = ctx.fiber;
    try {
      const d = ctx.on('internal/listener', function (event, _listener, options) {
        try {
          if (!GUARDED_HOOKS.has(event)) return undefined;
          const fiber = this?.fiber;
          if (fiber === mine) return undefined;
          if (!booted) return undefined; // dsh's own plugins, from the pinned install, at boot
          send({ t: 'tripwire', kind: 'listener', detail: `${event} by ${String(fiber?.name ?? '?')}` +
            `${options?.prepend ? ' (prepend)' : ''}: vetoed` });
          return true;
        } catch {
          return undefined;
        }
      });
      if (typeof d === 'function') disposers.push(d);
    } catch (e) {
      log('cannot watch listener registrations', e?.message);
    }
  }

  // ---- the live feed ---------------------------------------------------------------
  on('session/event', (session, event) => {
    try {
      if (!event || omit.has(event.type)) return;
      const sessionId = session?.header?.id ?? session?.id ?? null;
      send({ t: 'event', sessionId, event });
    } catch {}
  });
  on('agent/created', (payload) => {
    try {
      const a = payload?.agent ?? payload;
      const sid = sidOf(a);
      if (sid) agents.set(sid, a);
      send({ t: 'agent_created', sessionId: sid, depth: a?.session?.header?.delegationDepth ?? 0 });
    } catch {}
  });
  on('agent/disposed', (payload) => {
    try {
      agents.delete(sidOf(payload?.agent ?? payload));
    } catch {}
  });
  on('agent/status', (payload) => {
    try {
      send({ t: 'status', sessionId: sidOf(payload?.agent), status: payload?.status });
    } catch {}
  });
  on('agent/error', (payload) => {
    try {
      const err = payload?.error;
      send({ t: 'agent_error', sessionId: sidOf(payload?.agent), turn: payload?.turn, step: payload?.step,
        message: String(err?.message ?? err) });
    } catch {}
  });

  // ---- model requests: thinking off after a trip, stream abort ---------------------
  on('agent/request', async (payload, next) => {
    const seed = await next();
    try {
      const sid = sidOf(payload?.agent);
      if (sid) steps.set(sid, { turn: payload.turn, step: payload.step });
      let out = seed;
      if (sid && thinkingOff.has(sid)) {
        if (thinkingOff.get(sid) === payload.turn) {
          if (out?.reasoningEffort !== 'off') out = { ...out, reasoningEffort: 'off' };
        } else thinkingOff.delete(sid);
      }
      if (cfg.maxTokens > 0 && (out?.maxTokens === undefined || out.maxTokens > cfg.maxTokens)) {
        out = { ...out, maxTokens: cfg.maxTokens };
      }
      return out;
    } catch {
      return seed;
    }
  });

  on('agent/request-error', async (payload, next) => {
    try {
      const sid = sidOf(payload?.agent);
      const f = payload?.failure ?? {};
      const ours = typeof f.message === 'string' && f.message.includes('thinking-breaker') && f.code === 'ABORTED';
      send({ t: 'request_error', sessionId: sid, message: String(f.message ?? ''), code: String(f.code ?? ''), ours });
      if (ours && sid && retryArmed.get(sid)) {
        retryArmed.set(sid, false);
        return { kind: 'retry' };
      }
    } catch {}
    return next();
  });

  on('llm/stream', (options, next) => {
    const sid = String(options?.sessionId ?? `anonymous#${++seq}`);
    const upstream = next();
    if (!alive) return upstream;
    const st = { reqId: ++seq, abort: null, wake: null };
    // A side request (a session title, a summary: it carries a `purpose`) never takes the agent's
    // abort slot: the monitor's abort is meant for the main stream streaming beside it.
    if (options?.purpose == null) streams.set(sid, st);
    const where = steps.get(sid) ?? {};
    send({ t: 'request_start', sessionId: sid, purpose: options?.purpose ?? null, turn: where.turn ?? -1,
      step: where.step ?? -1, reasoningEffort: options?.reasoningEffort ?? null, model: options?.model ?? null });
    return (async function* relay() {
      const it = upstream[Symbol.asyncIterator]();
      const aborted = new Promise((resolve) => {
        st.wake = resolve;
      });
      try {
        while (st.abort === null) {
          const r = await Promise.race([it.next(), aborted.then(() => null)]);
          if (r === null || st.abort !== null) break;
          if (r.done) return;
          yield r.value;
        }
      } catch (e) {
        if (st.abort === null) throw e;
      } finally {
        if (streams.get(sid) === st) streams.delete(sid);
      }
      try {
        await it.return?.();
      } catch {}
      send({ t: 'stream_aborted', sessionId: sid });
      yield { type: 'finish', reason: { kind: 'aborted', failure: { message: st.abort.message, code: 'ABORTED' } } };
    })();
  });

  // ---- tools: verdicts before dispatch, results after ------------------------------
  const FAIL_CLOSED = (ms) => ({
    kind: 'deny',
    message: `breaker-tui: no verdict from the monitor within ${ms >= 1000 ? `${Math.round(ms / 1000)} s` : `${ms} ms`}, so this call was not run ` +
      '(fail closed). The monitor may have stopped; check the breaker-tui window.',
  });

  function argsPayload(exec) {
    const raw = exec?.arguments ?? exec?.args ?? {};
    const text = safeJson(raw);
    if (text !== null && Buffer.byteLength(text) > cfg.maxLineBytes / 2) {
      const digest = createHash('sha256').update(text).digest('hex');
      return { __breaker_truncated__: true, bytes: Buffer.byteLength(text), sha256: digest, preview: text.slice(0, 4096) };
    }
    return raw;
  }

  on('tools/pre-execute', async (exec, next) => {
    try {
      const sid = sidOf(exec?.agent);
      const deadDeny = FAIL_CLOSED(cfg.verdictTimeoutMs);
      if (broken) return { kind: 'deny', reason: `${broken}, so this call was not run (fail closed).` };
      if (!alive) {
        if (!attached) return next();
        return { kind: 'deny', reason: 'breaker-tui: the monitor is not connected, so this call was not run (fail closed).' };
      }
      const v = await ask('verdict_request', {
        sessionId: sid, callId: exec?.callId, name: exec?.name ?? exec?.toolName ?? '', args: argsPayload(exec),
        parent: exec?.parent !== undefined,
      }, cfg.verdictTimeoutMs, deadDeny);
      if (v.kind === 'ask') return { kind: 'ask', reason: String(v.message ?? 'breaker-tui asks before this call') };
      // only an explicit allow runs the call: a deny, a timeout and any answer this bridge cannot read refuse it
      if (v.t !== 'verdict' || v.kind !== 'allow') {
        const why = v.kind === 'deny' ? String(v.message ?? 'denied by breaker-tui')
          : 'breaker-tui: the monitor sent an answer the bridge cannot read, so this call was not run (fail closed).';
        return { kind: 'deny', reason: why };
      }
      const inner = await next();
      // allowed by the monitor: the call may run unless something inside asks (the approval
      // listener below vets that) or denies
      if (inner?.kind === 'allow' || !cfg.answerApprovals) vetted.add(exec);
      return inner;
    } catch (e) {
      log('pre-execute failed', e?.message);
      return { kind: 'deny', reason: 'breaker-tui: the bridge failed while asking for a verdict, so this call was not run (fail closed).' };
    }
  });

  // The last word: runs after every pre-execute listener and the approval, and can only deny.
  try {
    const d = ctx.tools?.guard?.((exec) => {
      try {
        const text = guardDeny.get(exec?.callId);
        if (text !== undefined) {
          guardDeny.delete(exec.callId);
          return text;
        }
        if (!attached || broken) return undefined; // detached: nothing to vet; broken: pre-execute denies
        if (vetted.has(exec)) return undefined;
        if (exec?.callId != null && approvedCalls.delete(exec.callId)) return undefined;
        const name = String(exec?.name ?? exec?.toolName ?? '');
        const chain = hookNames('tools/pre-execute');
        send({ t: 'tripwire', kind: 'unvetted', callId: exec?.callId ?? null, name, sessionId: sidOf(exec?.agent),
          detail: `pre-execute chain: ${chain.join(', ') || '?'}` });
        return `breaker-tui: ${name || 'this call'} was answered by another plugin before breaker-tui could judge it, ` +
          'so it was not run (fail closed).';
      } catch {
        return 'breaker-tui: the guard failed, so this call was not run (fail closed).';
      }
    });
    if (typeof d === 'function') disposers.push(d);
  } catch (e) {
    log('cannot register the guard', e?.message);
    // without its last word the bridge cannot vouch for any call: deny them all
    if (attached) broken = `breaker-tui's bridge could not register its guard (${e?.message ?? e})`;
  }
  if (attached && typeof ctx.tools?.guard !== 'function') broken = "breaker-tui's bridge found no tools.guard() in this dsh";

  if (cfg.answerApprovals) {
    on('approval/request', async (req, next) => {
      try {
        if (!alive) return next();
        const r = await ask('approval_request', {
          sessionId: sidOf(req?.agent), toolName: req?.toolName ?? '', callId: req?.callId ?? null,
          reason: req?.reason ?? null,
        }, cfg.approvalTimeoutMs, { outcome: 'rejected', timeout: true });
        if (typeof r.deny === 'string' && req?.callId) guardDeny.set(req.callId, r.deny);
        else if (r.outcome === 'allowed-once' && req?.callId != null) approvedCalls.add(req.callId);
        if (['allowed-once', 'rejected', 'cancelled', 'unavailable'].includes(r.outcome)) return r.outcome;
        return 'rejected';
      } catch {
        return 'rejected';
      }
    });
  }

  on('tools/post-execute', async (exec, result, next) => {
    const decision = await next();
    try {
      if (!alive || decision?.kind !== 'accept') return decision;
      const content = decision.content ?? result?.content;
      const r = await ask('result_request', {
        sessionId: sidOf(exec?.agent), callId: exec?.callId, name: exec?.name ?? '', args: argsPayload(exec),
        isError: result?.isError === true, text: textOf(content).slice(0, 65536),
        code: result?.error?.code ?? result?.error?.info?.code ?? null, parent: exec?.parent !== undefined,
      }, cfg.resultTimeoutMs, { mode: 'keep' });
      const extra = decision.additionalContexts ? { additionalContexts: decision.additionalContexts } : {};
      if (r.mode === 'replace' && typeof r.text === 'string') {
        return { kind: 'accept', content: [{ type: 'text', text: r.text }], ...extra };
      }
      if (r.mode === 'prepend' && typeof r.text === 'string') {
        const rest = Array.isArray(content) ? content : [];
        return { kind: 'accept', content: [{ type: 'text', text: r.text }, ...rest], ...extra };
      }
    } catch (e) {
      log('post-execute failed', e?.message);
    }
    return decision;
  });

  connect();
  if (cfg.runner) startRunner();
  lockPatchLayers();
  watchListeners();
  (async () => {
    try {
      await ctx.get('loader')?.await?.();
    } catch {}
    booted = true;
  })();

  return () => {
    for (const d of disposers.splice(0)) {
      try {
        d();
      } catch {}
    }
    send({ t: 'bye' });
    alive = false;
    settleAll();
    try {
      sock?.end();
    } catch {}
  };
}
