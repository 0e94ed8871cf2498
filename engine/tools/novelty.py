"""What counts as "something new": one decision, used by every default rule.

Each rule of the default mode counts something different (identical calls in a window, a cycle of
pairs, pages of a file, a failure streak, a run of one answer, a restated plan), but they all ask the
same question about a finished call: did it bring anything new? Before this module each rule folded
results its own way, so a moving counter one rule ignored made another rule see progress. Here it is
decided once:

* the result is compared after removing what the *harness and the shell* add around what the tool
  said (`clean`): ANSI sequences, CRLF, dsh's `[exit code: N]` framing, harness prefixes that hide a
  line start (`Observation: `), shell prompts, bash's `line N:` counter, step and attempt counters,
  timestamps (dates, clock times, epoch seconds and milliseconds), durations, pids (`pid 12`,
  `[1] 12345`, `prog[12345]:`), ports, addresses, temporary names anywhere, whole dashed UUIDs and
  long hex ids;
* and after removing the call's own echo (`echoes`, whole tokens only): the numbers of two digits
  or more its arguments carry (`--attempt 12` printed back), each URL, host and path exactly as the
  call spelled it (`Could not resolve host: WWW.Example.COM`), and the whole command when the
  harness restates it;
* a call brought something new when that cleaned result is not among the results the same call
  (one of its keys: a fingerprint, the call itself) returned since the workspace last changed
  (`Seen`) — or the workspace changed. A call is compared as the rules see it (`shell_args`):
  a shell command's quoting, a leading `cd DIR &&`, operator spacing and a URL's cosmetic parts aside.

A repeated thought while results keep bringing new things is progress; an identical result behind
moving counters is not.
"""

from __future__ import annotations

import re
from collections import OrderedDict, deque
from functools import lru_cache
from typing import Any

from engine.tools import shell
from engine.tools.urls import plain_href

SHELL_TOOLS = frozenset(
    {"bash", "pwsh", "shell", "run_shell_command", "execute_command", "run_command", "run_terminal_cmd", "terminal",
     "exec_command", "execute_bash", "cmd_run", "local_shell"}
)  # fmt: skip
FOLD_CHARS = 16384  # results are compared on their first and last 8 KiB
ECHO_CHARS = FOLD_CHARS // 2  # a whole command is found echoed up to the length of a result's kept head
RESULTS_PER_KEY = 32  # distinct results remembered per call key (the oldest go first)
KEYS_CAP = 512  # call keys remembered per agent
LINES_CAP = 8192  # result lines remembered per agent (forgotten all at once beyond)
NEW_LINES = 2  # a result read as an error is news only with this many lines never said before

_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
_EXIT_FRAME = re.compile(r"\[exit code: -?\d+\]")
# a harness's label or step counter in front of what the tool said hides errors anchored at a line start
_PREFIX = re.compile(
    r"^(?:[ \t]*(?:(?:Observation|Output|Result|Tool output|Tool result|stdout|stderr|OBSERVATION)[ \t]*:[ \t]?"
    r"|The result of executing that last command is:\s*|Command [\w.-]{1,64} returned:[ \t]?"
    r"|(?i:\[step \d+(?:/\d+)?\]|step \d+(?:/\d+)?:|\(\d+ steps? (?:left|remaining)\))[ \t]*))+",
    re.M,
)
# every label above holds one of these words (a cheap scan: most results hold none and skip the pass)
_PREFIX_WORDS = ("Observation", "Output", "Result", "Tool output", "Tool result", "stdout", "stderr", "OBSERVATION",
                 "The result of executing", " returned:")  # fmt: skip
_STEP_WORD = re.compile(r"[sS][tT][eE][pP]")


def _has_prefix_word(text: str) -> bool:
    """`any(w in text for w in _PREFIX_WORDS)`, spelled out (every result asks it: no generator per call)."""
    return (
        "Observation" in text
        or "Output" in text
        or "Result" in text
        or "Tool output" in text
        or "Tool result" in text
        or "stdout" in text
        or "stderr" in text
        or "OBSERVATION" in text
        or "The result of executing" in text
        or " returned:" in text
    )


