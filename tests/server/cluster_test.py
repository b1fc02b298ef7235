#!/usr/bin/env python3
"""tools/cluster.sh: sift-servers behind twemproxy (nutcracker) with ketama.

    cluster_test.py <tools/cluster.sh> <sift-server>

Checks that GET/SET/DEL/MGET/INCR through the proxy reach exactly one server
per key, spread over all of them, that a server's restart loses none of its
keys and the proxy serves them again, and that BF.* is not passed through
(twemproxy does not know it). Exits 77 (ctest: skipped), saying why, when
nutcracker or python3-redis is missing; tools/setup.sh installs both.
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest

try:
    import redis
except ImportError:
    print("SKIPPED: python3-redis is not installed (tools/setup.sh installs it)")
    sys.exit(77)

CLUSTER = SERVER = None
N = 3


def free_ports(n):
    socks, ports = [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def free_base(n):
    """A base port with base+1..base+n free."""
    for _ in range(50):
        base = free_ports(1)[0]
        if base + n >= 65535:
            continue
        ok = True
        for p in range(base + 1, base + n + 1):
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", p))
                except OSError:
                    ok = False
        if ok:
            return base
    raise AssertionError("no free port range")


class ClusterTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="sift-cluster-")
        self.proxy_port, stats = free_ports(2)
        self.base = free_base(N)
        self.env = dict(os.environ, PROXY_PORT=str(self.proxy_port),
                        BASE_PORT=str(self.base), STATS_PORT=str(stats),
                        SIFT_SERVER=SERVER)
        self.run_cluster("start", str(N), self.dir)

    def tearDown(self):
        self.run_cluster("stop", self.dir)
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_cluster(self, *args):
        out = subprocess.run([CLUSTER] + list(args), env=self.env,
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        return out.stdout

    def proxy(self):
        return redis.Redis(port=self.proxy_port, socket_timeout=10)

    def servers(self):
        return [redis.Redis(port=self.base + i, socket_timeout=10)
                for i in range(1, N + 1)]

    def retry(self, fn, seconds=10):
        deadline = time.time() + seconds
        while True:
            try:
                return fn()
            except redis.RedisError:
                if time.time() > deadline:
                    raise
                time.sleep(0.2)

    def test_keys_reach_one_server_each_and_survive_a_restart(self):
        p = self.proxy()
        keys = ["user:%d" % i for i in range(300)]
        for k in keys:
            self.assertTrue(p.set(k, "v-" + k))
        self.assertEqual(p.incr("counter"), 1)
        self.assertEqual(p.incr("counter"), 2)
        owner = {}
        per_server = [0] * N
        for k in keys:
            holders = [i for i, s in enumerate(self.servers())
                       if s.get(k) == ("v-" + k).encode()]
            self.assertEqual(len(holders), 1, k)
            owner[k] = holders[0]
            per_server[holders[0]] += 1
        self.assertTrue(all(n > 30 for n in per_server), per_server)
        # MGET is split per server by the proxy and reassembled in order.
        self.assertEqual(p.mget(keys[:50] + ["absent"]),
                         [("v-" + k).encode() for k in keys[:50]] + [None])
        self.assertEqual(p.delete(keys[0], keys[1], "absent"), 2)
        self.assertEqual(p.exists(keys[0]), 0)
        self.assertIsNone(self.servers()[owner[keys[0]]].get(keys[0]))

        # Restart the server holding keys[2]: its keys come back, and the
        # proxy serves them (it reconnects after server_retry_timeout).
        victim = owner[keys[2]]
        self.run_cluster("restart-server", str(victim + 1), self.dir)
        got = self.retry(lambda: self.proxy().get(keys[2]))
        self.assertEqual(got, ("v-" + keys[2]).encode())
        mine = [k for k in keys[2:] if owner[k] == victim]
        self.assertEqual(self.retry(lambda: self.proxy().mget(mine)),
                         [("v-" + k).encode() for k in mine])
        self.assertEqual(self.retry(lambda: self.proxy().set("after", "1")),
                         True)

    def test_bf_commands_are_not_proxied(self):
        p = self.proxy()
        with self.assertRaises(redis.RedisError):
            p.execute_command("BF.ADD", "filter", "x")
        # Clients shard filters themselves: a filter key goes to the server
        # the client picks, directly.
        s = self.servers()[0]
        self.assertEqual(s.execute_command("BF.ADD", "filter", "x"), 1)
        self.assertTrue(self.proxy().set("still", "works"))


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    CLUSTER = os.path.abspath(sys.argv.pop(1))
    SERVER = os.path.abspath(sys.argv.pop(1))
    if not shutil.which("nutcracker"):
        print("SKIPPED: nutcracker (twemproxy) is not installed "
              "(tools/setup.sh installs Debian's nutcracker)")
        sys.exit(77)
    unittest.main(verbosity=2)
