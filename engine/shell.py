"""Shell-text analysis for the repeat breaker: tokens, verb, URLs, sink and the `cmd:` body."""

from __future__ import annotations

import re
from dataclasses import dataclass

# JavaScript's `\s` (with the u flag), hard-coded: Python's differs.
JS_SPACE = frozenset(
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
JS_SPACE_CLASS = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"

_NAME_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_DURATION = re.compile(r"[0-9]+(?:\.[0-9]+)?[smhd]?")
WRAPPERS = frozenset({"sudo", "doas", "command", "env", "time", "nice", "nohup", "exec"})
WRAPPER_VALUE_OPTS = frozenset(
    {"-u", "-g", "-p", "-C", "-h", "-r", "-t", "-U", "-R", "-T", "-S", "-n", "-D"}
)
HTTP_VERBS = frozenset({"curl", "wget", "http", "httpie"})
VALUE_FLAGS = frozenset(
    {
        "--max-time",
        "--connect-timeout",
        "--retry",
        "--retry-delay",
        "--retry-max-time",
        "--speed-time",
        "--speed-limit",
        "--max-redirs",
        "--user-agent",
        "-m",
        "-A",
    }
)
BOOL_FLAGS = frozenset(
    {
        "--silent",
        "--show-error",
        "--fail",
        "--location",
        "--insecure",
        "--user-agent",
        "--compressed",
        "--no-progress-meter",
    }
)
_CLUSTER = re.compile(r"-[sSfLk]+")
_NAME_VALUE = re.compile(r"(--[a-z-]+)=.*", re.S)
_ATTACHED_NUM = re.compile(r"-[mA][0-9].*", re.S)
_URL = re.compile(
    r"[Hh][Tt][Tt][Pp][Ss]?://(?:[^" + JS_SPACE_CLASS + r"\"'\\<>`]|\\\.)+"
)
_URL_TRAIL = re.compile(r"[.,;:!?)\]}'\"]+$")
OPERATORS = ("&>>", "<<<", "&&", "||", "|&", ">>", ">&", "&>", "<<", "<&", ";", "&", "|", "<", ">")
_OP_CHARS = frozenset("|&;<>")
GENERIC_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/zero", "/dev/tty", "-"})
_SINK_REDIRECTS = frozenset({">", ">>", "1>", "1>>", "&>", "&>>"})
_URLISH = re.compile(r"https?://")


def tokenize(command: str) -> list[str]:
    """The seed tokenizer: quotes and backslashes, no operator splitting."""
    tokens: list[str] = []
    cur: list[str] = []
    started = False
    quote = ""
    i = 0
    n = len(command)
    while i < n:
        c = command[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"' and i + 1 < n:
                i += 1
                cur.append(command[i])
            else:
                cur.append(c)
        elif c == "'" or c == '"':
            quote = c
            started = True
        elif c == "\\" and i + 1 < n:
            i += 1
            cur.append(command[i])
            started = True
        elif c in JS_SPACE:
            if started:
                tokens.append("".join(cur))
                cur = []
                started = False
        else:
            cur.append(c)
            started = True
        i += 1
    if started:
        tokens.append("".join(cur))
    return tokens


@dataclass(frozen=True, slots=True)
class Tok:
    """One token of the operator-aware tokenizer (D6): a word or an operator."""

    text: str
    op: bool
    end: int  # offset just past the token in the source text


def op_tokenize(command: str) -> list[Tok]:
    """Tokenize with unquoted, unescaped `| & ; < >` split off as operator tokens (D6)."""
    toks: list[Tok] = []
    cur: list[str] = []
    started = False
    plain_digits = True  # the current word is only unquoted, unescaped ASCII digits
    quote = ""
    i = 0
    n = len(command)

    def flush(end: int) -> None:
        nonlocal cur, started, plain_digits
        if started:
            toks.append(Tok("".join(cur), False, end))
        cur = []
        started = False
        plain_digits = True

    while i < n:
        c = command[i]
        if quote:
            if c == quote:
                quote = ""
            elif c == "\\" and quote == '"' and i + 1 < n:
                i += 1
                cur.append(command[i])
            else:
                cur.append(c)
            i += 1
            continue
        if c == "'" or c == '"':
            quote = c
            started = True
            plain_digits = False
        elif c == "\\" and i + 1 < n:
            i += 1
            cur.append(command[i])
            started = True
            plain_digits = False
        elif c in JS_SPACE:
            flush(i)
        elif c in _OP_CHARS:
            op = next(o for o in OPERATORS if command.startswith(o, i))
            prefix = ""
            if started and plain_digits and cur and op[0] in "<>":
                prefix = "".join(cur)
                cur = []
                started = False
            else:
                flush(i)
            i += len(op)
            toks.append(Tok(prefix + op, True, i))
            continue
        else:
            cur.append(c)
            started = True
            if not ("0" <= c <= "9"):
                plain_digits = False
        i += 1
    flush(n)
    return toks


def drop_navigation(command: str) -> str:
    """D5: drop leading `cd ARG`, `pushd ARG` or `export NAME=VALUE` segments joined by `&&`/`;`."""
    while True:
        toks = op_tokenize(command)
        if len(toks) < 4:
            return command
        a, b, op, nxt = toks[0], toks[1], toks[2], toks[3]
        del nxt
        if a.op or b.op or not op.op or op.text not in ("&&", ";"):
            return command
        if a.text in ("cd", "pushd"):
            pass
        elif a.text == "export" and _NAME_ASSIGN.match(b.text):
            pass
        else:
            return command
        # the word must be the very first thing (no quotes/escapes around the verb)
        head = command.lstrip("".join(JS_SPACE))
        if not head.startswith(a.text):
            return command
        command = command[op.end :]


def _verb_index(tokens: list[str]) -> int:
    i = 0
    n = len(tokens)
    while i < n:
        t = tokens[i]
        if _NAME_ASSIGN.match(t):
            i += 1
        elif t == "timeout":
            i += 1
            while i < n and tokens[i].startswith("--"):
                i += 1
            if i < n and _DURATION.fullmatch(tokens[i]):
                i += 1
        elif t in WRAPPERS:
            i += 1
            while i < n and tokens[i] in WRAPPER_VALUE_OPTS:
                i += 2
            while i < n and tokens[i].startswith("-"):
                i += 1
        else:
            return i
    return n


def verb_of_tokens(tokens: list[str]) -> str:
    """The verb of a tokenized command: basename of the first non-wrapper word, lowercased."""
    i = _verb_index(tokens)
    if i >= len(tokens):
        return ""
    t = tokens[i]
    cut = max(t.rfind("/"), t.rfind("\\"))
    return t[cut + 1 :].lower()


def first_verb(command: str) -> str:
    """The command's verb, after the D5 navigation drop."""
    return verb_of_tokens(tokenize(drop_navigation(command)))


def _strip_leading(tokens: list[str]) -> list[str]:
    i = 0
    n = len(tokens)
    while i < n:
        t = tokens[i]
        if _NAME_ASSIGN.match(t):
            i += 1
        elif t == "timeout":
            i += 1
            while i < n and tokens[i].startswith("--"):
                i += 1
            if i < n and _DURATION.fullmatch(tokens[i]):
                i += 1
        else:
            break
    return tokens[i:]


def strip_volatile(command: str) -> str:
    """The `cmd:` body: leading env/timeout dropped; HTTP-client volatile flags dropped (D4)."""
    cmd = drop_navigation(command)
    tokens = tokenize(cmd)
    verb = verb_of_tokens(tokens)
    kept = _strip_leading(tokens)
    if verb in HTTP_VERBS:
        out: list[str] = []
        skip = False
        for t in kept:
            if skip:
                skip = False
                continue
            if t in VALUE_FLAGS:
                skip = True
                continue
            if t in BOOL_FLAGS or _CLUSTER.fullmatch(t) or _ATTACHED_NUM.fullmatch(t):
                continue
            m = _NAME_VALUE.fullmatch(t)
            if m and m.group(1) in VALUE_FLAGS:
                continue
            out.append(t)
        kept = out
    return " ".join(kept).strip("".join(JS_SPACE))


def extract_urls(command: str) -> list[str]:
    """Raw http(s) URLs in shell text: D2 unescaping, D7 any-case scheme, trimmed, de-duplicated."""
    seen: dict[str, None] = {}
    for m in _URL.finditer(command):
        u = m.group().replace("\\.", ".")
        u = _URL_TRAIL.sub("", u)
        if u not in seen:
            seen[u] = None
    return list(seen)


def _clean_sink(s: str) -> str | None:
    s = s.strip("".join(JS_SPACE))
    if s[:1] in ("'", '"'):
        s = s[1:]
    if s[-1:] in ("'", '"'):
        s = s[:-1]
    while s.startswith("./"):
        s = s[2:]
    return s or None


def extract_sink(command: str) -> str | None:
    """Where the command writes (D6 operator-aware), before the generic-sink filter."""
    toks = op_tokenize(drop_navigation(command))
    n = len(toks)
    i = 0
    while i < n:
        t = toks[i]
        nxt = toks[i + 1] if i + 1 < n else None
        if t.op:
            if t.text in _SINK_REDIRECTS:
                if nxt is not None and not nxt.op:
                    return _clean_sink(nxt.text)
            elif t.text[-1:] in "<>&" and any(ch in t.text for ch in "<>"):
                if nxt is not None and not nxt.op:
                    i += 2
                    continue
            i += 1
            continue
        w = t.text
        if w in ("-o", "--output", "--output-document"):
            if nxt is not None and not nxt.op and not nxt.text.startswith("-"):
                return _clean_sink(nxt.text)
        elif w == "-O":
            if (
                nxt is not None
                and not nxt.op
                and not nxt.text.startswith("-")
                and not _URLISH.match(nxt.text)
            ):
                return _clean_sink(nxt.text)
        elif w.startswith("--output="):
            return _clean_sink(w[len("--output=") :])
        elif w.startswith("--output-document="):
            return _clean_sink(w[len("--output-document=") :])
        elif w == "tee":
            last: str | None = None
            j = i + 1
            while j < n and not toks[j].op:
                if not toks[j].text.startswith("-"):
                    last = toks[j].text
                j += 1
            if last is not None:
                return _clean_sink(last)
        i += 1
    return None


def is_generic_sink(sink: object) -> bool:
    """Generic sinks (and empty or non-string ones) are never fingerprinted."""
    return not isinstance(sink, str) or not sink or sink in GENERIC_SINKS