# prompts a harness or shell prints around output: `bash-$ `, `user@host:~/x$ `, `(venv) $ `
_PROMPT = re.compile(
    r"^[ \t]*(?:\([\w.-]+\)[ \t]*)?(?:bash-[\d.]*\$|[\w.-]+@[\w.-]+:[^\n$#]{0,200}[$#]|[$#>])[ \t]+", re.M
)

# Volatile parts, folded to `#`. Order matters: a whole UUID before its first hex group, a full stamp
# before its date, epoch numbers before plain digits. The parts that start at a word boundary share one
# `\b` (checked once per position, then each part is skipped at its first character): the pass is the
# engine's costliest step. Parts with different first characters may change places; none that can start
# at the same character does.
_AT_WORD = (
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b",  # dashed uuids, whole
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?\b",  # dates, stamps
    r"\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b",  # clock times
    r"1[4-9]\d{8}(?:\d{3}|\d{6}|\d{9})?(?:\.\d+)?\b",  # epoch seconds, ms, us, ns (2014-2033)
    r"\d+(?:\.\d+)?\s?(?:ms|us|µs|ns|s|sec|secs|seconds?|m|min|mins|minutes?|h|hrs?|hours?|d|days?)\b",  # durations
    r"\d+m\d+(?:\.\d+)?s\b",
    r"0x[0-9a-fA-F]+\b|(?=[0-9a-fA-F]*\d)(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{7,}\b",  # addresses, hex ids
    r"(?:pid|PID|pgid|PGID|process|Process|port|Port|PORT)[ =:#]*\d+",  # pids, process groups, ports
    r"\d{1,3}(?:\.\d{1,3}){3}\b",  # IPv4 addresses
)
_STEP = (  # step and attempt counters
    r"(?i:(?:step|turn|iteration|attempt|try|retry|round|poll)\b[ \t]*#?[ \t]*)\d+(?:[ \t]*(?:/|of)[ \t]*\d+)?"
)
_TEMP_NAME = r"tmp(?:[._-]?(?=[A-Za-z0-9_]*(?:\d|[a-z][A-Z]|[A-Z][a-z]))[A-Za-z0-9_]{5,}|\.[A-Za-z0-9]{6,})\b"
# the other parts start with a fixed character, any assertion on what precedes it checked after it
_ELSEWHERE = (
    r"^\[\d+\][+-]?[ \t]+\d+",  # a shell job's `[1] 12345`
    r"\[(?<=[\w.-]\[)\d+\](?=:)",  # syslog style `prog[12345]:`
    r":(?<=[a-z0-9\]]:)\d{2,5}\b",  # host:port
    r"line(?<=: line) \d+(?=: )",  # bash's own counter: `/bin/bash: line 13218: cd: ...`
)
_TEMP_PATH = r"/tmp/[^\s'\"]+|/var/folders/[^\s'\"]+|/private/var/[^\s'\"]+"
# the word the shell could not run is the call's own; it may start with any character, so it keeps its
# place (after the counters and addresses, before the step words) and is tried only where it can match
_NOT_FOUND = r"[^\s:](?<=: [^\s:])[^\s:]{0,199}(?=: command not found)"
_VOLATILE = re.compile(rf"\b(?:{'|'.join((*_AT_WORD, _STEP, _TEMP_NAME))})|{'|'.join(_ELSEWHERE)}|{_TEMP_PATH}", re.M)
_VOLATILE_NOT_FOUND = re.compile(
    rf"\b(?:{'|'.join(_AT_WORD)})|{'|'.join((*_ELSEWHERE, _NOT_FOUND))}|\b(?:{_STEP})|{_TEMP_PATH}|\b{_TEMP_NAME}",
    re.M,
)
_DIGIT = re.compile(r"\d")
_MAY_FOLD = re.compile(r"\d|tmp|/var/|command not found")
# a line that held nothing but volatile values (a stamp, a counter, an echoed command) says nothing
_EMPTY_LINE = re.compile(r"^[ \t#\[\]().,:;=/|-]*#[ \t#\[\]().,:;=/|-]*(?:\n|$)", re.M)
_URL = re.compile(r"(?i)\b(?:https?|ftp)://[^\s\"'\\<>`]+|\bwww\.[\w.-]+|\b[\w-]+(?:\.[\w-]+)+(?=/)")
_HOST = re.compile(r"(?i)^(?:[a-z][\w+.-]*://)?([^/?#:\s]+)")
# a run of word characters, dots, colons, slashes and dashes that holds a digit, tried only where a run starts
# (`[\w.:/-]*\d[\w.:/-]*` alone tried every position of a run without a digit, each to the run's end: a long
# argument of words and paths took quadratic time; the matches are the same)
_ECHO_WORD = re.compile(r"(?<![\w.:/-])[\w.:/-]*\d[\w.:/-]*")
_NUMBER = re.compile(r"(?<![\w.])\d+(?![\w.])")


