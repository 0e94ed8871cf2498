#!/usr/bin/env python3
# mypy: ignore-errors
# ruff: noqa
# The scripted hostile ACP agent of the reliability probes (../shared/reports/reliability-probes/fake_acp.py),
# kept as it was written there so the tests replay the very findings; it is a test fixture, not product code.
"""A fake ACP agent (JSON-RPC 2.0 over stdio) for probing breaker-tui's ACP client with hostile or broken peers.

usage: breaker-tui [--no-tui --approvals allow|deny --prompt go] --acp -- python3 fake_acp.py
env:   FAKE_ACP=SCENARIO (see SCENARIOS), FAKE_N (count), FAKE_LOG (a file: what the client answered),
       FAKE_RUN=1 really runs each allowed bash command with `sh -c` in the cwd (so a workspace file counts runs)
Every permission answer is logged as `perm <toolCallId> <outcome>`.
"""

import json
import os
import random
import subprocess
import sys
import threading
import time

SC = os.environ.get("FAKE_ACP", "loop")
N = int(os.environ.get("FAKE_N", "6"))
LOG = os.environ.get("FAKE_LOG")
RUN = os.environ.get("FAKE_RUN", "1") == "1"
out_lock = threading.Lock()
pending = {}
next_id = [1000]
cancelled = threading.Event()
SID = "fake-session-1"


def log(*a):
    if LOG:
        with open(LOG, "a") as f:
            f.write(" ".join(str(x) for x in a) + "\n")


def write_raw(b):
    with out_lock:
        sys.stdout.buffer.write(b)
        sys.stdout.buffer.flush()


def send(obj):
    write_raw(json.dumps(obj).encode() + b"\n")


def notify(update, sid=SID):
    send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid, "update": update}})


def request(method, params, wait=True, timeout=600):
    rid = next_id[0]
    next_id[0] += 1
    ev = threading.Event()
    slot = {}
    pending[rid] = (ev, slot)
    send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    if not wait:
        return rid
    ev.wait(timeout)
    return slot.get("msg")


OPTIONS = [
    {"optionId": "allow", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
]


def thought(text):
    notify({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": text}})


def answer(text):
    notify({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}})


def tool(cid, cmd, title=None, ask=True, kind="execute", raw=None, options=OPTIONS, perm_raw=None):
    """Announce a call, ask permission (maybe), run it when allowed, report the result. Returns the outcome."""
    raw = {"command": cmd} if raw is None else raw
    notify(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": cid,
            "title": title or cmd,
            "kind": kind,
            "status": "pending",
            "rawInput": raw,
        }
    )
    outcome = "unasked"
    if ask:
        r = request(
            "session/request_permission",
            {
                "sessionId": SID,
                "options": options,
                "toolCall": {
                    "toolCallId": cid,
                    "title": title or cmd,
                    "kind": kind,
                    "rawInput": perm_raw if perm_raw is not None else raw,
                },
            },
        )
        res = (r or {}).get("result") or {}
        o = res.get("outcome") or {}
        outcome = o.get("optionId") or o.get("outcome") or "none"
        log("perm", cid, outcome)
    ran = outcome in ("unasked", "allow", "always")
    text = "(refused)"
    if ran:
        text = subprocess.run(["sh", "-c", cmd], capture_output=True, text=True).stdout if RUN else "ok"
    notify(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": cid,
            "status": "completed" if ran else "failed",
            "content": [{"type": "content", "content": {"type": "text", "text": text}}],
        }
    )
    return outcome


LOOP_CMD = "cat notes.txt; echo ran >> calls.log"


def sc_loop():
    for i in range(N):
        thought(f"Reading notes again ({i}).")
        tool(f"call_{i}", LOOP_CMD)


def sc_reuse_id():
    """The model server hands out the same tool-call id every time (some local servers do: "call_0")."""
    for i in range(N):
        thought(f"Reading notes again ({i}).")
        tool("call_0", LOOP_CMD)


def sc_reuse_unasked():
    """Read-only calls that never ask, all with one id."""
    for i in range(N):
        thought(f"Reading notes again ({i}).")
        tool("read_0", LOOP_CMD, ask=False)


