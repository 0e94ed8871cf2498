"""Shell-text analysis for the repeat breaker: tokens, verb, URLs, sink and the `cmd:` body."""

from __future__ import annotations

import re
from functools import lru_cache

from engine.units import JS_SPACE

JS_SPACE_CLASS = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"

_NAME_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_DURATION = re.compile(r"[0-9]+(?:\.[0-9]+)?[smhd]?")
WRAPPERS = frozenset({"sudo", "doas", "command", "env", "time", "nice", "nohup", "exec"})
WRAPPER_VALUE_OPTS = frozenset({"-u", "-g", "-p", "-C", "-h", "-r", "-t", "-U", "-R", "-T", "-S", "-n", "-D"})
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
_URL = re.compile(r"[Hh][Tt][Tt][Pp][Ss]?://(?:[^" + JS_SPACE_CLASS + r"\"'\\<>`]|\\\.)+")
_URL_ASCII = re.compile(r"[Hh][Tt][Tt][Pp][Ss]?://(?:[^\s\"'\\<>`]|\\\.)+", re.ASCII)
_URL_NO_ESCAPES = re.compile(r"[Hh][Tt][Tt][Pp][Ss]?://[^\s\"'\\<>`]+", re.ASCII)  # `_URL_ASCII` without a backslash
_URL_TRAIL_CHARS = ".,;:!?)]}'\""
OPERATORS = ("&>>", "<<<", "&&", "||", "|&", ">>", ">&", "&>", "<<", "<&", ";", "&", "|", "<", ">")  # longest first
_OPS = "|".join(re.escape(o) for o in OPERATORS)
_LONGEST = sorted(OPERATORS, key=len, reverse=True)
_OP_CHARS = frozenset("|&;<>")
GENERIC_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/zero", "/dev/tty", "-"})
_SINK_REDIRECTS = frozenset({">", ">>", "1>", "1>>", "&>", "&>>"})
_URLISH = re.compile(r"https?://")
_SPACES = "".join(JS_SPACE)
_ASCII_SPACE = " \t\n\v\f\r"  # JavaScript's `\s` within ASCII
_SINK_HINT = re.compile(r">|-o|-O|--output|tee")


_WS = "[" + JS_SPACE_CLASS + "]"
_NOT_WORD = JS_SPACE_CLASS + "'\"\\\\"
# One piece of shell text: a quoted run, an escape, a plain run, whitespace, a lone trailing backslash.
# A double-quoted run is written as an unrolled loop (`[^"\\]*(?:\\.[^"\\]*)*`): the same strings as
# `(?:\\.|[^"\\])*`, without an alternation tried at every character.
_PIECES = re.compile(
    r"'([^']*)'?"
    r'|"([^"\\]*(?:\\.[^"\\]*)*)(?:"|(\\?)\Z)'
    r"|\\(.)"
    r"|([^" + _NOT_WORD + r"]+)"
    r"|(" + _WS + r"+)"
    r"|(\\)\Z",
    re.S,
)
_OP_PIECES = re.compile(
    r"'([^']*)'?"
    r'|"([^"\\]*(?:\\.[^"\\]*)*)(?:"|(\\?)\Z)'
    r"|\\(.)"
    r"|([^" + _NOT_WORD + r"|&;<>]+)"
    r"|(" + _WS + r"+)"
    r"|(\\)\Z"
    r"|(" + _OPS + r")",
    re.S,
)
_DQ_ESC = re.compile(r"\\(.)", re.S)


def _dq(body: str, tail: str | None) -> str:
    text = _DQ_ESC.sub(r"\1", body) if "\\" in body else body
    return text + (tail or "")


_QUOTEY = re.compile(r"['\"\\\\]")
_WS_SPLIT = re.compile(_WS + "+")
# Quote-free text: an operator with its descriptor digits, or a word. A word run consumes digits
# glued to earlier word text, so a digit prefix can only start a word (`a2>f` is the word `a2`, then `>`).
_REDIR_OPS = "|".join(re.escape(o) for o in OPERATORS if o[0] in "<>")  # may take a descriptor prefix
_OTHER_OPS = "|".join(re.escape(o) for o in OPERATORS if o[0] not in "<>")
_SIMPLE_OP = re.compile(r"([0-9]*)(" + _REDIR_OPS + r")|()(" + _OTHER_OPS + r")|([^" + JS_SPACE_CLASS + r"|&;<>]+)")