def _bounded(text: str) -> str:
    if len(text) > FOLD_CHARS:
        half = FOLD_CHARS // 2
        return text[:half] + "\n…\n" + text[-half:]
    return text


def unframe(text: str) -> str:
    """What the tool said without the harness around it: ANSI, CRLF, `[exit code: N]`, label prefixes, prompts."""
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "[exit code:" in text:
        text = _EXIT_FRAME.sub("", text)
    if _has_prefix_word(text) or _STEP_WORD.search(text) is not None:
        text = _PREFIX.sub("", text)
    return _PROMPT.sub("", text) if "$" in text or "#" in text or ">" in text else text


_CLEANED: OrderedDict[str, str] = OrderedDict()
_CLEANED_CAP = 64  # every rule and the error reading fold the same few results: the last ones are kept


def clean(text: str) -> str:
    """The result with the harness's framing and every volatile part folded to `#` (bounded: long
    texts keep their two ends). Memoised on the last results (the volatile pass is the engine's
    costliest step, and one result is folded by several rules).
    """
    text = _bounded(text)
    hit = _CLEANED.get(text)
    if hit is None:
        hit = _CLEANED[text] = _clean(text)
        if len(_CLEANED) > _CLEANED_CAP:
            _CLEANED.popitem(last=False)
    return hit


def _clean(text: str) -> str:
    text = unframe(text)
    if not _DIGIT.search(text) and "/tmp/" not in text and "/var/" not in text and "tmp" not in text:
        return (_EMPTY_LINE.sub("", text) if "#" in text else text).strip()  # other volatile parts have digits
    # only a line with a digit, a temp name or a shell's complaint can hold a volatile value: the others
    # skip the pass (its ~20 alternatives are tried at every position of the line)
    lines = text.split("\n")
    folded = "\n".join([_fold_line(line) if _MAY_FOLD.search(line) else line for line in lines])
    return _EMPTY_LINE.sub("", folded).strip()


_LINES: OrderedDict[str, str] = OrderedDict()
_LINES_CAP = 1024  # a session shows the same lines again (a file re-opened, a test re-run): the last ones are kept


def _fold_line(line: str) -> str:
    """One line with its volatile parts folded (the part after `: ` before `: command not found` only
    where the line says so: it may start at any character).
    """
    hit = _LINES.get(line)
    if hit is not None:
        _LINES.move_to_end(line)
        return hit
    volatile = _VOLATILE_NOT_FOUND if ": command not found" in line else _VOLATILE
    hit = _LINES[line] = volatile.sub("#", line)
    if len(_LINES) > _LINES_CAP:
        _LINES.popitem(last=False)
    return hit


def command_of(args: Any) -> str:
    """A shell call's command line (a `command` string, or an argv list joined)."""
    c = args.get("command") if isinstance(args, dict) else None
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return " ".join(str(w) for w in c[:64])
    return ""


_OPERATORS = ("&&", "||", ";", "|")


# `spaced` on text without quotes or backslashes: every `&|;` is outside quotes, so the walk below
# reduces to one substitution (a `;` takes the spaces and tabs before it; a lone `&` and the `|` of `>|`
# stay as they are). `spaced_walk` is the reference; a property test holds the two equal.
_SPACED_OP = re.compile(r"&&|\|\||(?<!>)\||[ \t]*;")


def _spaced_op(m: re.Match[str]) -> str:
    op = m.group()
    return "; " if op[-1] == ";" else f" {op} "


