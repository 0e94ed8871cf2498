"""Re-make the corpus traces of the formats that now have an importer, from their originals.

The mini-swe-agent, Codex, opencode, pi/OpenClaw and Gemini CLI traces were first made by
`convert.py`'s throwaway readers; this reads each original (from a local mirror of its repository at
the recorded commit, or from `formats/`) through `wrapper.records.importers` (what `scan FILE` does),
trims it as `convert.finish` did, and keeps the file's labelled `meta` line. Run from the checkout:
`python tests/data/real/tools/reimport.py MIRRORS_DIR` (MIRRORS_DIR holds `owner+name/repo` git dirs).
Kept as the provenance record, outside ruff and mypy, as `convert.py` is.
"""
import json, subprocess, sys, tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[3]
sys.path.insert(0, str(HERE))
try:  # the checkout's packages only when no installed breaker-tui is importable
    import wrapper  # noqa: F401
except ImportError:
    sys.path.insert(0, str(ROOT))
import convert  # noqa: E402
from wrapper.records.importers import imported_objects  # noqa: E402

NAMES = {"mini-swe-agent": "mini-swe-agent", "codex": "codex", "opencode": "opencode", "pi": "openclaw", "gemini-cli": "gemini-cli"}
CORPUS = HERE.parent


def original(entry, mirrors):
    if entry["format"] == "gemini-cli":
        return (CORPUS / "formats" / "gemini-cli.chat.fragment.json").read_bytes()
    repo = mirrors / entry["repo"].replace("/", "+") / "repo"
    path = entry["path"].split(" (", 1)[0]
    if entry["repo"] == "tomjnsn/agentlogs":
        path = "fixtures/" + path.removeprefix("fixtures/")
    return subprocess.run(["git", "--git-dir", str(repo), "show", f"{entry['commit']}:{path}"], capture_output=True, check=True).stdout


def main(mirrors):
    manifest = json.loads((CORPUS / "manifest.json").read_text())
    changed = 0
    for e in manifest:
        if e["format"] not in NAMES:
            continue
        raw = original(e, mirrors)
        suffix = ".jsonl" if e["format"] in ("codex", "pi") else ".json"
        with tempfile.NamedTemporaryFile(suffix=suffix) as f:
            f.write(raw); f.flush()
            events = convert.finish([o for _, o in imported_objects(NAMES[e["format"]], Path(f.name)) if o["t"] != "meta"])
        target = CORPUS / e["file"]
        lines = target.read_text().splitlines()
        meta = json.loads(lines[0])
        old = [json.loads(ln) for ln in lines[1:]]
        if old != events:
            changed += 1
            target.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in [meta, *events]))
            print(f"{e['file']}: {len(old)} -> {len(events)} events")
        e["converter"] = f"importer {NAMES[e['format']]}"
    (CORPUS / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    print(f"{changed} trace(s) changed")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
