#!/usr/bin/env python3
"""The hardening issue's probes (issue 28, "Costs no request may buy"), run against one tacticsd.

Starts the given tacticsd on a free port with a fresh database, builds the issue's shapes (an
encounter of 500 combatants of long reach on a 1,000 x 1,000 map; 2,000 Colossal creatures of
reach 1,000 ft in a stateless body; a 5,201-event log read by eight anonymous feeds at
after=1..8), and sends each probe alone while a thread asks GET /healthz every 20 ms on a new
connection. For each probe it prints the status, the server's CPU time for the probe (the sum of
its threads' run time from /proc/PID/task/*/schedstat, in nanoseconds), its peak resident memory
above the resident memory before it (VmHWM, reset through /proc/PID/clear_refs before each
probe) and the slowest /healthz answer meanwhile. Then four of the stored board's threatened
pictures at once, likewise.

Usage: budget_probes.py TACTICSD [label]  -> one JSON line per probe on stdout, and a table on
stderr. bench/budget.sh runs it on two builds and prints them side by side.
"""
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time


def server_cpu_ns(pid):
    total = 0
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def status_kb(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def reset_peak(pid):
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")


class Server:
    """A tacticsd on a free port with the database db (its log beside it, db + ".log") and
    the further arguments args. bench/encounters_ab.py starts its servers with it too."""

    def __init__(self, binary, db, args=()):
        self.log = open(db + ".log", "w+")
        self.proc = subprocess.Popen(
            [binary, "--port", "0", "--db", db, *args],
            stdout=subprocess.DEVNULL, stderr=self.log)
        for _ in range(200):
            self.log.seek(0)
            m = re.search(r'"port":(\d+)', self.log.read())
            if m:
                self.port = int(m.group(1))
                return
            time.sleep(0.05)
        raise SystemExit("tacticsd did not start")

    def stop(self):
        self.proc.terminate()
        self.proc.wait()
        self.log.close()

    def cpu_ns(self):
        return server_cpu_ns(self.proc.pid)

    def conn(self, timeout=600):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, conn=None):
        c = conn or self.conn()
        h = {"Content-Type": "application/json"} if body is not None else {}
        h.update(headers or {})
        data = body.encode() if isinstance(body, str) else body if isinstance(
            body, (bytes, type(None))) else json.dumps(body, separators=(",", ":")).encode()
        c.request(method, path, body=data, headers=h)
        r = c.getresponse()
        out = r.read()
        if conn is None:
            c.close()
        return r.status, out, r