@lru_cache(maxsize=2048)
def spaced(command: str) -> str:
    """The command with its operators (`&&`, `||`, `;`, `|`) spaced outside quotes, in one pass:
    `a&&b` and `a && b` are one command (cached: loops repeat commands).
    """
    if "&&" not in command and "|" not in command and ";" not in command:
        return command  # a lone `&` (a background job, `2>&1`, a URL's query) is never re-spaced
    if "'" not in command and '"' not in command and "\\" not in command:
        return _SPACED_OP.sub(_spaced_op, command)
    return spaced_walk(command)


def spaced_walk(command: str) -> str:
    """`spaced` by walking the command character by character (the general path, quotes and escapes)."""
    out: list[str] = []
    quote = ""
    i, n = 0, len(command)
    while i < n:
        c = command[i]
        if quote:
            out.append(c)
            if c == "\\" and quote == '"' and i + 1 < n:
                out.append(command[i + 1])
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
            out.append(c)
        elif c == "\\" and i + 1 < n:
            out.append(command[i : i + 2])
            i += 1
        elif c in "&|;":
            op = command[i : i + 2] if command[i : i + 2] in _OPERATORS else c
            if op == "&" or (op == "|" and command[i - 1 : i] == ">"):
                out.append(c)  # a background `&`, `2>&1`, `>|`: not a separator
            else:
                while op == ";" and out and out[-1] in (" ", "\t"):
                    out.pop()
                out.append("; " if op == ";" else f" {op} ")  # the conventional spellings: `a; b`, `a && b`
                i += len(op) - 1
        else:
            out.append(c)
        i += 1
    return "".join(out)


def may_respell(tool: str, args: Any) -> bool:
    """Whether `shell_args` could return anything but `args` itself: a shell call, or a URL argument (one
    of `RESPELLED`, the only arguments it may re-spell).
    """
    if not isinstance(args, dict):
        return False
    return tool in SHELL_TOOLS or "url" in args or "href" in args or "uri" in args  # (`_URL_KEYS`, unrolled)


def shell_args(tool: str, args: Any) -> Any:
    """A call's arguments as every default rule compares them: a shell command's quoting, a leading
    `cd DIR &&` and operator spacing aside (its words, with their boundaries kept; flags stay: `-v` may
    change what a command does), and every URL in its `net:` form (`_url_key`), in a command or in a
    `url` argument. Anything else is returned as it is.
    """
    if not may_respell(tool, args):
        return args  # no shell command and no URL argument: nothing to normalise
    if tool not in SHELL_TOOLS:
        urls = {k: _url_key(v) for k in _URL_KEYS if isinstance(v := args.get(k), str)}
        return {**args, **urls} if any(urls[k] != args[k] for k in urls) else args
    c = args.get("command")
    if not isinstance(c, str) or not c:
        return args
    same = _same_command(c[:4000]) or c
    return args if same == c else {**args, "command": same}


@lru_cache(maxsize=2048)
def _same_command(command: str) -> str:
    """A command's words as compared (cached: loops repeat commands)."""
    # the fast paths below keep every word: only where no navigation (`cd`, `pushd`, `export`) leads, which
    # the general path drops (a lone `cd x` with no operator after it is kept by both)
    if "://" not in command and not command.lstrip().startswith(_NAVIGATION):
        if _PLAIN.fullmatch(command):
            return " ".join(command.split())  # plain words: the tokenizer would split them the same way
        if _PLAIN.fullmatch(_OPERATOR.sub(" ", command)):
            return " ".join(_OPERATOR.sub(_spaced_operator, command).split())  # plain words and operators
    text = _URL_IN_TEXT.sub(lambda m: _url_key(m.group()), command) if "://" in command else command
    while (m := _CD_PREFIX.match(text)) is not None:  # also where the rest would not parse (an open quote)
        text = text[m.end() :]
    if shell.is_plain(text):
        # plain text stays plain once spaced: the tokenizer splits it on whitespace, and no word needs quoting
        return " ".join(shell.drop_navigation(spaced(text)).split())
    return " ".join(shell.bounded(w) for w in shell.tokenize(shell.drop_navigation(spaced(text))))


