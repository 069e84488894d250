"""Runs a command on a pseudo-terminal (python's pty) and reads the screen back as a terminal
would show it: carriage returns move to column 0, ESC[K erases to the end of the line, text
overwrites. Tests of what a user sees in a terminal compare these visible lines."""
import os
import pty
import re
import select
import subprocess

_ESCAPE = re.compile(r"\x1b\[([0-9;]*)([A-Za-z])")


def run_on_terminal(argv, env=None, timeout=600, columns=200):
    """Runs argv with stdout and stderr on one pty (as in a terminal); returns (exit status, raw
    text). The width is set so progress lines are not cut."""
    master, slave = pty.openpty()
    import fcntl
    import struct
    import termios
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    full_env = dict(os.environ, **(env or {}))
    proc = subprocess.Popen([str(a) for a in argv], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave,
                            env=full_env, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], timeout)
        if not ready:
            proc.kill()
            raise AssertionError(f"{argv}: no output for {timeout} s")
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    status = proc.wait(timeout=timeout)
    return status, b"".join(chunks).decode("utf-8", "replace")


def visible_lines(text):
    """The lines a terminal shows after text is written to it (the pty turns \\n into \\r\\n)."""
    lines = []
    for raw in text.replace("\r\n", "\n").split("\n"):
        buf, col, pos = [], 0, 0
        while pos < len(raw):
            m = _ESCAPE.match(raw, pos)
            if m:
                if m.group(2) == "K":
                    del buf[col:]
                pos = m.end()
                continue
            ch = raw[pos]
            pos += 1
            if ch == "\r":
                col = 0
                continue
            if col < len(buf):
                buf[col] = ch
            else:
                buf.append(ch)
            col += 1
        lines.append("".join(buf))
    if lines and lines[-1] == "":
        lines.pop()
    return lines