class Healthz(threading.Thread):
    """Asks /healthz every 20 ms on a new connection until stopped; keeps the slowest answer."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.stop_flag, self.worst, self.count = port, threading.Event(), 0.0, 0

    def run(self):
        while not self.stop_flag.is_set():
            t0 = time.monotonic()
            try:
                c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
                c.request("GET", "/healthz")
                c.getresponse().read()
                c.close()
            except OSError:
                pass
            self.worst = max(self.worst, time.monotonic() - t0)
            self.count += 1
            time.sleep(0.02)


ONLY = os.environ.get("PROBES")  # a regular expression: run only the probes it finds


def wanted(name):
    return ONLY is None or re.search(ONLY, name) is not None


def measure(srv, name, fn):
    """Runs fn() (returning a status text) with the server otherwise idle; one result row."""
    if not wanted(name):
        return None
    pid = srv.proc.pid
    time.sleep(0.2)  # let the heap settle after the last probe
    reset_peak(pid)
    rss0 = status_kb(pid, "VmRSS")
    cpu0 = server_cpu_ns(pid)
    hz = Healthz(srv.port)
    hz.start()
    t0 = time.monotonic()
    status = fn()
    wall = time.monotonic() - t0
    hz.stop_flag.set()
    hz.join()
    cpu = (server_cpu_ns(pid) - cpu0) / 1e9
    peak = status_kb(pid, "VmHWM") - rss0
    row = {"probe": name, "status": status, "cpu_s": round(cpu, 3), "peak_mb": round(peak / 1024, 1),
           "healthz_max_ms": round(hz.worst * 1000, 1), "wall_s": round(wall, 3)}
    print(json.dumps(row), flush=True)
    print(f"  {name:34} {status:>18} cpu {cpu:7.3f} s  peak +{peak / 1024:7.1f} MB  "
          f"healthz max {hz.worst * 1000:8.1f} ms", file=sys.stderr, flush=True)
    return row


def get(srv, path):
    return lambda: f"{srv.request('GET', path)[0]}"


def post(srv, path, body, size=False):
    def f():
        s, out, _ = srv.request("POST", path, body)
        return f"{s} {len(out) / 1048576:.1f}MiB" if size else f"{s}"
    return f


def crowd(n, size, reach, width, height, key="creatures"):
    """n creatures of `size` and reach, each in its own space, spread over the map."""
    side = {"colossal": 6, "gargantuan": 4, "huge": 3, "large": 2}.get(size, 1)
    cols = width // (side + 1)
    out = []
    for i in range(n):
        x, y = (i % cols) * (side + 1), (i // cols) * (side + 1)
        assert y + side <= height
        out.append({"id": f"c{i}", "x": x, "y": y, "size": size, "reach_ft": reach})
    return out


def spread(n, side, width, height):
    """n places for spaces of `side` squares, spread evenly over the map."""
    cols = 1
    while cols * cols < n * width // height:
        cols += 1
    rows = (n + cols - 1) // cols
    dx, dy = (width - side) // max(cols - 1, 1), (height - side) // max(rows - 1, 1)
    return [((i % cols) * dx, (i // cols) * dy) for i in range(n)]


def stored_board(srv, reach):
    """An encounter of 500 Colossal combatants of `reach` ft spread over a 1,000 x 1,000 map."""
    combatants = []
    for i, (x, y) in enumerate(spread(500, 5, 1000, 1000)):
        combatants.append({"id": f"c{i}", "name": f"Giant {i}", "side": "ab"[i % 2], "x": x,
                           "y": y, "size": "colossal", "reach_ft": reach,
                           "speeds": {"walk": 10000}, "defense": {}, "max_hp": 50, "dex": 10,
                           "attacks": [{"name": "slam", "attack_bonus": 5, "damage": "2d6"}]})
    s, out, _ = srv.request("POST", "/v1/encounters",
                            {"map": {"width": 1000, "height": 1000}, "combatants": combatants})
    doc = json.loads(out)
    return s, doc.get("id"), doc


def long_log(srv, events, combatants=200):
    """An encounter whose log holds `events` events: created, `combatants` added with it, then
    facing changes of the first."""
    party = [{"id": f"p{i}", "name": f"Fighter {i}", "side": "ab"[i % 2], "x": i % 20,
              "y": 2 * (i // 20), "speeds": {"walk": 30}, "defense": {"armor": 4}, "max_hp": 10,
              "dex": 10, "attacks": [{"name": "sword", "attack_bonus": 5, "damage": "1d8+2"}]}
             for i in range(combatants)]
    _, out, _ = srv.request("POST", "/v1/encounters",
                            {"map": {"width": 20, "height": 40}, "combatants": party})
    doc = json.loads(out)
    eid, token = doc["id"], doc["token"]
    c = srv.conn()
    auth = {"Authorization": f"Bearer {token}"}
    for n in range(events - 1 - combatants):
        auth["If-Match"] = f'"v{n + 1 + combatants}"'
        s, out, _ = srv.request("POST", f"/v1/encounters/{eid}/actions",
                                {"type": "facing", "actor": f"p{combatants - 1}", "facing": n % 8}, auth, conn=c)
        assert s == 200, out
    c.close()
    return eid


def feeds(srv, eid, last, afters):
    """Opens a feed at each ?after, reads each until event `last`; the statuses."""
    results = [None] * len(afters)

    def one(i, after):
        c = srv.conn()
        c.request("GET", f"/v1/encounters/{eid}/events/stream?after={after}")
        r = c.getresponse()
        if r.status != 200:
            results[i] = r.status
            return
        buf = b""
        want = f"id: {last}\n".encode()
        while want not in buf:
            chunk = r.read1(65536)
            if not chunk:
                break
            buf = buf[-64:] + chunk
        results[i] = 200 if want in buf else 0
        c.close()

    ts = [threading.Thread(target=one, args=(i, a)) for i, a in enumerate(afters)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return results


def main():
    binary = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        srv = Server(binary, os.path.join(tmp, "bench.db"))
        try:
            run(srv)
        finally:
            srv.stop()


def four_at_once(call):
    """A probe that makes the same call from 4 threads at once; its answer is their 4 statuses."""
    def probe():
        out = [None] * 4

        def one(i):
            out[i] = call()
        ts = [threading.Thread(target=one, args=(i,)) for i in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        return "/".join(str(x) for x in out)
    return probe


def stored_reads(srv, reach):
    """Creates the stored board of combatants of `reach` ft, then reads it anonymously."""
    tag = f"(500 x {reach} ft)"
    holder = {}

    def create():
        s, eid, doc = stored_board(srv, reach)
        holder["id"] = eid if s == 201 else None
        return f"{s}" if s == 201 else f"{s} {doc.get('limit', '')}"
    if measure(srv, f"POST encounter {tag}", create) is None or holder.get("id") is None:
        return
    base = f"/v1/encounters/{holder['id']}"
    for name, path in (("map.svg?overlay=threatened", "/map.svg?overlay=threatened"),
                       ("map.png?overlay=threatened", "/map.png?overlay=threatened"),
                       ("reach?actor=c0", "/reach?actor=c0"),
                       ("reach run fewest_attacks", "/reach?actor=c0&mode=run&prefer=fewest_attacks"),
                       ("route?actor=c0&to=999,999", "/route?actor=c0&to=999,999"),
                       ("threats", "/threats"),
                       ("flanking?target=c1", "/flanking?target=c1"),
                       ("odds?actor=c0&target=c1", "/odds?actor=c0&target=c1")):
        measure(srv, f"GET {name} {tag}", get(srv, base + path))

    measure(srv, f"4 x GET map.svg?overlay=threatened {tag}",
            four_at_once(lambda: srv.request("GET", base + "/map.svg?overlay=threatened")[0]))


def run(srv):
    big = {"width": 1000, "height": 1000}
    giants = crowd(2000, "colossal", 1000, 1000, 1000)
    mover = {"x": 999, "y": 999, "speeds": {"walk": 10000}}
    measure(srv, "POST render threatened png (2000)",
            post(srv, "/v1/render?format=png", {"map": big, "creatures": giants,
                                                "overlays": {"threatened": True}}, True))
    measure(srv, "POST render threatened svg (2000)",
            post(srv, "/v1/render?format=svg", {"map": big, "creatures": giants,
                                                "overlays": {"threatened": True}}, True))
    body = {"map": big, "creatures": giants, "overlays": {"threatened": True}}
    measure(srv, "4 x POST render threatened png (2000)",
            four_at_once(lambda: srv.request("POST", "/v1/render?format=png", body)[0]))
    measure(srv, "POST reach fewest_attacks (2000)",
            post(srv, "/v1/movement/reach", {"map": big, "creatures": giants, "mover": mover,
                                             "mode": "run", "prefer": "fewest_attacks"}))
    # The largest searches a body can ask: a run over the whole map (its answer past the
    # answer budget), the same preferring fewest attacks among the 2,000, and a route that
    # searches the whole map for a square walled off.
    runner = {"x": 500, "y": 500, "speeds": {"walk": 10000}}
    measure(srv, "POST reach whole map", post(srv, "/v1/movement/reach",
                                              {"map": big, "mover": runner, "mode": "run"}))
    measure(srv, "POST reach whole map fewest_attacks",
            post(srv, "/v1/movement/reach", {"map": big, "mover": runner, "mode": "run",
                                             "creatures": crowd(2000, "medium", 5, 1000, 1000),
                                             "prefer": "fewest_attacks"}))
    wall = {"x": 997, "y": 0, "width": 1, "height": 1000, "terrain": "blocked"}
    measure(srv, "POST route nowhere (whole map)",
            post(srv, "/v1/movement/route", {"map": dict(big, squares=[wall]),
                                             "mover": {"x": 0, "y": 0, "speeds": {"walk": 30}},
                                             "mode": "move", "target": {"x": 999, "y": 999}}))
    # The 184 KB render request: 2,000 Medium creatures of reach 1,000 ft (a long reach weapon)
    # on the largest map, every overlay a crowd gives, as SVG.
    medium = [{"id": f"m{i}", "x": (i * 37) % 1000, "y": (i * 7919) % 997, "reach_ft": 1000}
              for i in range(2000)]
    body = {"map": big, "creatures": medium, "overlays": {"threatened": True, "flanking": True}}
    measure(srv, f"POST render svg ({len(json.dumps(body)) // 1024} KB body)",
            post(srv, "/v1/render?format=svg", body, True))

    for reach in (1000, 250):
        stored_reads(srv, reach)

    if wanted("feeds"):
        eid = long_log(srv, 5201)
    measure(srv, "8 feeds after=1..8 (5,201 events)",
            lambda: "/".join(str(x) for x in feeds(srv, eid, 5201, range(1, 9))))


if __name__ == "__main__":
    main()
