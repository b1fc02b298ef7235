"""Starts and stops sift-server for the tests in this folder.

A server runs on a port the kernel picks (--port 0; the port is read from
its log line "Ready to accept connections tcp on port N"), on a database
directory under a temporary folder, and is stopped by pid.
"""
import os
import re
import signal
import socket
import subprocess
import tempfile
import time


class SiftServer:
    def __init__(self, binary, db=None, args=(), config=None):
        self.binary = binary
        self.tmp = tempfile.mkdtemp(prefix="sift-server-test-")
        self.db = db or os.path.join(self.tmp, "db")
        self.args = list(args)
        self.config = config
        self.proc = None
        self.port = None
        self.log_path = os.path.join(self.tmp, "log")
        # The process's own stdout and stderr (sanitizer reports land here).
        self.out_path = os.path.join(self.tmp, "out")

    def start(self, expect_fail=False):
        cmd = [self.binary]
        if self.config:
            cmd.append(self.config)
        cmd += ["--db", self.db, "--port", "0", "--logfile", self.log_path]
        cmd += self.args
        with open(self.log_path, "a") as log:
            log.write("=== start\n")
        self.out = open(self.out_path, "ab")
        self.proc = subprocess.Popen(cmd, stdout=self.out,
                                     stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                if expect_fail:
                    return self.proc.returncode
                raise AssertionError("sift-server exited %d:\n%s%s" % (
                    self.proc.returncode, self.read_log(), self.output()))
            m = re.findall(r"Ready to accept connections tcp on port (\d+)",
                           self.read_log().split("=== start\n")[-1])
            if m:
                self.port = int(m[-1])
                return 0
            time.sleep(0.02)
        raise AssertionError("sift-server did not start:\n" + self.read_log())

    def output(self):
        with open(self.out_path, errors="replace") as f:
            return f.read()

    def check_clean(self):
        """Fails if a sanitizer reported anything."""
        out = self.output()
        for bad in ("ERROR: AddressSanitizer", "runtime error:",
                    "ERROR: LeakSanitizer", "WARNING: ThreadSanitizer"):
            if bad in out:
                raise AssertionError("sift-server: " + bad + "\n" + out[-4000:])

    def read_log(self):
        try:
            with open(self.log_path) as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def kill9(self):
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=20)

    def terminate(self):
        """SIGTERM; returns the exit code."""
        os.kill(self.proc.pid, signal.SIGTERM)
        return self.proc.wait(timeout=30)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.terminate()
        if self.proc is not None:
            self.check_clean()

    def connect_raw(self):
        s = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        return s


def raw_roundtrip(sock, data, expect_close=False, timeout=5):
    """Sends bytes and reads until a full line arrived (or the peer closed)."""
    sock.sendall(data)
    sock.settimeout(timeout)
    out = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        out += chunk
        if not expect_close and out.endswith(b"\r\n"):
            break
    return out
