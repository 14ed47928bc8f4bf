#!/usr/bin/env python3
"""Check the console transcripts in Roqua's documentation against the real programs.

Every fenced block marked ```console in README.md, docs/*.md and chat/README.md is a
transcript: a line starting with "$ " is a command (a line ending in a backslash continues on
the next one), and the lines after it, up to the next command, are the output it must print —
standard output and standard error together, in the order written. Blocks marked ```sh (or
anything else) are not run.

Each command runs with `bash -c` in a sandbox that is fresh for every file and shared by all
the blocks of that file, in order (a README can import in one block and show statistics in a
later one). The sandbox is a temporary directory used as the working directory and as HOME, with
  XDG_DATA_HOME=$HOME/.local/share  TZ=UTC  LANG=C.UTF-8  NO_COLOR=1
  PATH=the tour-group package's binaries (--chat-bin) when that directory exists, then the
       geocoder's (--bin), then /usr/bin:/bin — the chat programs first, so that a stale
       roqua-chat left in an older geocoder build directory is not the one run
  ROQUA_REPO=the repository  ROQUA_DATA=its data/ (so `roqua import` finds the bundled
       boundaries wherever the binaries are)
and `examples/` in it holds links to the repository's example files: scripts/examples/* and the
track fixtures of Tests/Fixtures/tracks/*. Files are checked in parallel (-j), each in its own
sandbox.

Expected output is compared exactly, line by line, except that trailing whitespace and
trailing empty lines are ignored, and that a `…` (U+2026) touching no letter or digit — a word
of its own, or inside punctuation as in `"sr_…"` or `(user …)` — matches any run of characters
within the line: for output that differs by nature from run to run (elapsed times, temporary
paths, today's date, random ids and tokens). A `…` next to a letter or digit (`-90…90`,
`…f13a69`) is literal. Exit statuses are not compared: show them with `echo $?` (each command
starts with `$?` set to the previous command's status, as in an interactive shell).

Processes a transcript leaves running in the background (a server it started) are stopped when
its file is done. Any difference fails the check (exit 1) with a unified diff naming file:line.

    scripts/checks/check-docs.py [--bin DIR] [--chat-bin DIR] [--only FILE] [-v] [--keep] [-j JOBS]
"""

import argparse
import concurrent.futures
import difflib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WILDCARD = "\u2026"
# Where the example files live: every file of those that exist is linked into the sandbox's examples/.
EXAMPLE_DIRS = ["scripts/examples", "examples", "Tests/Fixtures/tracks"]
COMMAND_TIMEOUT = 600  # seconds; a bundled import takes about half a minute in a debug build


class Command:
    def __init__(self, path, line, text, expected):
        self.path = path          # the Markdown file
        self.line = line          # 1-based line of the "$ " line
        self.text = text          # the shell command
        self.expected = expected  # list of expected output lines
        self.output_line = line   # 0-based index of the first expected line (set by the parser)


