#!/usr/bin/env python3
"""docs/cli.md's synopsis against the binary: every subcommand `sluice --help` lists has a
synopsis line, and every flag its `--help` prints is on that line. Usage: check_cli_synopsis.py
SLUICE_BINARY DOCS_CLI_MD; exits 1 naming what is missing."""
import re
import subprocess
import sys


def help_text(binary, words):
    return subprocess.run([binary, *words, "--help"], capture_output=True, text=True, check=True).stdout


def subcommands(text):
    """The names under 'Subcommands:' of a --help text."""
    if "Subcommands:" not in text:
        return []
    return [m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*)\s", text.split("Subcommands:", 1)[1], re.M)]


def flags(text):
    """The long flags of a --help text's Options (--help itself aside)."""
    return sorted({f for f in re.findall(r"^\s+(?:-[a-zA-Z],)?(--[a-z][a-z-]*)", text, re.M) if f != "--help"})


def main(binary, doc_path):
    synopsis = re.search(r"```\n(.*?)```", open(doc_path).read(), re.S).group(1).splitlines()
    problems, commands, todo = [], 0, [[w] for w in subcommands(help_text(binary, []))]
    while todo:
        words = todo.pop(0)
        text = help_text(binary, words)
        nested = subcommands(text)
        if nested:
            todo += [words + [n] for n in nested]
            continue
        commands += 1
        prefix = "sluice " + " ".join(words)
        lines = [line for line in synopsis if line == prefix or line.startswith(prefix + " ")]
        if not lines:
            problems.append(f"'{prefix}' has no synopsis line in {doc_path}")
            continue
        problems += [f"'{prefix}': flag {f} is not in its synopsis line in {doc_path}"
                     for f in flags(text) if not re.search(re.escape(f) + r"\b", lines[0])]
    if commands < 7:
        problems.append(f"only {commands} commands found in `{binary} --help`: is the help format still parsed?")
    for p in problems:
        print(p)
    print(f"{commands} commands checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