_URL_KEYS = ("url", "href", "uri")
RESPELLED = frozenset(("command", *_URL_KEYS))  # the arguments `shell_args` may re-spell
_NAVIGATION = ("cd", "pushd", "export")  # what `shell.drop_navigation` may drop where a command starts
_CD_PREFIX = re.compile(r"\s*(?:cd|pushd)\s+(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s;&|'\"]+)\s*(?:&&|;)\s*")
_PLAIN = re.compile(r"[\s\w./:=,+@%^~-]*")  # no quotes, escapes, substitutions, globs or redirections
_OPERATOR = re.compile(r"[ \t]*(&&|\|\||;|\|)[ \t]*")


def _spaced_operator(m: re.Match[str]) -> str:
    return "; " if m.group(1) == ";" else f" {m.group(1)} "


_URL_IN_TEXT = re.compile(r"(?i)\bhttps?://[^\s\"'\\<>`]+")


def _url_key(raw: str) -> str:
    """A URL as the call's identity: host case, `www.`, tracking parameters and the fragment aside (the
    seeds' `net:` form); anything that does not parse as a URL stays as it is.
    """
    href = plain_href(raw) if "://" in raw else None
    return href if href is not None else raw


def _source(tool: str, args: Any) -> str:
    if tool in SHELL_TOOLS:
        return command_of(args)[:2000]
    if isinstance(args, dict):
        values = args.values() if len(args) <= 16 else list(args.values())[:16]
        return " ".join([str(v)[:500] for v in values if isinstance(v, (str, int, float))])
    return str(args)[:2000] if isinstance(args, str) else ""


def echoes(tool: str, args: Any) -> tuple[str, ...]:
    """What a result may echo of its own call's spelling (longest first, at most 24): the whole
    command, each URL and its host as spelled, and the argument words that carry a digit.
    """
    src = _source(tool, args)
    if not src:
        return ()
    return _echo_words(src, command_of(args)[:ECHO_CHARS] if tool in SHELL_TOOLS and len(src) >= 4 else "")


@lru_cache(maxsize=512)
def _echo_words(src: str, whole: str) -> tuple[str, ...]:
    """`echoes` of a call's `_source` and, for a shell call, its whole command (cached: a loop repeats its
    calls, and every long result asks).
    """
    out: set[str] = set()
    if whole:
        out.update(_spellings(whole))
    for m in _URL.finditer(src):
        u = m.group().rstrip(".,;:!?)]}'\"")
        if "." not in u:
            continue
        out.add(u)
        h = _HOST.match(u)
        if h and "." in h.group(1):
            out.add(h.group(1))
            out.add(u[h.end() :])  # the path and query as spelled (a 404 page names them)
    out.update(w.strip(".:/-") for w in _ECHO_WORD.findall(src))
    return tuple(sorted((w for w in out if len(w) >= 2), key=len, reverse=True)[:24])


@lru_cache(maxsize=512)
def _spellings(whole: str) -> tuple[str, ...]:
    """How a result may restate a whole command (cached: loops repeat commands). The whole command,
    however long (a heredoc script a harness restates): a command cut where its words are read would no
    longer match its echo, and the echo would read as news. The result is read unframed (`unframe`): a
    script's lines that start like a prompt (`    # comment`, `> x`) lose that start in its echo, so the
    command is looked for as unframed too. And each behind its `cd DIR &&`: that is the call as compared
    (`shell_args`), and a shell or harness that echoes only the part that failed echoes it too.
    """
    out: list[str] = []
    for spelled in (whole, unframe(whole)) if "\n" in whole else (whole,):
        out.append(spelled)
        rest = spelled
        while (m := _CD_PREFIX.match(rest)) is not None:
            rest = rest[m.end() :]
        if rest != spelled and len(rest) >= 4:
            out.append(rest)
    return tuple(out)


def unechoed(text: str, tool: str, args: Any) -> str:
    """The result without its first lines where they restate the call (a harness's `$ cmd` above what the
    command printed), the restatement compared as the rules compare calls (`shell_args`): a re-spelled
    echo (`cd DIR && cmd`, `'python3' x.py`) restates the same call. What the command printed is left
    as it is, values and all (an error that quotes the call's values names its cause with them).
    """
    if tool not in SHELL_TOOLS:
        return text
    command = command_of(args)
    if not command or "\n" not in text:
        return text
    lines = unframe(text).split("\n")
    n = command.count("\n") + 1
    head = "\n".join(lines[:n])
    if head != command and _compared(tool, head) != _compared(tool, unframe(command)):
        return text
    return "\n".join(lines[n:])