def parse_blocks(path):
    """Return the console blocks of a Markdown file, each a list of Commands."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks = []
    fence = None        # the open fence's marker ("```", "````", "~~~"), or None
    console = False
    current = None
    command = None
    i = 0
    while i < len(lines):
        raw = lines[i]
        stripped = raw.strip()
        if fence is None:
            m = re.match(r"^(`{3,}|~{3,})\s*([^\s`]*)", stripped)
            if m:
                fence = m.group(1)
                console = m.group(2) == "console"
                current = [] if console else None
                command = None
            i += 1
            continue
        if stripped.startswith(fence) and stripped.strip(fence[0]) == "":
            if console:
                blocks.append(current)
            fence, console, current, command = None, False, None, None
            i += 1
            continue
        if console:
            if raw.startswith("$ ") or raw == "$":
                start = i
                text = raw[2:]
                while text.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    text = text + "\n" + lines[i]
                command = Command(path, start + 1, text, [])
                command.output_line = i + 1
                current.append(command)
            elif command is not None:
                command.expected.append(raw)
            elif stripped:
                sys.exit(f"{path}:{i + 1}: a console block must start with a '$ ' command line")
        i += 1
    if fence is not None:
        sys.exit(f"{path}: a code block is never closed")
    return blocks


def trim(lines):
    lines = [line.rstrip() for line in lines]
    while lines and lines[-1] == "":
        lines.pop()
    return lines


def line_pattern(expected):
    """A regex for an expected line: literal text, each `…` that touches no letter or digit
    matching anything."""
    parts = re.split(r"(?<![^\W_])" + WILDCARD + r"(?![^\W_])", expected)
    if len(parts) == 1:
        return None
    return re.compile("".join(re.escape(p) + (".*" if k < len(parts) - 1 else "")
                              for k, p in enumerate(parts)) + r"\Z", re.DOTALL)


def line_matches(expected, actual):
    pattern = line_pattern(expected)
    if pattern is None:
        return expected == actual
    return pattern.match(actual) is not None


def compare(expected, actual):
    """None when they match, else the actual lines with wildcard matches shown as expected."""
    if len(expected) == len(actual) and all(line_matches(e, a) for e, a in zip(expected, actual)):
        return None
    shown = list(actual)
    for k in range(min(len(expected), len(actual))):
        if line_matches(expected[k], actual[k]):
            shown[k] = expected[k]
    return shown


def link_examples(sandbox):
    target = os.path.join(sandbox, "examples")
    os.mkdir(target)
    for directory in EXAMPLE_DIRS:
        source = os.path.join(REPO, directory)
        if not os.path.isdir(source):
            continue
        for name in sorted(os.listdir(source)):
            path = os.path.join(source, name)
            if name == "README.md" or not (os.path.isfile(path) or os.path.isdir(path)):
                continue
            link = os.path.join(target, name)
            if not os.path.lexists(link):
                os.symlink(path, link)


def environment(sandbox, bin_dirs):
    return {
        "HOME": sandbox,
        "XDG_DATA_HOME": os.path.join(sandbox, ".local", "share"),
        "TZ": "UTC",
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
        "PATH": ":".join(bin_dirs + ["/usr/bin", "/bin"]),
        "ROQUA_REPO": REPO,
        "ROQUA_DATA": os.path.join(REPO, "data"),
    }


def run_command(command, sandbox, env, groups, previous_status):
    # `(exit N)` first, so that `$?` is the previous command's status, as in a shell session.
    script = f"(exit {previous_status})\n{command.text}"
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(["bash", "-c", script], cwd=sandbox, env=env,
                                   stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        groups.append(process.pid)
        try:
            process.wait(timeout=COMMAND_TIMEOUT)
        except subprocess.TimeoutExpired:
            stop_groups([process.pid])
            process.wait()
            out.seek(0)
            text = out.read().decode("utf-8", errors="replace")
            return text.split("\n") + [f"[check-docs: killed after {COMMAND_TIMEOUT} s]"], shell_status(process)
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
    return text.split("\n"), shell_status(process)


def shell_status(process):
    """The status as a shell shows it in `$?`: 128 + N for a process killed by signal N."""
    return 128 - process.returncode if process.returncode < 0 else process.returncode


def stop_groups(groups):
    for pgid in groups:
        try:
            os.killpg(pgid, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass


def update_file(path, changes):
    """Write each changed command's actual output (wildcard-matched lines kept as written) in
    place of its expected lines."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for command, shown in sorted(changes, key=lambda c: c[0].output_line, reverse=True):
        start = command.output_line
        lines[start:start + len(trim(command.expected))] = shown
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def check_file(path, bin_dirs, verbose, keep, update=False):
    """Run one file's transcripts; return (blocks, commands, failures, report lines). With
    `update`, differing outputs are written into the file instead of only reported."""
    relative = os.path.relpath(path, REPO)
    blocks = parse_blocks(path)
    commands = sum(len(b) for b in blocks)
    report = []
    if not blocks:
        return 0, 0, 0, report
    file_started = time.monotonic()
    sandbox = tempfile.mkdtemp(prefix="roqua-docs-")
    groups = []
    failures = 0
    changes = []
    try:
        os.makedirs(os.path.join(sandbox, ".local", "share"))
        link_examples(sandbox)
        env = environment(sandbox, bin_dirs)
        status = 0
        for block in blocks:
            for command in block:
                started = time.monotonic()
                actual, status = run_command(command, sandbox, env, groups, status)
                elapsed = time.monotonic() - started
                expected = trim(command.expected)
                actual = trim(actual)
                shown = compare(expected, actual)
                if verbose:
                    mark = "ok  " if shown is None else "FAIL"
                    first = command.text.split("\n")[0]
                    report.append(f"{mark} {relative}:{command.line} ({elapsed:.2f} s, exit {status}) $ {first}")
                if shown is not None:
                    failures += 1
                    changes.append((command, shown))
                    diff = difflib.unified_diff(
                        expected, shown, lineterm="",
                        fromfile=f"{relative}:{command.line} (expected)",
                        tofile=f"{relative}:{command.line} (actual, exit {status})")
                    report.append(f"{relative}:{command.line}: output differs for $ {command.text}")
                    report.extend(diff)
        if update and changes:
            update_file(path, changes)
            report.append(f"{relative}: {len(changes)} transcript(s) updated")
    finally:
        stop_groups(groups)
        if keep:
            report.append(f"{relative}: sandbox kept in {sandbox}")
        else:
            shutil.rmtree(sandbox, ignore_errors=True)
    if verbose:
        report.append(f"{relative}: {len(blocks)} block(s), {commands} command(s), {failures} failed, "
                      f"{time.monotonic() - file_started:.1f} s")
    return len(blocks), commands, failures, report