def _plain_ascii(text: str) -> bool:
    """ASCII without the four characters (0x1c-0x1f) Python calls whitespace and JavaScript does not."""
    return text.isascii() and "\x1c" not in text and "\x1d" not in text and "\x1e" not in text and "\x1f" not in text


def is_plain(command: str) -> bool:
    """Plain ASCII (see `_plain_ascii`) without quotes or backslashes: split on whitespace, it is tokenized."""
    return _plain_ascii(command) and "'" not in command and '"' not in command and "\\" not in command


def tokenize(command: str) -> list[str]:
    """The seed tokenizer: quotes and backslashes, no operator splitting."""
    if not _QUOTEY.search(command):
        if _plain_ascii(command):
            return command.split()
        return [t for t in _WS_SPLIT.split(command) if t]
    tokens: list[str] = []
    cur: list[str] = []
    started = False
    for m in _PIECES.finditer(command):
        k = m.lastindex or 0
        if k == 6:  # whitespace
            if started:
                tokens.append("".join(cur))
                cur = []
                started = False
            continue
        started = True
        if k == 2 or k == 3:
            cur.append(_dq(m.group(2), m.group(3)))
        else:
            cur.append(m.group(k))
    if started:
        tokens.append("".join(cur))
    return tokens


# One token of the operator-aware tokenizer (unquoted `| & ; < >` are operators):
# (text, is_operator, offset just past it).
Tok = tuple[str, bool, int]


def op_tokenize(command: str) -> list[Tok]:
    """Tokenize with unquoted, unescaped `| & ; < >` split off as operator tokens (exact offsets)."""
    if not _QUOTEY.search(command):
        out: list[Tok] = []
        for m in _SIMPLE_OP.finditer(command):
            k = m.lastindex or 0
            out.append((m.group(5), False, m.end()) if k == 5 else (m.group(k - 1) + m.group(k), True, m.end()))
        return out
    toks: list[Tok] = []
    cur: list[str] = []
    started = False
    plain_digits = True  # the current word is only unquoted, unescaped ASCII digits
    for m in _OP_PIECES.finditer(command):
        k = m.lastindex or 0
        if k == 6 or k == 8:  # whitespace or operator
            prefix = ""
            if k == 8 and started and plain_digits and m.group(8)[0] in "<>":
                prefix = "".join(cur)
            elif started:
                toks.append(("".join(cur), False, m.start()))
            cur = []
            started = False
            plain_digits = True
            if k == 8:
                toks.append((prefix + m.group(8), True, m.end()))
            continue
        started = True
        if k == 5:
            plain = m.group(5)
            cur.append(plain)
            if plain_digits and not (plain.isascii() and plain.isdigit()):
                plain_digits = False
            continue
        plain_digits = False
        if k == 2 or k == 3:
            cur.append(_dq(m.group(2), m.group(3)))
        else:
            cur.append(m.group(k))
    if started:
        toks.append(("".join(cur), False, len(command)))
    return toks


# A quoted or escaped piece of shell text (everything else is whitespace, words and operators).
_QUOTED_PIECE = re.compile(r"'([^']*)'?" r'|"([^"\\]*(?:\\.[^"\\]*)*)(?:"|(\\?)\Z)' r"|\\(.)" r"|(\\)\Z", re.S)


class _Scan:
    """The state of `scan`: the operator-aware tokens and the plain tokens built side by side."""

    def __init__(self) -> None:
        self.toks: list[Tok] = []
        self.words: list[str] = []
        self.cur: list[str] = []  # the current operator-aware word
        self.whole: list[str] = []  # the current plain token (operators included as text)
        self.started = False
        self.plain_digits = True  # the current word is only unquoted, unescaped ASCII digits

    def space(self) -> None:
        """Whitespace ends both tokens."""
        if self.started:
            self.toks.append(("".join(self.cur), False, 0))
        if self.whole:
            self.words.append("".join(self.whole))
            self.whole = []
        self.cur = []
        self.started = False
        self.plain_digits = True

    def text(self, piece: str, plain: bool) -> None:
        """Word text: unquoted (`plain`) or from a quote or an escape."""
        self.cur.append(piece)
        self.whole.append(piece)
        self.started = True
        if self.plain_digits and not (plain and piece.isascii() and piece.isdigit()):
            self.plain_digits = False

    def operator(self, op: str) -> None:
        """An operator ends the word (a digit-only word before a redirect is its descriptor), not the plain token."""
        prefix = ""
        if self.started and self.plain_digits and op[0] in "<>":
            prefix = "".join(self.cur)
        elif self.started:
            self.toks.append(("".join(self.cur), False, 0))
        self.cur = []
        self.started = False
        self.plain_digits = True
        self.toks.append((prefix + op, True, 0))
        self.whole.append(op)

    def chunk(self, chunk: str) -> None:
        """Whitespace-free unquoted text: words and operators."""
        if not has_operator(chunk):
            self.text(chunk, True)
            return
        i, n = 0, len(chunk)
        while i < n:
            j = _next_op(chunk, i)
            if j > i:
                self.text(chunk[i:j], True)
            if j == n:
                return
            e = j + 1
            while e < n and chunk[e] in _OP_CHARS:
                e += 1
            for op in (chunk[j:e],) if e - j == 1 else _op_run(chunk[j:e]):
                self.operator(op)
            i = e

    def region(self, text: str) -> None:
        """Unquoted text between quoted pieces: whitespace, words and operators."""
        if _plain_ascii(text):
            chunks = text.split()
            edge = _ASCII_SPACE
        else:
            chunks = [c for c in _WS_SPLIT.split(text) if c]
            edge = _SPACES
        if text[0] in edge:
            self.space()
        for k, c in enumerate(chunks):
            if k:
                self.space()
            self.chunk(c)
        if chunks and text[-1] in edge:
            self.space()