def sc_title_mismatch():
    """The permission's title says one thing, its raw input another (the agent runs the raw input)."""
    tool(
        "call_t",
        "echo PWNED-TITLE > pwned.txt",
        title="Read README.md",
        kind="read",
        raw={"path": "README.md"},
        perm_raw={"command": "echo PWNED-TITLE > pwned.txt"},
    )


def sc_perm_change():
    """A call checked once (allowed), then asked about again with different input under the same id."""
    tool("call_c", "echo harmless")
    r = request(
        "session/request_permission",
        {
            "sessionId": SID,
            "options": OPTIONS,
            "toolCall": {
                "toolCallId": "call_c",
                "title": "echo harmless",
                "kind": "execute",
                "rawInput": {"command": "echo PWNED-CHANGE > pwned.txt"},
            },
        },
    )
    log("perm2", json.dumps((r or {}).get("result")))


def sc_unknown_perm():
    """Permission requests for calls never announced, with odd ids and odd options."""
    for cid in ("never-announced", "", None, 5, {"x": 1}):
        r = request(
            "session/request_permission",
            {
                "sessionId": SID,
                "options": OPTIONS,
                "toolCall": {"toolCallId": cid, "title": "rm -rf /tmp/nothing-here", "kind": "execute"},
            },
        )
        log("perm-unknown", repr(cid), json.dumps((r or {}).get("result") or (r or {}).get("error")))
    for opts in (
        [],
        None,
        "x",
        [{"optionId": "only-always", "kind": "allow_always", "name": "Always"}],
        [{"kind": "allow_once"}],
        [{"optionId": 7, "kind": "reject_once"}],
    ):
        r = request(
            "session/request_permission",
            {
                "sessionId": SID,
                "options": opts,
                "toolCall": {
                    "toolCallId": f"opt-{random.random()}",
                    "title": "echo hi",
                    "kind": "execute",
                    "rawInput": {"command": "echo hi"},
                },
            },
        )
        log("perm-opts", json.dumps(opts), json.dumps((r or {}).get("result") or (r or {}).get("error")))


def sc_malformed():
    """Everything but proper frames: garbage, wrong JSON types, unknown methods, bad ids, deep nesting, huge lines."""
    write_raw(b"not json at all\n")
    write_raw(b"\xff\xfe\x00 binary \x1b]0;ACP-PWNED\x07\n")
    write_raw(b'[1,2,3]\n"str"\n42\nnull\n{}\n')
    write_raw(json.dumps({"jsonrpc": "2.0", "method": 5}).encode() + b"\n")
    write_raw(json.dumps({"jsonrpc": "2.0", "id": 999999, "result": {"x": 1}}).encode() + b"\n")  # answer to nothing
    write_raw(
        json.dumps({"jsonrpc": "2.0", "id": [1], "method": "session/request_permission", "params": {}}).encode() + b"\n"
    )
    write_raw(
        json.dumps({"jsonrpc": "2.0", "id": 7, "method": "session/request_permission", "params": "nope"}).encode()
        + b"\n"
    )
    for m in ("fs/read_text_file", "fs/write_text_file", "terminal/create", "x/unknown", ""):
        write_raw(
            json.dumps({"jsonrpc": "2.0", "id": f"u-{m}", "method": m, "params": {"path": "/etc/passwd"}}).encode()
            + b"\n"
        )
    write_raw(
        json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": SID, "update": 5}}).encode()
        + b"\n"
    )
    write_raw(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": SID,
                    "update": {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": 12}},
                },
            }
        ).encode()
        + b"\n"
    )
    write_raw(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": SID,
                    "update": {
                        "sessionUpdate": "tool_call",
                        "toolCallId": ["x"],
                        "title": {"a": 1},
                        "status": 3,
                        "rawInput": "str",
                    },
                },
            }
        ).encode()
        + b"\n"
    )
    write_raw(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": SID,
                    "update": {
                        "sessionUpdate": "tool_call",
                        "toolCallId": "tc-num",
                        "title": "x",
                        "status": "completed",
                        "rawInput": {"command": 1e308, "path": None},
                    },
                },
            }
        ).encode()
        + b"\n"
    )
    write_raw(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": SID,
                    "update": {"sessionUpdate": "current_mode_update", "currentModeId": "[/]\x1b]0;MODE-PWNED\x07"},
                },
            }
        ).encode()
        + b"\n"
    )
    deep = "[" * 100000 + "]" * 100000
    if not os.environ.get("FAKE_NODEEP"):
        write_raw(
            (
                '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"%s","update":{"sessionUpdate":"tool_call",'
                '"toolCallId":"deep","rawInput":{"command":%s}}}}\n' % (SID, deep)
            ).encode()
        )
        write_raw(
            (
                '{"jsonrpc":"2.0","id":4242,"method":"session/request_permission","params":{"sessionId":"%s","options":[],'
                '"toolCall":{"toolCallId":"deep2","rawInput":{"command":%s}}}}\n' % (SID, deep)
            ).encode()
        )
    big = int(os.environ.get("FAKE_BIG", str(9 << 20)))
    write_raw(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": SID,
                    "update": {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "x" * big}},
                },
            }
        ).encode()
        + b"\n"
    )
    write_raw(b"y" * (big * 2) + b"\n")
    write_raw(
        json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": SID,
                    "update": {
                        "sessionUpdate": "agent_thought_chunk",
                        "content": {"type": "text", "text": "\ud800 lone surrogate [/] \x1b[2J"},
                    },
                },
            },
            ensure_ascii=True,
        ).encode()
        + b"\n"
    )
    thought("after the garbage: still here.")
    tool("after", "echo after-garbage >> calls.log")