def _compared(tool: str, command: str) -> str:
    return str(shell_args(tool, {"command": command}).get("command", ""))


def _without(text: str, words: tuple[str, ...]) -> str:
    low = text.lower()
    for w in words:
        lw = w.lower()
        if lw in low:
            text = _echo_pattern(w).sub("#", text)
            low = text.lower()
    return text


@lru_cache(maxsize=256)
def _echo_pattern(word: str) -> re.Pattern[str]:
    """An echoed word as a whole token, case aside (an echoed `21` is not the `21` inside a uuid, a longer
    number or a decimal); compiled once per word (a loop's results echo the same words).
    """
    # (`took 12.31s` holds no `12`: folding it would split the duration `clean` folds whole)
    return re.compile(rf"(?<![\w-])(?<!\d\.){re.escape(word)}(?![\w-])(?!\.\d)", re.I)


def _short_spelled(text: str, tool: str, args: Any) -> str:
    """A short command (`)`, `:`) is not folded where a result echoes it (too many results hold it by
    chance), so a re-spelling's echo (`cd /testbed && )`) is put back to the command as compared, and a
    line that only restates it (`$ cd /testbed && )`) is dropped: both spellings then read alike.
    """
    if tool not in SHELL_TOOLS:
        return text
    src = command_of(args)[:2000]
    if not src or src not in text:
        return text
    compared = _source(tool, shell_args(tool, args))
    if len(compared) >= 4 or src == compared:
        return text
    text = re.sub(rf"(?<![\w-]){re.escape(src)}(?![\w-])", lambda _: compared, text)
    return "\n".join(line for line in text.split("\n") if line.strip() != compared)


_LAST_NEWS: list[Any] = [None, None, None, ""]  # (text, tool, args) and its news_text, compared by identity


def news_text(text: str, tool: str = "", args: Any = None) -> str:
    """The result as every rule compares it: `clean`, then the call's own echo folded (`echoes`),
    then the numbers the call's arguments carry (`try 3` printed back is not news). The last answer is
    kept for the very same objects: the rules ask it several times about one result.
    """
    last = _LAST_NEWS
    if last[0] is text and last[1] == tool and last[2] is args and args is not None:
        return str(last[3])
    folded = _news_text(text, tool, args)
    last[0] = text  # kept in place: no list per result
    last[1] = tool
    last[2] = args
    last[3] = folded
    return folded


def _may_echo(text: str, tool: str, args: Any) -> bool:
    """Whether `text` may hold one of `echoes(tool, args)`. Each is a piece of the call's `_source` two characters
    or longer, so a short ASCII text that shares no two characters in a row with it (case aside) holds none,
    and the echo words are not worked out (`ok`, `File written`).
    """
    return len(text) > 64 or not text.isascii() or _shares_pair(text, _source(tool, args))


def _shares_pair(text: str, src: str) -> bool:
    """`_may_echo` for a short ASCII text and the call's `_source`."""
    if not src.isascii():
        return True
    low, spelled = text.lower(), src.lower()
    # a plain loop, not `any()` over a generator: asked of every short result, it allocates no object
    i = len(low) - 2
    while i >= 0 and low[i : i + 2] not in spelled:
        i -= 1
    return i >= 0


def _news_text(text: str, tool: str, args: Any) -> str:
    if args is not None:
        # echo first, on the unfolded text: a folded stamp could split a spelled URL in two
        text = _short_spelled(unframe(_bounded(text)), tool, args)
        if _may_echo(text, tool, args):
            text = _without(text, echoes(tool, args))
    folded = clean(text)
    if args is not None and _DIGIT.search(folded):
        # the numbers of the call as compared (a URL's dropped fragment or tracking value is no echo)
        # (two digits or more: a lone digit in a result, `line 1`, `0 errors`, is too often a coincidence)
        numbers = frozenset(re.findall(r"\d\d+", _source(tool, shell_args(tool, args)))[:32])
        if numbers:
            folded = _NUMBER.sub(lambda m: "#" if m.group() in numbers else m.group(), folded)
    return folded


