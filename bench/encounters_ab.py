#!/usr/bin/env python3
"""The server CPU an encounter's verify and its attack actions cost, this build against an
older one, alternating (issue 33: verify of 10,000 events < 60 ms; the CPU of an action).

Wall times on the 2 shared cores follow the neighbours' load (a verify of 10,000 events took
86.8 ms at load 2.7 and over 200 ms at load 11 with the same build); the CPU time the server's
threads spent on a request (the sum of /proc/PID/task/*/schedstat) moves much less, so this
prints both, for both builds, in the same run.

  1. verify: one log of 10,000 facing changes (bench/encounters.sh's replay log) is written
     once through NEW; then, ROUNDS times, each build is started on its own copy of that file
     and asked POST .../verify once (a fresh server, so its verified cache is empty);
  2. attacks: ROUNDS times, each build on a new file, an encounter with two combatants and
     ATTACKS attack actions one after the other; the server CPU a request.

Usage: bench/encounters_ab.py NEW_TACTICSD OLD_TACTICSD [rounds, default 6] [attacks, 300]
"""
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

import budget_probes

EVENTS = 10000


class Server(budget_probes.Server):
    """budget_probes' server on four threads, asked through one kept connection."""

    def __init__(self, binary, db):
        super().__init__(binary, db, ("--threads", "4"))
        self.c = self.conn()

    def req(self, method, path, body=None, headers=None):
        return self.request(method, path, body, headers, conn=self.c)

    def stop(self):
        self.c.close()
        super().stop()


ATTACKER = ('{"id":"a","side":"party","x":1,"y":1,"speeds":{"walk":30},"defense":{"armor":4},'
            '"max_hp":100000,"dex":12,"attacks":[{"name":"longsword","attack_bonus":6,'
            '"damage":"1d8+3"}]}')
DEFENDER = ('{"id":"d","side":"monsters","x":2,"y":1,"speeds":{"walk":30},'
            '"defense":{"armor":2,"dex":1},"max_hp":100000,"dex":13}')


def encounter(s, actions):
    """Creates an encounter with the two combatants, then posts each action; its id."""
    st, body, r = s.req("POST", "/v1/encounters", '{"map":{"width":20,"height":20}}',
                        {"Content-Type": "application/json"})
    assert st == 201, body
    doc = json.loads(body)
    eid, token, version = doc["id"], doc["token"], 1

    def post(path, b):
        nonlocal version
        st, body, r = s.req("POST", "/v1/encounters/%s/%s" % (eid, path), b,
                            {"Authorization": "Bearer " + token,
                             "If-Match": '"v%d"' % version,
                             "Content-Type": "application/json"})
        assert st in (200, 201), body
        version = int(r.getheader("ETag").strip('"W/v'))

    post("combatants", ATTACKER)
    post("combatants", DEFENDER)
    for a in actions(lambda: version):
        post("actions", a)
    return eid, version


def spread(xs):
    return "best %.1f, median %.1f" % (min(xs), statistics.median(xs))


def main():
    new, old = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 6
    attacks = int(sys.argv[4]) if len(sys.argv) > 4 else 300
    builds = {"this build": new, "older build": old}
    tmp = tempfile.mkdtemp(prefix="encounters_ab.")
    try:
        log = os.path.join(tmp, "log.db")
        s = Server(new, log)
        eid, version = encounter(
            s, lambda v: ('{"type":"facing","actor":"a","facing":%d}' % (i % 8)
                          for i in range(EVENTS - 3)))
        s.stop()
        print("load average %s; a log of %d events" % (os.getloadavg()[0], version))
        wall = {b: [] for b in builds}
        cpu = {b: [] for b in builds}
        for _ in range(rounds):
            for name, binary in builds.items():
                db = os.path.join(tmp, "v.db")
                for ext in ("", "-wal", "-shm"):
                    if os.path.exists(log + ext):
                        shutil.copy(log + ext, db + ext)
                s = Server(binary, db)
                c0, t0 = s.cpu_ns(), time.monotonic()
                st, body, _ = s.req("POST", "/v1/encounters/%s/verify" % eid)
                wall[name].append((time.monotonic() - t0) * 1e3)
                cpu[name].append((s.cpu_ns() - c0) / 1e6)
                assert st == 200 and json.loads(body)["ok"], body[:300]
                s.stop()
                os.remove(db)
        for name in builds:
            print("verify, %s: server CPU %s ms; wall %s ms (%d verifies, each ok)" %
                  (name, spread(cpu[name]), spread(wall[name]), rounds))
        print("verify CPU, this/older (medians): %.2f" %
              (statistics.median(cpu["this build"]) / statistics.median(cpu["older build"])))
        per = {b: [] for b in builds}
        for _ in range(rounds):
            for name, binary in builds.items():
                db = os.path.join(tmp, "a%d.db" % len(per[name]))
                s = Server(binary, db)
                c0 = s.cpu_ns()
                encounter(s, lambda v: ('{"type":"attack","actor":"a","target":"d"}'
                                        for _ in range(attacks)))
                per[name].append((s.cpu_ns() - c0) / 1e3 / (attacks + 3))
                s.stop()
        for name in builds:
            print("attack actions, %s: server CPU a request %s us (%d rounds of %d)" %
                  (name, spread(per[name]), rounds, attacks))
        print("attack CPU, this/older (medians): %.2f; load average %s" %
              (statistics.median(per["this build"]) / statistics.median(per["older build"]),
               os.getloadavg()[0]))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
