#!/usr/bin/env python3
"""JSON by types: every answer a program prints or sends is one Codable type written by one
encoder. This check finds JSON put together by hand in Sources/ and chat/Sources/ — `JSONText.quote`,
`JSONSerialization`, a string literal holding a quoted key and a colon (`"{\\"lat\\":"`, raw
`#"{"pulled":"#`) — and fails naming each FILE:LINE, unless scripts/checks/json-by-types.allow
allows it. An allowed entry that no longer matches anything fails too, so the list only shrinks.

Usage: scripts/checks/json-by-types.py        (from anywhere; exit 1 on a finding)"""
import os, re, sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
FOLDERS = ['Sources', 'chat/Sources']
ALLOW = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'json-by-types.allow')
PATTERNS = [
    ('JSONText.quote', re.compile(r'JSONText\.quote')),
    ('JSONSerialization', re.compile(r'JSONSerialization')),
    ('a quoted key and a colon in a string', re.compile(r'\\"[^"\\]*\\"\s*:')),
    ('a quoted key and a colon in a raw string', re.compile(r'#"[^"]*"[A-Za-z_][A-Za-z0-9_]*"\s*:')),
]


def allowlist():
    """[(path, text or None)]: `PATH` allows every finding in the file, `PATH | TEXT` the lines holding TEXT."""
    entries = []
    with open(ALLOW, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            line = line.split('#', 1)[0].strip() if not line.lstrip().startswith('#') else ''
            if not line:
                continue
            path, _, text = (part.strip() for part in line.partition('|'))
            if not os.path.isfile(os.path.join(ROOT, path)):
                sys.exit(f'{os.path.relpath(ALLOW, ROOT)}:{number}: no such file: {path}')
            entries.append((path, text or None))
    return entries


def findings():
    for folder in FOLDERS:
        for directory, _, files in os.walk(os.path.join(ROOT, folder)):
            for name in sorted(files):
                if not name.endswith('.swift'):
                    continue
                path = os.path.relpath(os.path.join(directory, name), ROOT)
                with open(os.path.join(ROOT, path), encoding='utf-8') as f:
                    for number, line in enumerate(f, 1):
                        if line.lstrip().startswith('//'):
                            continue  # a comment may show JSON
                        for what, pattern in PATTERNS:
                            if pattern.search(line):
                                yield path, number, line.rstrip('\n'), what
                                break


def main():
    entries = allowlist()
    used = set()
    failed = 0
    for path, number, line, what in findings():
        allowed = [i for i, (p, text) in enumerate(entries) if p == path and (text is None or text in line)]
        if allowed:
            used.update(allowed)
            continue
        failed += 1
        print(f'{path}:{number}: JSON built by hand ({what}): {line.strip()[:160]}')
    for i, (path, text) in enumerate(entries):
        if i not in used:
            failed += 1
            print(f'{os.path.relpath(ALLOW, ROOT)}: {path}{" | " + text if text else ""} allows nothing any more: remove it')
    if failed:
        print(f'{failed} finding(s): write a Codable type and print it with the program\'s one encoder '
              '(RoquaProgram.printJSON, ChatOutput.json, JSONBody)', file=sys.stderr)
        return 1
    print(f'ok   no JSON built by hand outside the {len(entries)} allowed entries of {os.path.relpath(ALLOW, ROOT)}')
    return 0


if __name__ == '__main__':
    sys.exit(main())