def scan(command: str) -> tuple[list[Tok], list[str]]:
    """`op_tokenize` (without word offsets) and `tokenize` of a command, from one pass over the text.

    Only the quoted and escaped pieces are found with a regular expression; the text between them is
    split on whitespace with string methods. A plain token is every piece between two runs of
    whitespace glued together, operators included as text, so it is built beside the operator-aware
    tokens from the same pieces.
    """
    st = _Scan()
    pos = 0
    for m in _QUOTED_PIECE.finditer(command):
        if m.start() > pos:
            st.region(command[pos : m.start()])
        k = m.lastindex or 0
        st.text(_dq(m.group(2), m.group(3)) if k == 2 or k == 3 else m.group(k), False)
        pos = m.end()
    if pos < len(command):
        st.region(command[pos:])
    if st.started:
        st.toks.append(("".join(st.cur), False, 0))
    if st.whole:
        st.words.append("".join(st.whole))
    return st.toks, st.words


def has_operator(s: str) -> bool:
    """Whether the text holds an operator character (`| & ; < >`)."""
    return "|" in s or "&" in s or ";" in s or "<" in s or ">" in s


@lru_cache(maxsize=256)
def _op_run(run: str) -> tuple[str, ...]:
    """A run of operator characters cut into operators, longest first (as the operator-aware tokenizer does)."""
    out = []
    i = 0
    while i < len(run):
        op = next(o for o in _LONGEST if run.startswith(o, i))
        out.append(op)
        i += len(op)
    return tuple(out)


_OP_CHAR = re.compile(r"[|&;<>]")


def _next_op(word: str, start: int) -> int:
    """The offset of the first operator character at or after `start`, or `len(word)`.

    One scan up to that character: a `find` per operator character would each read to the end of a
    word that lacks it, so cutting a long word with many operators would take quadratic time.
    """
    m = _OP_CHAR.search(word, start)
    return len(word) if m is None else m.start()


def split_word(word: str) -> list[Tok]:
    """One whitespace-free plain word as operator-aware tokens; a digit-only piece before a redirect joins it."""
    out: list[Tok] = []
    n = len(word)
    i = 0
    while i < n:
        j = _next_op(word, i)
        piece = word[i:j]
        if j == n:
            out.append((piece, False, 0))
            break
        e = j + 1
        while e < n and word[e] in "|&;<>":
            e += 1
        run = word[j:e]
        ops = (run,) if e - j == 1 else _op_run(run)
        first = ops[0]
        if piece and first[0] in "<>" and piece.isdigit():
            out.append((piece + first, True, 0))
        else:
            if piece:
                out.append((piece, False, 0))
            out.append((first, True, 0))
        for o in ops[1:]:
            out.append((o, True, 0))
        i = e
    return out


def words_to_tokens(words: list[str]) -> list[Tok]:
    """The operator-aware tokens of plain text already split on whitespace: only words with an operator are cut."""
    out: list[Tok] = []
    for w in words:
        if has_operator(w):
            out += split_word(w)
        else:
            out.append((w, False, 0))
    return out


