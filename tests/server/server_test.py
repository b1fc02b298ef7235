#!/usr/bin/env python3
"""sift-server driven by real clients: redis-py (python3-redis), redis-cli
and redis-benchmark (redis-tools), and raw sockets for what clients never
send (malformed RESP, RESP3 frames).

    server_test.py <path to sift-server> [unittest args]

Exits 77 (ctest: skipped) when python3-redis or redis-tools is missing,
saying so; tools/setup.sh installs them.
"""
import os
import shutil
import socket
import subprocess
import sys
import time
import unittest

try:
    import redis
except ImportError:
    print("SKIPPED: python3-redis is not installed (tools/setup.sh installs it)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import SiftServer, raw_roundtrip  # noqa: E402

BINARY = None
NEEDED_TOOLS = ("redis-cli", "redis-benchmark")


class ServerCase(unittest.TestCase):
    server_args = ()

    def setUp(self):
        self.server = SiftServer(BINARY, args=self.server_args)
        self.server.start()
        self.r = self.client()

    def tearDown(self):
        self.server.stop()
        shutil.rmtree(self.server.tmp, ignore_errors=True)

    def client(self, **kw):
        return redis.Redis(port=self.server.port, socket_timeout=20, **kw)

    def restart(self, kill9=False):
        if kill9:
            self.server.check_clean()
            self.server.kill9()
        else:
            self.assertEqual(self.server.terminate(), 0, self.server.read_log())
        self.server.start()
        self.r = self.client()

    def raw(self, data, expect_close=False):
        with self.server.connect_raw() as s:
            return raw_roundtrip(s, data, expect_close)


class StringCommandsTest(ServerCase):
    def test_get_set_and_options(self):
        r = self.r
        self.assertTrue(r.ping())
        self.assertEqual(r.echo("hi"), b"hi")
        self.assertTrue(r.set("k", "v"))
        self.assertEqual(r.get("k"), b"v")
        self.assertIsNone(r.get("absent"))
        self.assertIsNone(r.set("k", "w", nx=True))
        self.assertEqual(r.get("k"), b"v")
        self.assertTrue(r.set("k", "w", xx=True))
        self.assertIsNone(r.set("nope", "x", xx=True))
        self.assertIsNone(r.get("nope"))
        self.assertTrue(r.set("new", "x", nx=True))
        self.assertEqual(r.set("k", "z", get=True), b"w")
        self.assertEqual(r.get("k"), b"z")
        with self.assertRaisesRegex(redis.ResponseError, "syntax error"):
            r.execute_command("SET", "k", "v", "NX", "XX")
        with self.assertRaisesRegex(redis.ResponseError, "do not expire"):
            r.set("k", "v", ex=10)
        self.assertEqual(r.get("k"), b"z")  # a refused SET wrote nothing
        self.assertTrue(r.setnx("sn", "1"))
        self.assertFalse(r.setnx("sn", "2"))
        self.assertEqual(r.getdel("sn"), b"1")
        self.assertIsNone(r.get("sn"))
        self.assertEqual(r.append("ap", "ab"), 2)
        self.assertEqual(r.append("ap", "cd"), 4)
        self.assertEqual(r.strlen("ap"), 4)
        self.assertEqual(r.strlen("absent"), 0)

    def test_binary_and_empty(self):
        r = self.r
        key, value = b"\x00k\xff\r\n", b"\x00\r\nvalue\xff" * 1000
        r.set(key, value)
        self.assertEqual(r.get(key), value)
        r.set("empty", "")
        self.assertEqual(r.get("empty"), b"")
        self.assertEqual(r.exists("empty"), 1)

    def test_del_exists_mget_mset_type(self):
        r = self.r
        self.assertTrue(r.mset({"a": "1", "b": "2", "c": "3"}))
        self.assertEqual(r.mget("a", "b", "x", "c"), [b"1", b"2", None, b"3"])
        self.assertEqual(r.exists("a", "b", "x", "a"), 3)
        self.assertEqual(r.delete("a", "x", "b"), 2)
        self.assertEqual(r.unlink("c"), 1)
        self.assertEqual(r.exists("a", "b", "c"), 0)
        r.set("s", "1")
        r.execute_command("BF.ADD", "f", "x")
        self.assertEqual(r.type("s"), b"string")
        self.assertEqual(r.type("f"), b"MBbloom--")
        self.assertEqual(r.type("none"), b"none")
        with self.assertRaisesRegex(redis.ResponseError,
                                    "wrong number of arguments for 'mset'"):
            r.execute_command("MSET", "a", "1", "b")

    def test_counters(self):
        r = self.r
        self.assertEqual(r.incr("n"), 1)
        self.assertEqual(r.incrby("n", 41), 42)
        self.assertEqual(r.decr("n"), 41)
        self.assertEqual(r.decrby("n", 50), -9)
        self.assertEqual(r.get("n"), b"-9")
        r.set("t", "abc")
        with self.assertRaisesRegex(redis.ResponseError, "not an integer"):
            r.incr("t")
        r.set("big", str(2**63 - 1))
        with self.assertRaisesRegex(redis.ResponseError, "would overflow"):
            r.incr("big")
        with self.assertRaisesRegex(redis.ResponseError, "not an integer"):
            r.incrby("n", "1.5")
        r.set("lead", "007")
        with self.assertRaisesRegex(redis.ResponseError, "not an integer"):
            r.incr("lead")

    def test_scan_keys_dbsize_flushdb(self):
        r = self.r
        names = {("user:%d" % i).encode() for i in range(250)}
        names |= {("other:%d" % i).encode() for i in range(50)}
        pipe = r.pipeline(transaction=False)
        for n in sorted(names):
            pipe.set(n, "1")
        pipe.execute()
        r.execute_command("BF.ADD", "user:bloom", "x")
        names.add(b"user:bloom")
        self.assertEqual(set(r.scan_iter(count=7)), names)
        users = set(r.scan_iter(match="user:*", count=33))
        self.assertEqual(users, {n for n in names if n.startswith(b"user:")})
        self.assertEqual(set(r.scan_iter(_type="MBbloom--")), {b"user:bloom"})
        self.assertEqual(set(r.keys("other:1?")),
                         {("other:%d" % i).encode() for i in range(10, 20)})
        self.assertEqual(r.dbsize(), len(names))
        with self.assertRaisesRegex(redis.ResponseError, "invalid cursor"):
            r.scan(cursor=987654321)
        with self.assertRaisesRegex(redis.ResponseError, "syntax error"):
            r.execute_command("SCAN", 0, "COUNT", 0)
        self.assertTrue(r.flushdb())
        self.assertEqual(r.dbsize(), 0)
        self.assertEqual(list(r.scan_iter()), [])
        self.assertEqual(r.execute_command("BF.EXISTS", "user:bloom", "x"), 0)

    def test_pipelining_keeps_order(self):
        r = self.r
        pipe = r.pipeline(transaction=False)
        for i in range(500):
            pipe.set("p%d" % i, i)
            pipe.get("p%d" % i)
            pipe.incr("counter")
            pipe.execute_command("BF.ADD", "pf", "i%d" % i)
            pipe.execute_command("BF.EXISTS", "pf", "i%d" % i)
        out = pipe.execute()
        for i in range(500):
            s, g, c, a, e = out[5 * i:5 * i + 5]
            self.assertTrue(s)
            self.assertEqual(g, str(i).encode())
            self.assertEqual(c, i + 1)
            self.assertEqual(e, 1)
        # Raw pipelining: many commands in one write, answered in order.
        reply = self.raw(b"PING\r\n" * 3 + b"*2\r\n$3\r\nGET\r\n$2\r\np7\r\n")
        deadline = time.time() + 5
        self.assertTrue(reply.startswith(b"+PONG\r\n+PONG\r\n+PONG\r\n"), reply)


class ConnectionCommandsTest(ServerCase):
    def test_select_client_time_echo(self):
        r = self.r
        self.assertTrue(r.execute_command("SELECT", 0))
        with self.assertRaisesRegex(redis.ResponseError, "DB index is out of range"):
            r.execute_command("SELECT", 1)
        with self.assertRaisesRegex(redis.ResponseError, "not an integer"):
            r.execute_command("SELECT", "x")
        self.assertIsNone(r.client_getname())
        self.assertTrue(r.client_setname("worker-1"))
        self.assertEqual(r.client_getname(), "worker-1" if
                         isinstance(r.client_getname(), str) else b"worker-1")
        with self.assertRaisesRegex(redis.ResponseError, "cannot contain spaces"):
            r.client_setname("bad name")
        self.assertGreater(r.client_id(), 0)
        self.assertIn(b"name=worker-1", r.execute_command("CLIENT", "INFO"))
        self.assertIn(b"name=worker-1", r.execute_command("CLIENT", "LIST"))
        secs, usecs = r.execute_command("TIME")
        self.assertLess(abs(int(secs) - time.time()), 60)
        with self.assertRaisesRegex(redis.ResponseError,
                                    r"unknown command 'NOSUCH', with args "
                                    r"beginning with: 'a' 'b'"):
            r.execute_command("NOSUCH", "a", "b")
        with self.assertRaisesRegex(redis.ResponseError,
                                    "wrong number of arguments for 'get' command"):
            r.execute_command("GET")

    def test_command_info_config(self):
        r = self.r
        n = r.command_count()
        self.assertGreater(n, 40)
        commands = r.command()  # redis-py parses Redis 7's entry shape
        self.assertEqual(len(commands), n)
        self.assertEqual(commands["get"]["arity"], 2)
        info = r.execute_command("COMMAND INFO", "get", "bf.add", "nosuch")
        self.assertEqual(info[0][0], b"get")
        self.assertEqual(info[0][1], 2)
        self.assertEqual(info[1][0], b"bf.add")
        self.assertIsNone(info[2])
        self.assertEqual(r.execute_command("COMMAND GETKEYS", "MSET", "a",
                                           "1", "b", "2"), ["a", "b"])
        sections = r.info("everything")
        self.assertEqual(sections["redis_mode"], "standalone")
        self.assertIn("connected_clients", sections)
        self.assertIn("sst_filter_observed_fp_rate", sections)
        self.assertIn("total_commands_processed", r.info("stats"))
        r.set("x", 1)
        self.assertEqual(r.info("keyspace")["db0"]["keys"], 1)
        self.assertEqual(r.config_get("bf-*")["bf-error-rate"], "0.01")
        self.assertEqual(r.config_get("port")["port"], "0")
        self.assertTrue(r.config_set("bf-initial-size", 7))
        r.execute_command("BF.ADD", "seven", "x")
        self.assertEqual(r.execute_command("BF.INFO", "seven", "CAPACITY"), [7])
        with self.assertRaisesRegex(redis.ResponseError, "Unknown option"):
            r.config_set("port", 1)
        with self.assertRaisesRegex(redis.ResponseError, "CONFIG SET failed"):
            r.config_set("bf-error-rate", 2)

    def test_hello_resp3_raw(self):
        out = self.raw(b"HELLO 3\r\n")
        self.assertTrue(out.startswith(b"%7\r\n"), out)
        self.assertIn(b"proto\r\n:3\r\n", out)
        with self.server.connect_raw() as s:
            raw_roundtrip(s, b"HELLO 3\r\n")
            self.assertEqual(raw_roundtrip(s, b"BF.ADD r3 a\r\n"), b"#t\r\n")
            self.assertEqual(raw_roundtrip(s, b"BF.ADD r3 a\r\n"), b"#f\r\n")
            self.assertEqual(raw_roundtrip(s, b"GET nothing\r\n"), b"_\r\n")
            info = raw_roundtrip(s, b"BF.INFO r3\r\n")
            self.assertTrue(info.startswith(b"%5\r\n+Capacity\r\n:100\r\n"), info)
            self.assertEqual(raw_roundtrip(s, b"BF.MEXISTS r3 a b\r\n"),
                             b"*2\r\n#t\r\n#f\r\n")
            self.assertTrue(raw_roundtrip(s, b"INFO server\r\n").startswith(b"="))
        self.assertIn(b"NOPROTO", self.raw(b"HELLO 4\r\n"))

    def test_quit_closes(self):
        with self.server.connect_raw() as s:
            self.assertEqual(raw_roundtrip(s, b"QUIT\r\n", expect_close=True),
                             b"+OK\r\n")


class AuthTest(ServerCase):
    server_args = ("--requirepass", "s3cret")

    def test_auth(self):
        with self.assertRaisesRegex(redis.exceptions.AuthenticationError,
                                    "Authentication required"):
            self.r.get("x")
        with self.assertRaisesRegex((redis.exceptions.AuthenticationError,
                                     redis.ResponseError),
                                    "invalid username-password pair"):
            self.client(password="wrong").ping()
        good = self.client(password="s3cret")
        self.assertTrue(good.set("x", "1"))
        self.assertEqual(self.client(username="default",
                                     password="s3cret").get("x"), b"1")
        with self.server.connect_raw() as s:
            self.assertIn(b"NOAUTH", raw_roundtrip(s, b"HELLO 3\r\n"))
            self.assertTrue(raw_roundtrip(
                s, b"HELLO 3 AUTH default s3cret\r\n").startswith(b"%7"))
            self.assertEqual(raw_roundtrip(s, b"GET x\r\n"), b"$1\r\n1\r\n")


class AuthNotConfiguredTest(ServerCase):
    def test_auth_without_password(self):
        with self.assertRaisesRegex(redis.ResponseError,
                                    "without any password configured"):
            self.r.execute_command("AUTH", "x")


class BloomTest(ServerCase):
    def test_redisbloom_documented_examples(self):
        r = self.r
        cmd = r.execute_command
        # BF.ADD / BF.EXISTS
        self.assertEqual(cmd("BF.ADD", "bf", "item1"), 1)
        self.assertEqual(cmd("BF.ADD", "bf", "item1"), 0)
        self.assertEqual(cmd("BF.EXISTS", "bf", "item1"), 1)
        self.assertEqual(cmd("BF.EXISTS", "bf", "item2"), 0)
        # BF.MADD / BF.MEXISTS
        self.assertEqual(cmd("BF.MADD", "bf", "item1", "item2", "item2"),
                         [0, 1, 0])
        self.assertEqual(cmd("BF.MEXISTS", "bf", "item1", "item2", "item3"),
                         [1, 1, 0])
        # BF.RESERVE
        self.assertTrue(cmd("BF.RESERVE", "key", 0.01, 1000))
        with self.assertRaisesRegex(redis.ResponseError, "item exists"):
            cmd("BF.RESERVE", "key", 0.1, 1000000)
        self.assertTrue(cmd("BF.RESERVE", "bf_exp", 0.0001, 5000,
                            "EXPANSION", 3))
        self.assertTrue(cmd("BF.RESERVE", "bf_non", 0.0001, 5000,
                            "NONSCALING"))
        self.assertEqual(cmd("BF.INFO", "bf_exp", "EXPANSION"), [3])
        self.assertEqual(cmd("BF.INFO", "bf_non", "EXPANSION"), [None])
        # BF.INFO
        self.assertEqual(cmd("BF.ADD", "bf1", "observation1"), 1)
        info = cmd("BF.INFO", "bf1")
        self.assertEqual(info[0::2], [b"Capacity", b"Size", b"Number of filters",
                                      b"Number of items inserted",
                                      b"Expansion rate"])
        self.assertEqual([info[1], info[5], info[7], info[9]], [100, 1, 1, 2])
        self.assertGreater(info[3], 0)
        self.assertEqual(cmd("BF.INFO", "bf1", "CAPACITY"), [100])
        self.assertEqual(cmd("BF.INFO", "bf1", "items"), [1])
        self.assertEqual(cmd("BF.INFO", "bf1", "FILTERS"), [1])
        # BF.CARD
        self.assertEqual(cmd("BF.CARD", "bf1"), 1)
        self.assertEqual(cmd("BF.CARD", "bf_new"), 0)
        # BF.INSERT
        self.assertEqual(cmd("BF.INSERT", "filter", "ITEMS", "foo", "bar",
                             "baz"), [1, 1, 1])
        self.assertEqual(cmd("BF.INSERT", "filter2", "CAPACITY", 10000,
                             "ITEMS", "hello"), [1])
        self.assertEqual(cmd("BF.INFO", "filter2", "CAPACITY"), [10000])
        with self.assertRaisesRegex(redis.ResponseError, "not found"):
            cmd("BF.INSERT", "filter3", "NOCREATE", "ITEMS", "foo", "bar")
        self.assertEqual(cmd("EXISTS", "filter3"), 0)

    def test_redis_py_bloom_client(self):
        bf = self.r.bf()
        self.assertTrue(bf.create("py", 0.001, 500))
        self.assertEqual(bf.add("py", "a"), 1)
        self.assertEqual(bf.madd("py", "a", "b"), [0, 1])
        self.assertEqual(bf.exists("py", "b"), 1)
        self.assertEqual(bf.mexists("py", "a", "z"), [1, 0])
        info = bf.info("py")
        self.assertEqual(info.capacity, 500)
        self.assertEqual(info.insertedNum, 2)
        self.assertEqual(info.filterNum, 1)
        self.assertEqual(bf.insert("py2", ["x", "y"], capacity=20, error=0.1),
                         [1, 1])

    def test_scandump_loadchunk_roundtrip(self):
        cmd = self.r.execute_command
        cmd("BF.RESERVE", "bf", 0.001, 100)
        for i in range(0, 2000, 100):
            cmd("BF.MADD", "bf", *["i%d" % j for j in range(i, i + 100)])
        chunks = []
        it = 0
        while True:  # RedisBloom's documented loop
            it, data = cmd("BF.SCANDUMP", "bf", it)
            if it == 0:
                self.assertEqual(data, b"")
                break
            chunks.append((it, data))
        self.assertGreater(len(chunks), 1)
        for it, data in chunks:
            self.assertTrue(cmd("BF.LOADCHUNK", "copy", it, data))
        self.assertEqual(cmd("BF.INFO", "copy"), cmd("BF.INFO", "bf"))
        found = cmd("BF.MEXISTS", "copy", *["i%d" % j for j in range(2000)])
        self.assertEqual(found, [1] * 2000)
        self.restart(kill9=True)
        cmd = self.r.execute_command
        self.assertEqual(cmd("BF.MEXISTS", "copy", *["i%d" % j for j in
                                                     range(2000)]), [1] * 2000)
        with self.assertRaisesRegex(redis.ResponseError, "received bad data"):
            cmd("BF.LOADCHUNK", "bad", 1, b"garbage")
        with self.assertRaisesRegex(redis.ResponseError, "received bad data"):
            cmd("BF.LOADCHUNK", "copy", 999999999, b"x")
        with self.assertRaisesRegex(redis.ResponseError, "not found"):
            cmd("BF.LOADCHUNK", "none", 5, b"x")
        with self.assertRaisesRegex(redis.ResponseError, "must be numeric"):
            cmd("BF.LOADCHUNK", "bf", "x", b"x")
        with self.assertRaisesRegex(redis.ResponseError, "must be numeric"):
            cmd("BF.SCANDUMP", "bf", "x")
        with self.assertRaisesRegex(redis.ResponseError, "not found"):
            cmd("BF.SCANDUMP", "none", 0)
        self.assertEqual(cmd("EXISTS", "bad"), 0)

    def test_errors(self):
        cmd = self.r.execute_command
        cases = [
            (("BF.RESERVE", "e", "abc", 100), "bad error rate"),
            (("BF.RESERVE", "e", 1, 100),
             r"error rate must be in the range \(0.000000, 1.000000\)"),
            (("BF.RESERVE", "e", 0, 100), "error rate must be in the range"),
            (("BF.RESERVE", "e", "nan", 100), "bad error rate"),
            (("BF.RESERVE", "e", 0.01, "x"), "bad capacity"),
            (("BF.RESERVE", "e", 0.01, 0),
             r"capacity must be in the range \[1, 1073741824\]"),
            (("BF.RESERVE", "e", 0.01, 100, "EXPANSION"), "no expansion"),
            (("BF.RESERVE", "e", 0.01, 100, "EXPANSION", "x"), "bad expansion"),
            (("BF.RESERVE", "e", 0.01, 100, "EXPANSION", 2, "NONSCALING"),
             "Nonscaling filters cannot expand"),
            (("BF.RESERVE", "e", 0.01, 100, "EXPANSION", 40000),
             r"expansion must be in the range \[0, 32768\]"),
            (("BF.RESERVE", "e", 0.01), "wrong number of arguments"),
            (("BF.INSERT", "e", "CAPACITY", 0, "ITEMS", "a"), "Bad capacity"),
            (("BF.INSERT", "e", "ERROR", 2, "ITEMS", "a"), "Bad error rate"),
            (("BF.INSERT", "e", "EXPANSION", -1, "ITEMS", "a"), "Bad expansion"),
            (("BF.INSERT", "e", "BOGUS", "ITEMS", "a"),
             "Unknown argument received"),
            (("BF.INSERT", "e", "ITEMS"), "wrong number of arguments"),
            (("BF.INSERT", "e", "CAPACITY"), "wrong number of arguments"),
            (("BF.INFO", "e"), "not found"),
            (("BF.ADD", "e"), "wrong number of arguments for 'bf.add'"),
        ]
        for args, message in cases:
            with self.assertRaisesRegex(redis.ResponseError, message, msg=args):
                cmd(*args)
        self.assertEqual(cmd("EXISTS", "e"), 0)  # nothing was created
        cmd("BF.ADD", "f", "x")
        with self.assertRaisesRegex(redis.ResponseError,
                                    "Invalid information value"):
            cmd("BF.INFO", "f", "BOGUS")
        # EXPANSION 0 is NONSCALING.
        cmd("BF.RESERVE", "zero", 0.01, 1, "EXPANSION", 0)
        self.assertEqual(cmd("BF.ADD", "zero", "a"), 1)
        with self.assertRaisesRegex(redis.ResponseError,
                                    "non scaling filter is full"):
            cmd("BF.ADD", "zero", "b")
        # A full NONSCALING filter: MADD stops at the refused item.
        cmd("BF.RESERVE", "fixed", 0.001, 2, "NONSCALING")
        out = cmd("BF.MADD", "fixed", "a", "b", "c", "d")
        self.assertEqual(out[:2], [1, 1])
        self.assertEqual(len(out), 3)
        self.assertIsInstance(out[2], redis.ResponseError)
        self.assertIn("non scaling filter is full", str(out[2]))
        self.assertEqual(cmd("BF.CARD", "fixed"), 2)
        out = cmd("BF.INSERT", "fixed2", "CAPACITY", 1, "NONSCALING",
                  "EXPANSION", 4, "ITEMS", "a", "b")
        self.assertEqual(len(out), 2)
        self.assertEqual(cmd("BF.INFO", "fixed2", "EXPANSION"), [None])

    def test_wrong_types(self):
        r = self.r
        cmd = r.execute_command
        r.set("s", "x")
        for args in (("BF.ADD", "s", "x"), ("BF.MADD", "s", "x"),
                     ("BF.RESERVE", "s", 0.01, 10), ("BF.INFO", "s"),
                     ("BF.CARD", "s"), ("BF.INSERT", "s", "ITEMS", "x"),
                     ("BF.SCANDUMP", "s", 0), ("BF.LOADCHUNK", "s", 1, "x")):
            with self.assertRaisesRegex(redis.ResponseError, "WRONGTYPE",
                                        msg=args):
                cmd(*args)
        self.assertEqual(r.get("s"), b"x")
        # As RedisBloom: BF.EXISTS of another type's key holds nothing.
        self.assertEqual(cmd("BF.EXISTS", "s", "x"), 0)
        self.assertEqual(cmd("BF.MEXISTS", "s", "x", "y"), [0, 0])
        cmd("BF.ADD", "f", "x")
        for fn in (lambda: r.get("f"), lambda: r.incr("f"),
                   lambda: r.append("f", "x"), lambda: r.strlen("f")):
            with self.assertRaisesRegex(redis.ResponseError, "WRONGTYPE"):
                fn()
        self.assertEqual(r.mget("f", "s"), [None, b"x"])
        # SET replaces a filter; DEL deletes one; both survive a restart.
        cmd("BF.ADD", "g", "x")
        r.set("f", "now a string")
        self.assertEqual(r.delete("g"), 1)
        self.restart(kill9=True)
        self.assertEqual(self.r.get("f"), b"now a string")
        self.assertEqual(self.r.exists("g"), 0)
        self.assertEqual(self.r.execute_command("BF.EXISTS", "g", "x"), 0)

    def test_scaled_filter_meets_error_rate(self):
        cmd = self.r.execute_command
        cmd("BF.RESERVE", "scaled", 0.01, 1000)
        pipe = self.r.pipeline(transaction=False)
        for i in range(0, 10000, 500):
            pipe.execute_command("BF.MADD", "scaled",
                                 *["member:%d" % j for j in range(i, i + 500)])
        pipe.execute()
        self.assertGreaterEqual(cmd("BF.INFO", "scaled", "FILTERS")[0], 4)
        fp = 0
        probes = 40000
        for i in range(0, probes, 1000):
            fp += sum(cmd("BF.MEXISTS", "scaled",
                          *["stranger:%d" % j for j in range(i, i + 1000)]))
        self.assertLessEqual(fp / probes, 0.01)
        self.assertEqual(sum(cmd("BF.MEXISTS", "scaled",
                                 *["member:%d" % j for j in range(10000)])),
                         10000)


class DurabilityTest(ServerCase):
    def fill(self, n_filters=3, items=4000):
        r = self.r
        pipe = r.pipeline(transaction=False)
        for i in range(2000):
            pipe.set("key:%d" % i, "value:%d" % i)
        for f in range(n_filters):
            for i in range(items):
                pipe.execute_command("BF.ADD", "filter:%d" % f, "m%d:%d" % (f, i))
        pipe.execute()
        self.infos = {f: r.execute_command("BF.INFO", "filter:%d" % f)
                      for f in range(n_filters)}

    def check(self, n_filters=3, items=4000):
        r = self.r
        self.assertEqual(r.mget(*["key:%d" % i for i in range(2000)]),
                         [("value:%d" % i).encode() for i in range(2000)])
        for f in range(n_filters):
            got = r.execute_command("BF.MEXISTS", "filter:%d" % f,
                                    *["m%d:%d" % (f, i) for i in range(items)])
            self.assertEqual(got, [1] * items)
            self.assertEqual(r.execute_command("BF.INFO", "filter:%d" % f),
                             self.infos[f])

    def test_kill9_keeps_every_acknowledged_write(self):
        # Enough adds that deltas fold more than once, and some stay
        # unfolded at the kill.
        self.fill()
        self.assertGreater(self.r.info("siftdb")["bf_delta_folds"], 0)
        self.restart(kill9=True)
        self.check()
        self.r.execute_command("BF.ADD", "filter:0", "after restart")
        self.restart(kill9=True)
        self.assertEqual(self.r.execute_command("BF.EXISTS", "filter:0",
                                                "after restart"), 1)

    def test_sigterm_is_graceful(self):
        self.fill(n_filters=1, items=500)
        self.assertEqual(self.server.terminate(), 0)
        self.assertIn("ready to exit", self.server.read_log())
        self.server.start()
        self.r = self.client()
        self.check(n_filters=1, items=500)

    def test_shutdown_command(self):
        self.r.set("x", "1")
        try:
            self.r.execute_command("SHUTDOWN")
        except redis.ConnectionError:
            pass
        self.assertEqual(self.server.proc.wait(timeout=20), 0)
        self.server.start()
        self.assertEqual(self.client().get("x"), b"1")


class BadInputTest(ServerCase):
    server_args = ("--proto-max-bulk-len", "1mb")

    def assert_alive(self):
        self.assertTrue(self.client().ping())

    def test_malformed_framing_closes_with_redis_errors(self):
        cases = [
            (b"*abc\r\n", b"Protocol error: invalid multibulk length"),
            (b"*2\r\n$3\r\nGET\r\n:1\r\n", b"Protocol error: expected '$', got ':'"),
            (b"*1\r\n$-5\r\n", b"Protocol error: invalid bulk length"),
            (b"*1\r\n$99999999999\r\n", b"Protocol error: invalid bulk length"),
            (b"*1\r\n$2000000\r\n", b"Protocol error: invalid bulk length"),
            (b"*99999999\r\n", b"Protocol error: invalid multibulk length"),
            (b'SET "a b\r\n', b"Protocol error: unbalanced quotes in request"),
            (b"x" * 70000, b"Protocol error: too big inline request"),
            (b"*1\r\n$" + b"9" * 70000, b"Protocol error: too big bulk count string"),
        ]
        for data, message in cases:
            out = self.raw(data, expect_close=True)
            self.assertIn(b"-ERR " + message, out, data[:40])
            self.assert_alive()

    def test_inline_and_partial_requests(self):
        self.assertEqual(self.raw(b"PING\r\n"), b"+PONG\r\n")
        self.assertEqual(self.raw(b'SET "a b" \'c d\'\r\n'), b"+OK\r\n")
        self.assertEqual(self.client().get("a b"), b"c d")
        self.assertEqual(self.raw(b'ECHO "\\x41\\n"\r\n'), b"$2\r\nA\n\r\n")
        with self.server.connect_raw() as s:  # a command in many pieces
            for piece in (b"*3\r\n$3\r", b"\nSET\r\n$1\r\nk\r\n$5", b"\r\nva",
                          b"lue\r\n"):
                s.sendall(piece)
                time.sleep(0.01)
            self.assertEqual(raw_roundtrip(s, b""), b"+OK\r\n")
        # A value at the bulk limit is accepted.
        v = b"v" * (1 << 20)
        self.assertTrue(self.client().set("big", v))
        self.assertEqual(self.client().get("big"), v)
        self.assertEqual(self.raw(b"*0\r\n\r\nPING\r\n"), b"+PONG\r\n")

    def test_garbage_never_crashes(self):
        import random
        rnd = random.Random(1234)
        for _ in range(200):
            data = bytes(rnd.choice(b"*$:\r\n0123456789-abcGETSET ")
                         for _ in range(rnd.randint(1, 64)))
            try:
                with self.server.connect_raw() as sock:
                    raw_roundtrip(sock, data + b"\r\n", True, timeout=0.05)
            except OSError:
                pass
        self.assert_alive()


class LimitsAndConfigTest(unittest.TestCase):
    def test_maxclients(self):
        s = SiftServer(BINARY, args=("--maxclients", "2"))
        s.start()
        try:
            a, b = s.connect_raw(), s.connect_raw()
            self.assertEqual(raw_roundtrip(a, b"PING\r\n"), b"+PONG\r\n")
            self.assertEqual(raw_roundtrip(b, b"PING\r\n"), b"+PONG\r\n")
            with s.connect_raw() as c:
                out = raw_roundtrip(c, b"", expect_close=True)
                self.assertEqual(out, b"-ERR max number of clients reached\r\n")
            a.close()
            time.sleep(0.2)
            with s.connect_raw() as c:
                self.assertEqual(raw_roundtrip(c, b"PING\r\n"), b"+PONG\r\n")
            b.close()
        finally:
            s.stop()

    def test_config_file(self):
        tmp = SiftServer(BINARY).tmp
        conf = os.path.join(tmp, "sift.conf")
        with open(conf, "w") as f:
            f.write("# redis.conf syntax\n"
                    "requirepass \"pa ss\"\n"
                    "maxclients 50\n"
                    "proto-max-bulk-len 2mb\n"
                    "bf-initial-size 1000\n"
                    "bf-error-rate 0.001\n"
                    "appendfsync always\n")
        s = SiftServer(BINARY, config=conf)
        s.start()
        try:
            r = redis.Redis(port=s.port, password="pa ss")
            cfg = r.config_get("*")
            self.assertEqual(cfg["maxclients"], "50")
            self.assertEqual(cfg["proto-max-bulk-len"], str(2 << 20))
            self.assertEqual(cfg["appendfsync"], "always")
            r.execute_command("BF.ADD", "f", "x")
            self.assertEqual(r.execute_command("BF.INFO", "f", "CAPACITY"), [1000])
        finally:
            s.stop()
        with open(conf, "a") as f:
            f.write("port notaport\n")
        bad = SiftServer(BINARY, config=conf)
        self.assertNotEqual(bad.start(expect_fail=True), 0)
        out = bad.output()
        self.assertIn("sift.conf:8", out)
        self.assertIn("port", out)
        self.assertNotEqual(subprocess.run([BINARY, "--no-such-flag", "1"],
                                           capture_output=True).returncode, 0)
        help_out = subprocess.run([BINARY, "--help"], capture_output=True, text=True)
        self.assertEqual(help_out.returncode, 0)
        self.assertIn("requirepass", help_out.stdout)


@unittest.skipUnless(all(shutil.which(t) for t in NEEDED_TOOLS),
                     "redis-tools (redis-cli, redis-benchmark) not installed")
class RedisToolsTest(ServerCase):
    def cli(self, *args):
        out = subprocess.run(["redis-cli", "-p", str(self.server.port)] +
                             list(args), capture_output=True, text=True,
                             timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        return out.stdout

    def test_redis_cli(self):
        self.assertEqual(self.cli("SET", "name", "sift"), "OK\n")
        self.assertEqual(self.cli("GET", "name"), "sift\n")
        self.assertEqual(self.cli("BF.ADD", "seen", "u1"), "1\n")
        self.assertEqual(self.cli("BF.EXISTS", "seen", "u1"), "1\n")
        self.assertEqual(self.cli("BF.MEXISTS", "seen", "u1", "u2"), "1\n0\n")
        self.assertEqual(sorted(self.cli("--scan").split()), ["name", "seen"])
        self.assertIn("redis_version", self.cli("INFO", "server"))
        self.assertIn("Capacity", self.cli("BF.INFO", "seen"))
        # redis-cli -3 speaks RESP3 (HELLO 3).
        out = subprocess.run(["redis-cli", "-3", "-p", str(self.server.port),
                              "BF.EXISTS", "seen", "u1"], capture_output=True,
                             text=True, timeout=60)
        self.assertEqual(out.stdout.strip(), "(true)")
        piped = subprocess.run(["redis-cli", "-p", str(self.server.port)],
                               input="SET a 1\nINCR a\nGET a\n",
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(piped.stdout, "OK\n2\n2\n")

    def test_redis_benchmark_smoke(self):
        out = subprocess.run(
            ["redis-benchmark", "-p", str(self.server.port), "-t", "set,get",
             "-n", "20000", "-r", "10000", "-P", "16", "-c", "10", "-q"],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("SET:", out.stdout)
        self.assertIn("GET:", out.stdout)
        self.assertGreater(self.r.dbsize(), 1000)
        out = subprocess.run(
            ["redis-benchmark", "-p", str(self.server.port), "-n", "5000",
             "-r", "1000", "-P", "8", "-c", "4", "-q", "BF.ADD", "bench",
             "__rand_int__"], capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertGreater(self.r.execute_command("BF.CARD", "bench"), 500)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    BINARY = os.path.abspath(sys.argv.pop(1))
    missing = [t for t in NEEDED_TOOLS if not shutil.which(t)]
    if missing:
        print("NOTE: %s not installed: the redis-tools tests are skipped "
              "(tools/setup.sh installs redis-tools)" % ", ".join(missing))
    unittest.main(verbosity=2)