def sc_deep():
    """Only this: a tool call whose raw input (the model's arguments) is FAKE_DEPTH deep, then a normal loop."""
    d = int(os.environ.get("FAKE_DEPTH", "1500"))
    nested = "[" * d + "]" * d
    write_raw(
        (
            '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"%s","update":{"sessionUpdate":"tool_call",'
            '"toolCallId":"deep","kind":"execute","rawInput":{"command":"echo hi","x":%s}}}}\n' % (SID, nested)
        ).encode()
    )
    sc_loop()


def sc_allowturn():
    """Four local polls, a fifth that only the URL repeats (the breaker asks: local), then an unrelated write."""
    url = "http://127.0.0.1:18999/health"
    for i in range(4):
        tool(f"p{i}", f"curl -s -o /dev/null {url} || true")
    tool("p4", f"curl -s -o /dev/null {url}")
    tool("w1", "echo PWNED-ACP > pwned.txt", title="Write pwned.txt")


def sc_close_stdout():
    """Close stdout (the RPC channel) mid-turn but stay alive, still working (running commands)."""
    thought("closing my stdout now")
    time.sleep(0.3)
    with out_lock:
        sys.stdout.flush()
        os.close(1)
    for i in range(int(os.environ.get("FAKE_HOLD", "20"))):
        subprocess.run(["sh", "-c", "echo still-working >> calls.log"])
        time.sleep(1)


def sc_exit_mid_perm():
    """Ask permission, then die before the answer arrives."""
    thought("asking, then dying")
    request(
        "session/request_permission",
        {
            "sessionId": SID,
            "options": OPTIONS,
            "toolCall": {
                "toolCallId": "dying",
                "title": "echo x",
                "kind": "execute",
                "rawInput": {"command": "echo x"},
            },
        },
        wait=False,
    )
    time.sleep(float(os.environ.get("FAKE_DELAY", "0.5")))
    os._exit(int(os.environ.get("FAKE_CODE", "3")))


def sc_after_end():
    """Notifications and permission requests after the prompt was answered (the turn ended)."""
    tool("c1", "echo one >> calls.log")
    threading.Thread(target=_late, daemon=True).start()


def _late():
    time.sleep(1.0)
    for i in range(N):
        thought(f"late thought {i}")
        tool(f"late_{i}", LOOP_CMD)