def op_words(command: str) -> list[Tok]:
    """`op_tokenize` without exact word offsets, for when none are needed."""
    if _QUOTEY.search(command):
        return scan(command)[0]
    if not _plain_ascii(command):
        return [(w, False, 0) if w else (d + o + e + p, True, 0) for d, o, e, p, w in _SIMPLE_OP.findall(command)]
    return words_to_tokens(
        command.split()
    )  # whitespace separates tokens here exactly as in the operator-aware tokenizer


_LEADING_SPACE = re.compile(_WS + "*")


def drop_navigation(command: str) -> str:
    """Drop leading `cd ARG`, `pushd ARG` or `export NAME=VALUE` segments joined by `&&`/`;` (navigation)."""
    start = _navigation_end(command)
    return command[start:] if start else command


def _navigation_end(command: str) -> int:
    """The offset just past the leading navigation segments (0 when there are none).

    The command is tokenized once: the tokens of the text after a segment's `&&`/`;` are the rest of
    the whole command's tokens (a token never spans an operator), so each segment is read from the one
    list instead of re-tokenizing (and copying) the remaining text, which took quadratic time.
    """
    pos = 0
    k = 0
    toks: list[Tok] | None = None
    while True:
        text_start = _LEADING_SPACE.match(command, pos)
        if text_start is None or not command.startswith(("cd", "pushd", "export"), text_start.end()):
            return pos
        if toks is None:
            toks = op_tokenize(command)
        if len(toks) - k < 4:
            return pos
        (a, a_op, _), (b, b_op, _), (op, is_op, end) = toks[k], toks[k + 1], toks[k + 2]
        if a_op or b_op or not is_op or op not in ("&&", ";"):
            return pos
        if not (a in ("cd", "pushd") or (a == "export" and _NAME_ASSIGN.match(b))):
            return pos
        pos = end
        k += 3


def _leading_end(tokens: list[str], wrappers: bool) -> int:
    """Where the command proper starts: past `NAME=value` words, `timeout [--opts] [duration]` and,
    when `wrappers`, the wrapper commands (`env`, `sudo`, ...) with their options.
    """
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
        elif wrappers and t in WRAPPERS:
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
    i = _leading_end(tokens, True)
    if i >= len(tokens):
        return ""
    t = tokens[i]
    cut = max(t.rfind("/"), t.rfind("\\"))
    return t[cut + 1 :].lower()


def first_verb(command: str) -> str:
    """The command's verb, after leading `cd`/`pushd`/`export` segments are dropped."""
    return verb_of_tokens(tokenize(drop_navigation(command)))


def _strip_leading(tokens: list[str]) -> list[str]:
    return tokens[_leading_end(tokens, False) :]


def strip_volatile(command: str) -> str:
    """The `cmd:` body: leading env/timeout dropped; volatile flags dropped only for curl, wget, http and httpie."""
    tokens = tokenize(drop_navigation(command))
    return _strip(tokens, verb_of_tokens(tokens))


def _volatile_form(t: str) -> bool:
    """A dash token that is a silent/fail/location cluster (`-sS`), `-m30`/`-Afoo`, or `--max-time=30`."""
    if len(t) < 2:
        return False
    if t[1] == "-":  # `--name=value` with a value flag's name
        name, eq, _ = t.partition("=")
        return bool(eq) and name in VALUE_FLAGS
    if not t[1:].strip("sSfLk"):  # `-[sSfLk]+`
        return True
    return t[1] in "mA" and len(t) > 2 and "0" <= t[2] <= "9"  # `-[mA][0-9].*`


_HAS_SPACE = re.compile(_WS)


def bounded(token: str) -> str:
    """A token as it must be written for word boundaries to survive a join: quoted when it is empty or
    holds whitespace (`'a b'` is one argument, `a b` two), as written otherwise.
    """
    if token and not _HAS_SPACE.search(token):
        return token
    return "'" + token.replace("'", "'\\''") + "'"


def _strip(tokens: list[str], verb: str) -> str:
    """The `cmd:` body of tokens, joined bare as the seed joins them."""
    return " ".join(cmd_words(tokens, verb)).strip(_SPACES)


def cmd_words(tokens: list[str], verb: str) -> list[str]:
    """The words the `cmd:` body keeps: leading env/timeout dropped, and an HTTP client's volatile flags."""
    kept = _strip_leading(tokens)
    if verb not in HTTP_VERBS:
        return kept
    out: list[str] = []
    skip = False
    for t in kept:
        if skip:
            skip = False
            continue
        if t[:1] == "-":
            if t in VALUE_FLAGS:
                skip = True
                continue
            if t in BOOL_FLAGS or _volatile_form(t):
                continue
        out.append(t)
    return out