def documentation_files():
    files = [os.path.join(REPO, "README.md")]
    docs = os.path.join(REPO, "docs")
    if os.path.isdir(docs):
        files += [os.path.join(docs, n) for n in sorted(os.listdir(docs)) if n.endswith(".md")]
    chat = os.path.join(REPO, "chat", "README.md")
    if os.path.isfile(chat):
        files.append(chat)
    return [f for f in files if os.path.isfile(f)]


def main():
    parser = argparse.ArgumentParser(description="Run the ```console transcripts of README.md, "
                                                 "docs/*.md and chat/README.md and compare their output.")
    parser.add_argument("--bin", default=os.path.join(REPO, ".build", "debug"),
                        help="where roqua and roqua-serve are (default: .build/debug)")
    parser.add_argument("--chat-bin", default=os.path.join(REPO, "chat", ".build", "debug"),
                        help="where roqua-chat and roqua-chat-server are, put on PATH before --bin when it exists "
                             "(default: chat/.build/debug)")
    parser.add_argument("--only", metavar="FILE", help="check only this Markdown file")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every command and its time")
    parser.add_argument("--keep", action="store_true", help="keep the sandboxes (their paths are printed)")
    parser.add_argument("--update", action="store_true",
                        help="write the actual outputs into the files where they differ (review the diff before committing)")
    parser.add_argument("-j", "--jobs", type=int, default=min(4, os.cpu_count() or 1),
                        help="files checked at once, each in its own sandbox (default: the cores, at most 4)")
    args = parser.parse_args()

    bin_dir = os.path.abspath(args.bin)
    if not os.path.isfile(os.path.join(bin_dir, "roqua")):
        sys.exit(f"check-docs: no roqua in {bin_dir} (build it, or give --bin DIR)")
    bin_dirs = [bin_dir]
    if os.path.isdir(args.chat_bin):
        bin_dirs.insert(0, os.path.abspath(args.chat_bin))
    if args.only:
        only = os.path.abspath(args.only)
        if not os.path.isfile(only):
            only = os.path.join(REPO, args.only)
        if not os.path.isfile(only):
            sys.exit(f"check-docs: no such file: {args.only}")
        files = [only]
    else:
        files = documentation_files()

    started = time.monotonic()
    total_blocks = total_commands = total_failures = 0
    # Files are independent (a sandbox each), so several run at once; each one's report is
    # printed whole when it is done.
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(check_file, path, bin_dirs, args.verbose, args.keep, args.update) for path in files]
        for future in concurrent.futures.as_completed(futures):
            blocks, commands, failures, report = future.result()
            total_blocks += blocks
            total_commands += commands
            total_failures += failures
            if report:
                print("\n".join(report), flush=True)
    elapsed = time.monotonic() - started
    print(f"check-docs: {len(files)} file(s), {total_blocks} console block(s), {total_commands} command(s): "
          f"{total_failures} failed ({elapsed:.1f} s)")
    sys.exit(1 if total_failures else 0)


if __name__ == "__main__":
    main()
