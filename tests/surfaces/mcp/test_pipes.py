"""stdio's pipes read and written on the event loop (surfaces/mcp/pipes.py), in a child
process of their own: lines of any length come whole, an answer bigger than the pipe is
written whole, stray output while serving lands on stderr, not on the wire, and stdin
that is not a pipe falls back to the SDK's files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

CHILD = textwrap.dedent('''
    import json, os, sys
    import anyio
    from shopfloor.surfaces.mcp.pipes import loop_stdio

    async def serve(lines, out) -> None:
        async for line in lines:
            print("stray print")
            os.write(1, b"stray write\\n")
            size = int(line.split(" ", 1)[0]) if line[:1].isdigit() else 0
            await out.write(json.dumps({"got": len(line), "tail": line[-12:],
                                        "pad": "x" * size}) + "\\n")
            await out.flush()

    async def main() -> None:
        async with loop_stdio() as pipes:
            if pipes is None:
                sys.stderr.write("fallback\\n")
            else:
                await serve(*pipes)
        print("after", flush=True)

    anyio.run(main)
''')


def run_child(stdin: bytes | Path) -> subprocess.CompletedProcess[bytes]:
    """The child with its stdout buffered, as a host's pipe makes it: a stray print still
    in the buffer when the wire is given back must not reach it."""
    argv = [sys.executable, "-c", CHILD]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if isinstance(stdin, Path):
        with stdin.open("rb") as f:
            return subprocess.run(argv, stdin=f, env=env, capture_output=True, timeout=60,
                                  check=True)
    return subprocess.run(argv, input=stdin, env=env, capture_output=True, timeout=60,
                          check=True)


def test_lines_of_any_length_come_whole_and_stray_output_misses_the_wire() -> None:
    long_line = b"0 " + b"y" * 300_000 + b"end\n"
    sent = long_line + b"2000000 big answer\n" + b"\xff\xfe bad bytes\n" + b"last, unterminated"
    done = run_child(sent)
    wire = done.stdout.decode().splitlines()
    answers = [json.loads(line) for line in wire[:-1]]
    assert [(a["got"], a["tail"]) for a in answers] == [
        (len(long_line), "yyyyyyyyend\n"), (19, " big answer\n"),
        (len(b"\xff\xfe bad bytes\n".decode(errors="replace")), "\ufffd bad bytes\n"),
        (len("last, unterminated"), "unterminated")]
    assert len(answers[1]["pad"]) == 2_000_000
    assert wire[-1] == "after"  # fd 1 is the wire again once the pipes are let go
    assert done.stderr.decode().count("stray print") == 4
    assert done.stderr.decode().count("stray write") == 4


def test_stdin_from_a_file_falls_back_to_the_sdk_files(tmp_path: Path) -> None:
    given = tmp_path / "in.jsonl"
    given.write_bytes(b"1 line\n")
    done = run_child(given)
    assert done.stderr.decode() == "fallback\n"
    assert done.stdout.decode() == "after\n"