def bounded_body(words: list[str]) -> str:
    """The `cmd:` body with word boundaries kept: each word written with `bounded`."""
    return " ".join(bounded(t) for t in words).strip(_SPACES)


def extract_urls(command: str) -> list[str]:
    """Raw http(s) URLs in shell text: backslash-dot read as a dot, scheme in any case, trimmed, de-duplicated."""
    if "://" not in command:
        return []
    seen: dict[str, None] = {}
    for u in _url_texts(command):
        if "\\" in u:
            u = u.replace("\\.", ".")
        seen[u.rstrip(_URL_TRAIL_CHARS)] = None
    return list(seen)


def _url_texts(command: str) -> list[str]:
    """What `_URL.finditer` finds, but in ASCII text only trying the places just before a `://`."""
    if not command.isascii():  # JavaScript's `\s` beyond ASCII needs the full pattern
        return [m.group() for m in _URL.finditer(command)]
    pattern = _URL_ASCII if "\\" in command else _URL_NO_ESCAPES
    out: list[str] = []
    done = 0
    i = command.find("://")
    while i >= 0:
        for k in (5, 4):  # https, http
            start = i - k
            if start >= done and command[start:i].lower() == ("https" if k == 5 else "http"):
                m = pattern.match(command, start)
                if m is not None:
                    out.append(m.group())
                    done = m.end()
                break
        i = command.find("://", max(i + 3, done))
    return out


def _clean_sink(s: str) -> str | None:
    s = s.strip(_SPACES)
    if s[:1] in ("'", '"'):
        s = s[1:]
    if s[-1:] in ("'", '"'):
        s = s[:-1]
    i = 0
    while s.startswith("./", i):  # one slice at the end: slicing off each `./` would copy the rest each time
        i += 2
    s = s[i:]
    return s or None


def extract_sink(command: str) -> str | None:
    """Where the command writes (redirects split off even when glued to words), before the generic-sink filter."""
    return _sink(drop_navigation(command))


def is_quoted(command: str) -> bool:
    """Whether the text holds a quote or a backslash (the general tokenizers' case)."""
    return _QUOTEY.search(command) is not None


def may_sink(command: str) -> bool:
    """Whether the text could name a sink at all (a redirect, an output option, `tee`)."""
    return _SINK_HINT.search(command) is not None


def _sink(command: str) -> str | None:
    if not may_sink(command):
        return None
    return sink_of_tokens(op_words(command))


def sink_of_tokens(toks: list[Tok]) -> str | None:
    """The first sink in operator-aware tokens: a write redirect's target, an output option's value, `tee`'s file."""
    n = len(toks)
    i = 0
    while i < n:
        w, is_op, _ = toks[i]
        if not is_op and w[:1] != "-" and w != "tee":
            i += 1  # an ordinary word: nothing here can name a sink
            continue
        has_word = i + 1 < n and not toks[i + 1][1]
        nxt = toks[i + 1][0] if has_word else ""
        if is_op:
            if w in _SINK_REDIRECTS:
                if has_word:
                    return _clean_sink(nxt)
            elif has_word and ("<" in w or ">" in w):
                i += 2  # a descriptor redirect or duplication: skip its target
                continue
        else:
            found = _tee_sink(toks, i + 1) if w == "tee" else _option_sink(w, nxt, has_word)
            if found is not None:
                return _clean_sink(found)
        i += 1
    return None


def _option_sink(w: str, nxt: str, has_word: bool) -> str | None:
    """The file an output option names (`-o F`, `-O F` unless F is the URL, `--output=F`), or None."""
    if w in ("-o", "--output", "--output-document"):
        return nxt if has_word and not nxt.startswith("-") else None
    if w == "-O":
        return nxt if has_word and not nxt.startswith("-") and not _URLISH.match(nxt) else None
    if w.startswith("--output="):
        return w[9:]
    if w.startswith("--output-document="):
        return w[18:]
    return None


def _tee_sink(toks: list[Tok], j: int) -> str | None:
    """`tee`'s file: the last of the words from `j` up to the next operator that is not a flag."""
    last: str | None = None
    while j < len(toks) and not toks[j][1]:
        if not toks[j][0].startswith("-"):
            last = toks[j][0]
        j += 1
    return last


def is_generic_sink(sink: object) -> bool:
    """Generic sinks (and empty or non-string ones) are never fingerprinted."""
    return not isinstance(sink, str) or not sink or sink in GENERIC_SINKS