def sc_flood():
    """Load: FAKE_N thought chunks of fresh text interleaved with FAKE_CALLS distinct calls (asking when FAKE_ASK=1);
    with FAKE_BURST=1 every 1000th call starts a burst of 5 identical unasked reads (the 5th must trip)."""
    r = random.Random(1)
    words = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(3, 10))) for _ in range(30000)]
    t0 = time.time()
    calls = int(os.environ.get("FAKE_CALLS", "0"))
    per = max(1, N // max(1, calls))
    sent = 0
    for i in range(max(calls, 1)):
        for _ in range(min(per, N - sent)):
            thought(" ".join(r.choice(words) for _ in range(6)) + " ")
            sent += 1
        if i < calls:
            if os.environ.get("FAKE_BURST") and i % 1000 < 5:
                tool(f"f{i}", "cat notes.txt", ask=False)
            else:
                tool(f"f{i}", f"echo {i} {r.choice(words)}", ask=bool(os.environ.get("FAKE_ASK")))
        if cancelled.is_set() and not os.environ.get("FAKE_IGNORE_CANCEL"):
            break
    log("flood done", sent, calls, f"{time.time() - t0:.1f}s")


def sc_perm_flood():
    """FAKE_N permission requests at once, without waiting for any answer."""
    for i in range(N):
        request(
            "session/request_permission",
            {
                "sessionId": SID,
                "options": OPTIONS,
                "toolCall": {
                    "toolCallId": f"pf{i}",
                    "title": f"echo {i}",
                    "kind": "execute",
                    "rawInput": {"command": f"echo {i}"},
                },
            },
            wait=False,
        )
    time.sleep(float(os.environ.get("FAKE_HOLD", "20")))


def sc_stderr_flood():
    chunk = os.urandom(3 << 20).hex().encode()
    for _ in range(N):
        sys.stderr.buffer.write(chunk + b"\n")
    sys.stderr.flush()
    thought("stderr flood done")


def sc_hang():
    """Never answers the prompt (a hung agent); cancel is logged."""
    thought("thinking forever")
    cancelled.wait(float(os.environ.get("FAKE_HOLD", "600")))


def sc_markup():
    thought("hostile [bold red]markup[/] [link=http://x]l[/link] \x1b]0;ACP-TITLE\x07\x1b[2J\n")
    tool("m1", "echo '[/]' \u202e >> calls.log", title="run [/] \x1b]0;T\x07 \u202eevil")


def sc_ignore_refusal():
    """The loop, but a refused call is run anyway and reported `completed` with its real output."""
    for i in range(N):
        thought(f"Reading notes again ({i}).")
        cid = f"call_{i}"
        notify(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": cid,
                "title": LOOP_CMD,
                "kind": "execute",
                "status": "pending",
                "rawInput": {"command": LOOP_CMD},
            }
        )
        r = request(
            "session/request_permission",
            {
                "sessionId": SID,
                "options": OPTIONS,
                "toolCall": {
                    "toolCallId": cid,
                    "title": LOOP_CMD,
                    "kind": "execute",
                    "rawInput": {"command": LOOP_CMD},
                },
            },
        )
        o = ((r or {}).get("result") or {}).get("outcome") or {}
        log("perm", cid, o.get("optionId") or o.get("outcome"))
        text = subprocess.run(["sh", "-c", LOOP_CMD], capture_output=True, text=True).stdout
        notify(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": cid,
                "status": "completed",
                "content": [{"type": "content", "content": {"type": "text", "text": text}}],
            }
        )


SCENARIOS = {k[3:]: v for k, v in globals().items() if k.startswith("sc_")}


def on_prompt(rid):
    try:
        SCENARIOS[SC]()
        stop = "cancelled" if cancelled.is_set() else "end_turn"
    except Exception as e:  # noqa: BLE001
        log("scenario failed", repr(e))
        stop = "end_turn"
    answer("done.")
    send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": stop}})


def main():
    prompts = 0
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        m, rid = msg.get("method"), msg.get("id")
        if m is None and isinstance(rid, int) and rid in pending:
            ev, slot = pending.pop(rid)
            slot["msg"] = msg
            ev.set()
            continue
        if m == "initialize":
            send(
                {
                    "jsonrpc": "2.0",
                    "id": rid,
                    "result": {
                        "protocolVersion": 1,
                        "agentCapabilities": {"loadSession": False},
                        "agentInfo": {"name": "fake-acp", "version": "0"},
                    },
                }
            )
        elif m == "session/new":
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": SID}})
        elif m == "session/set_mode":
            send({"jsonrpc": "2.0", "id": rid, "result": {}})
        elif m == "session/prompt":
            prompts += 1
            log("prompt", prompts, json.dumps(msg.get("params", {}).get("prompt"))[:200])
            if prompts == 1 or os.environ.get("FAKE_EVERY_PROMPT"):
                threading.Thread(target=on_prompt, args=(rid,), daemon=True).start()
            else:
                answer("ok.")
                send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
        elif m == "session/cancel":
            log("cancel")
            cancelled.set()
        elif rid is not None:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "no"}})


main()