def news_key(text: str, tool: str = "", args: Any = None) -> int:
    """A hash of `news_text`: equal keys mean "nothing new"."""
    return hash(news_text(text, tool, args))


def substance(folded: str) -> int:
    """How many characters a folded result says, spaces aside (short ones say too little to compare)."""
    return len("".join(folded.split()))


class Seen:
    """Per call key: the results it returned since the workspace last changed (bounded).

    Compact on purpose: every result adds to several keys, so a key holds its epoch and a tuple of its
    results (most keys hold one), not a container of its own. The keys are dropped oldest first past the
    cap, in the order `order` keeps (a plain dict's first key is found by a scan past the deleted ones).
    """

    def __init__(self) -> None:
        self.keys: dict[str, tuple[int, tuple[int, ...]]] = {}  # key -> (epoch, its results, oldest first)
        self.order: deque[str] = deque()  # the keys, oldest first
        self.anywhere: tuple[int, dict[int, None]] = (0, {})
        self.lines: tuple[int, set[int]] = (0, set())

    def novel(self, result: int, epoch: int) -> bool:
        """Whether no call at all returned this result since the workspace last changed (and remember it):
        the turn learned something, whatever call brought it.
        """
        if self.anywhere[0] != epoch:
            self.anywhere = (epoch, {})
        results = self.anywhere[1]
        if result in results:
            return False
        results[result] = None
        if len(results) > KEYS_CAP * 2:
            del results[next(iter(results))]
        return True

    def new_lines(self, folded: str, epoch: int) -> int:
        """How many lines of a folded result no result said since the workspace last changed (and
        remember them): an error line re-worded is one, a poll that prints new output adds several.
        """
        if self.lines[0] != epoch:
            self.lines = (epoch, set())
        seen = self.lines[1]
        if len(folded) < 4:  # no line says enough (below): nothing to count or remember
            if len(seen) > LINES_CAP:
                seen.clear()
            return 0
        # a line says enough with `substance(line) >= 4`; a stripped line whose first three characters and
        # last (none a space) already make four is not joined to count (asked of every line of every result)
        fresh = {
            hash(line)
            for line in map(str.strip, folded.split("\n"))
            if len(line) >= 4 and ((not line[1].isspace() and not line[2].isspace()) or substance(line) >= 4)
        }
        fresh -= seen
        if len(seen) > LINES_CAP:
            seen.clear()
        seen |= fresh
        return len(fresh)

    def new(self, key: str, result: int, epoch: int) -> bool:
        """Whether `result` is new for this key: never returned since the epoch (a change) — False for a
        key never seen (a first call is not news about a repeat).
        """
        entry = self.keys.get(key)
        if entry is None:
            return False
        return entry[0] != epoch or result not in entry[1]

    def add(self, key: str, result: int, epoch: int) -> None:
        """Remember that this key returned `result` at this epoch (a new epoch forgets older results)."""
        self.add_all((key,), result, epoch)

    def add_all(self, keys: tuple[str, ...], result: int, epoch: int) -> None:
        """`add` for each of these keys (one call's fingerprints and the call itself), in one pass."""
        table = self.keys
        fresh: tuple[int, tuple[int, ...]] | None = (
            None  # one entry for every key that starts over here (entries are never changed in place)
        )
        for key in keys:
            entry = table.get(key)
            if entry is None or entry[0] != epoch:
                if entry is None:
                    if len(table) >= KEYS_CAP:
                        del table[self.order.popleft()]
                    self.order.append(key)
                if fresh is None:
                    fresh = (epoch, (result,))
                table[key] = fresh
                continue
            results = entry[1]
            if results[-1] == result:
                continue  # already the latest
            if result in results:
                table[key] = (epoch, (*(r for r in results if r != result), result))
            else:
                table[key] = (epoch, (results if len(results) < RESULTS_PER_KEY else results[1:]) + (result,))

    def clear(self) -> None:
        """Forget every key."""
        self.keys.clear()
        self.order.clear()
        self.anywhere = (0, {})
        self.lines = (0, set())
