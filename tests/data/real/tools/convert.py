"""Convert raw trajectories to breaker-tui neutral traces (list of event dicts, no meta)."""
import json, re, sys, hashlib
try:  # the checkout's packages, only when no installed breaker-tui is importable (a test may load this file
    import wrapper  # noqa: F401  # inside the compiled wheel's environment: it must not shadow the wheel)
except ImportError:
    sys.path.insert(0, str(__import__('pathlib').Path(__file__).resolve().parents[4]))
from pathlib import Path

OUT_MAX = 3000      # output chars kept
THINK_MAX = 6000
ARG_MAX = 3000
USER_MAX = 2500

def h(s): return hashlib.sha1(s.encode('utf-8', 'replace')).hexdigest()[:10]
def trim(s, n):
    if s is None: return s
    if not isinstance(s, str): s = json.dumps(s, ensure_ascii=False)
    if len(s) <= n: return s
    head, tail = s[: n * 2 // 3], s[-(n // 3):]
    return f"{head}\n[... {len(s) - len(head) - len(tail)} chars trimmed; full text sha1 {h(s)} ...]\n{tail}"
def trim_args(a):
    if isinstance(a, dict): return {k: trim_args(v) for k, v in a.items()}
    if isinstance(a, list): return [trim_args(v) for v in a]
    if isinstance(a, str): return trim(a, ARG_MAX)
    return a

def finish(events):
    out = []
    for e in events:
        e = dict(e)
        if e['t'] in ('think', 'answer'):
            if not (e.get('text') or '').strip(): continue
            e['text'] = trim(e['text'], THINK_MAX)
        elif e['t'] == 'user':
            e['text'] = trim(e.get('text') or '', USER_MAX)
        elif e['t'] == 'call':
            if 'args' in e: e['args'] = trim_args(e['args'])
            if e.get('output') is not None: e['output'] = trim(e['output'], OUT_MAX)
            for k in ('exit', 'error', 'output'):
                if k in e and e[k] is None: del e[k]
        out.append(e)
    return out

# ---------- importers of the project ----------
def via_importer(name, path):
    from wrapper.records.importers import imported_objects
    objs = [o for _, o in imported_objects(name, Path(path))]
    return [o for o in objs if o.get('t') != 'meta']

# ---------- mini-swe-agent ----------
RC = re.compile(r'<returncode>(-?\d+)</returncode>', re.S)
OUTP = re.compile(r'<output>\n?(.*?)\n?</output>', re.S)
BASH = re.compile(r'```(?:bash|sh)\s*\n(.*?)\n```', re.S)
def obs(text):
    m = RC.search(text or ''); rc = int(m.group(1)) if m else None
    o = OUTP.search(text or '')
    body = o.group(1) if o else (text or '')
    if o is None:
        ht = re.search(r'<output_head>\n?(.*?)</output_head>.*?<output_tail>\n?(.*?)</output_tail>', text or '', re.S)
        if ht: body = ht.group(1) + '\n[... elided by mini-swe-agent ...]\n' + ht.group(2)
    return rc, body
def mini_swe(path):
    d = json.load(open(path))
    msgs = d if isinstance(d, list) else (d.get('messages') or d.get('trajectory') or [])
    ev, first_user = [], True
    pending = []  # calls awaiting observation
    for m in msgs:
        role = m.get('role'); content = m.get('content')
        if isinstance(content, list):
            content = '\n'.join(c.get('text', '') for c in content if isinstance(c, dict))
        if role == 'system': continue
        if role == 'user' and first_user:
            first_user = False; ev.append({'t': 'user', 'text': content or ''}); continue
        if role == 'assistant':
            tcs = m.get('tool_calls') or []
            ev.append({'t': 'request'})
            if tcs:
                if content: ev.append({'t': 'think', 'text': content})
                for tc in tcs:
                    fn = tc.get('function', {})
                    try: a = json.loads(fn.get('arguments') or '{}')
                    except Exception: a = {'raw': fn.get('arguments')}
                    c = {'t': 'call', 'tool': fn.get('name') or 'bash', 'args': a}
                    ev.append(c); pending.append(c)
            else:
                blocks = BASH.findall(content or '')
                if len(blocks) == 1:
                    thought = BASH.split(content, 1)[0]
                    ev.append({'t': 'think', 'text': thought.strip()})
                    c = {'t': 'call', 'tool': 'bash', 'args': {'command': blocks[0]}}
                    ev.append(c); pending.append(c)
                else:
                    ev.append({'t': 'answer', 'text': content or ''})
            continue
        if role in ('tool', 'user'):
            if pending:
                c = pending.pop(0)
                rc, body = obs(content)
                c['output'] = body
                if rc is not None: c['exit'] = rc
                if 'timed out' in (content or '')[:300] and rc is None: c['error'] = True
            # else: format-error feedback for an answer step: not a tool result, not a person
    return ev

# ---------- Codex rollout ----------
def codex(path):
    ev, calls, seen_user = [], {}, False
    for line in open(path):
        try: d = json.loads(line)
        except Exception: continue
        if d.get('type') != 'response_item': continue
        p = d['payload']; ty = p.get('type')
        if ty == 'message':
            txt = '\n'.join(c.get('text', '') for c in p.get('content', []) if isinstance(c, dict))
            if p.get('role') == 'user':
                if txt.lstrip().startswith(('<environment_context', '<user_instructions', '# AGENTS.md')): continue
                ev.append({'t': 'user', 'text': txt})
            elif p.get('role') == 'assistant':
                ev.append({'t': 'answer', 'text': txt})
        elif ty == 'reasoning':
            txt = '\n'.join(s.get('text', '') for s in p.get('summary') or [])
            ev.append({'t': 'think', 'text': txt})
        elif ty in ('function_call', 'custom_tool_call', 'local_shell_call'):
            if ty == 'function_call':
                try: a = json.loads(p.get('arguments') or '{}')
                except Exception: a = {'raw': p.get('arguments')}
            elif ty == 'custom_tool_call': a = {'input': p.get('input')}
            else: a = p.get('action', {})
            c = {'t': 'call', 'tool': p.get('name') or 'local_shell', 'args': a}
            ev.append(c); calls[p.get('call_id')] = c
        elif ty in ('function_call_output', 'custom_tool_call_output'):
            c = calls.get(p.get('call_id'))
            if c is None: continue
            out = p.get('output')
            if isinstance(out, dict): out = out.get('content') or json.dumps(out)
            ex = None
            try:
                j = json.loads(out); ex = (j.get('metadata') or {}).get('exit_code'); out = j.get('output', out)
            except Exception:
                m = re.search(r'(?:Process exited with code|Exit code:)\s*(-?\d+)', out or '')
                if m: ex = int(m.group(1))
                m2 = re.search(r'\nOutput:\n(.*)$', out or '', re.S)
                if m2: out = m2.group(1)
            c['output'] = out
            if ex is not None: c['exit'] = ex
    return ev

# ---------- opencode export ----------
def opencode(path):
    d = json.load(open(path)); ev = []
    for m in d.get('messages', []):
        role = m['info']['role']
        for p in m.get('parts', []):
            ty = p.get('type')
            if role == 'user' and ty == 'text' and not p.get('synthetic'):
                ev.append({'t': 'user', 'text': p.get('text', '')})
            elif role == 'assistant':
                if ty == 'step-start': ev.append({'t': 'request'})
                elif ty == 'reasoning': ev.append({'t': 'think', 'text': p.get('text', '')})
                elif ty == 'text': ev.append({'t': 'answer', 'text': p.get('text', '')})
                elif ty == 'tool':
                    st = p.get('state', {})
                    c = {'t': 'call', 'tool': p.get('tool'), 'args': st.get('input', {}),
                         'output': st.get('output') if st.get('status') != 'error' else st.get('error')}
                    md = st.get('metadata') or {}
                    if isinstance(md.get('exit'), int): c['exit'] = md['exit']
                    if st.get('status') == 'error': c['error'] = True
                    ev.append(c)
    return ev

# ---------- pi / OpenClaw session JSONL ----------
def pi(path):
    ev, calls = [], {}
    for line in open(path):
        try: d = json.loads(line)
        except Exception: continue
        if d.get('type') != 'message': continue
        m = d['message']; role = m.get('role'); content = m.get('content')
        if isinstance(content, str): content = [{'type': 'text', 'text': content}]
        if role == 'user':
            ev.append({'t': 'user', 'text': '\n'.join(c.get('text', '') for c in content if c.get('type') == 'text')})
        elif role == 'assistant':
            ev.append({'t': 'request'})
            for c in content:
                if c.get('type') == 'thinking': ev.append({'t': 'think', 'text': c.get('thinking', '')})
                elif c.get('type') == 'text': ev.append({'t': 'answer', 'text': c.get('text', '')})
                elif c.get('type') == 'toolCall':
                    x = {'t': 'call', 'tool': c.get('name'), 'args': c.get('arguments') or {}}
                    ev.append(x); calls[c.get('id')] = x
        elif role == 'toolResult':
            x = calls.get(m.get('toolCallId'))
            if x is None: continue
            x['output'] = '\n'.join(c.get('text', '') for c in content if c.get('type') == 'text')
            if m.get('isError'): x['error'] = True
            mm = re.search(r'(?:exit code|exited with code)[: ]+(-?\d+)', x['output'], re.I)
            if mm: x['exit'] = int(mm.group(1))
    return ev

# ---------- Anthropic-style message list (Cline api history) ----------
def anthropic_msgs(path):
    msgs = json.load(open(path)); ev, calls = [], {}
    for m in msgs:
        content = m.get('content')
        if isinstance(content, str): content = [{'type': 'text', 'text': content}]
        if m.get('role') == 'user':
            texts = []
            for c in content:
                if c.get('type') == 'tool_result':
                    x = calls.get(c.get('tool_use_id'))
                    if x is not None:
                        cc = c.get('content'); x['output'] = cc if isinstance(cc, str) else '\n'.join(i.get('text', '') for i in cc or [] if isinstance(i, dict))
                        if c.get('is_error'): x['error'] = True
                elif c.get('type') == 'text': texts.append(c.get('text', ''))
            if texts and not calls: ev.append({'t': 'user', 'text': '\n'.join(texts)})
            elif texts:
                # Cline answers each tool with [tool result text] blocks in a user message
                t = '\n'.join(texts)
                if t.lstrip().startswith('[') and pending_tool[0] is not None:
                    pending_tool[0].setdefault('output', t)
        else:
            ev.append({'t': 'request'})
            for c in content:
                if c.get('type') == 'text': ev.append({'t': 'answer', 'text': c.get('text', '')})
                elif c.get('type') == 'thinking': ev.append({'t': 'think', 'text': c.get('thinking', '')})
                elif c.get('type') == 'tool_use':
                    x = {'t': 'call', 'tool': c.get('name'), 'args': c.get('input') or {}}
                    ev.append(x); calls[c.get('id')] = x; pending_tool[0] = x
    return ev
pending_tool = [None]

CONVERTERS = {
    'swe-agent': lambda p: via_importer('swe-agent', p),
    'openhands': lambda p: via_importer('openhands', p),
    'claude-code': lambda p: via_importer('claude-code', p),
    'mini-swe-agent': mini_swe, 'codex': codex, 'opencode': opencode, 'pi': pi, 'cline': anthropic_msgs,
}
def convert(fmt, path):
    return finish(CONVERTERS[fmt](path))

# ---------- Gemini CLI chat recording ----------
def gemini(path):
    d = json.load(open(path)); ev = []
    for m in d.get('messages', []):
        if m.get('type') == 'user':
            c = m.get('content'); ev.append({'t': 'user', 'text': c if isinstance(c, str) else json.dumps(c)})
        elif m.get('type') == 'gemini':
            ev.append({'t': 'request'})
            for th in m.get('thoughts') or []:
                ev.append({'t': 'think', 'text': f"{th.get('subject','')}: {th.get('description','')}"})
            if m.get('content'): ev.append({'t': 'answer', 'text': m['content']})
            for tc in m.get('toolCalls') or []:
                out = ''
                for r in tc.get('result') or []:
                    resp = (r.get('functionResponse') or {}).get('response') or {}
                    out += resp.get('output') or resp.get('error') or ''
                x = {'t': 'call', 'tool': tc.get('name'), 'args': tc.get('args') or {}, 'output': out}
                mm = re.search(r'Exit Code: (-?\d+)', out)
                if mm: x['exit'] = int(mm.group(1)); x['output'] = re.sub(r'^Command: .*?\nDirectory: .*?\nOutput: ', '', out, flags=re.S)
                if tc.get('status') == 'error': x['error'] = True
                ev.append(x)
    return ev
CONVERTERS['gemini-cli'] = gemini

# ---------- tau-bench historical trajectories (OpenAI chat messages with tool calls) ----------
def tau_bench(traj):
    """One record's `traj` of sierra-research/tau-bench historical_trajectories/*.json.

    The simulated customer's messages are `user` events; each assistant message is a request, its
    `content` an answer, its `tool_calls` calls answered by the `tool` message with the same id. Ids
    are reused later in a trajectory, so a result pairs with the waiting call once. The `think` tool
    only records a thought (tau-bench: "It will not obtain new information or change the database"),
    so it is a `think` event, not a call.
    """
    ev, calls = [], {}
    for m in traj:
        role = m.get('role')
        if role == 'system': continue
        if role == 'user': ev.append({'t': 'user', 'text': m.get('content') or ''}); continue
        if role == 'assistant':
            ev.append({'t': 'request'})
            if m.get('content'): ev.append({'t': 'answer', 'text': m['content']})
            for tc in m.get('tool_calls') or []:
                fn = tc.get('function') or {}
                try: a = json.loads(fn.get('arguments') or '{}')
                except Exception: a = {'raw': fn.get('arguments')}
                if fn.get('name') == 'think':
                    ev.append({'t': 'think', 'text': a.get('thought', '') if isinstance(a, dict) else str(a)}); continue
                c = {'t': 'call', 'tool': fn.get('name'), 'args': a}
                ev.append(c); calls[tc.get('id')] = c
        elif role == 'tool':
            c = calls.pop(m.get('tool_call_id'), None)
            if c is not None: c['output'] = m.get('content') or ''
    return ev
