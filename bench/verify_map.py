#!/usr/bin/env python3
"""Times POST .../verify of an encounter whose map is costly to decode (4,000 rectangles, 8
million squares painted per decode) after N moves: the map is decoded once per verify, not once
per move. Usage: bench/verify_map.py BUILD/service/tacticsd [MOVES]."""
import json, sys, time, http.client, subprocess, os, tempfile, signal
binary, moves = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40
d = tempfile.mkdtemp()
port = 18000 + os.getpid() % 1000
srv = subprocess.Popen([binary, "--port", str(port), "--db", d + "/t.db", "--max-body", "8000000"], stderr=subprocess.DEVNULL)
time.sleep(0.5)
def call(method, path, body=None, headers={}):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    h = dict(headers)
    if body is not None:
        h["Content-Type"] = "application/json"
    c.request(method, path, json.dumps(body) if body is not None else None, h)
    r = c.getresponse(); data = r.read()
    return r.status, json.loads(data) if data else None, r.getheader("ETag")
# 4,000 rectangles of 1000 x 2 rows: 8 million squares painted per decode (under the budget).
squares = [{"x": 0, "y": (i * 2) % 1000, "width": 1000, "height": 2, "terrain": "difficult" if i % 2 else "clear"} for i in range(4000)]
st, doc, etag = call("POST", "/v1/encounters", {"map": {"width": 1000, "height": 1000, "squares": squares}, "seed": 1})
assert st == 201, (st, str(doc)[:300])
eid, tok = doc["id"], doc["token"]
def w(method, suffix, body=None):
    global etag
    st, d2, et = call(method, f"/v1/encounters/{eid}{suffix}", body, {"Authorization": "Bearer " + tok, "If-Match": etag})
    assert st < 300, (st, str(d2)[:300])
    etag = et
    return d2
for cid, x in (("a", 10), ("b", 500)):
    w("POST", "/combatants", {"id": cid, "side": cid, "x": x, "y": 10, "speeds": {"walk": 30}, "defense": {}, "max_hp": 10, "dex": 10})
w("POST", "/initiative", {"results": [10, 1, 5, 1]})
pos = {"a": 10, "b": 500}
for i in range(moves):
    ev = w("POST", "/next-turn")
    who = ev["event"]["result"]["turn_of"]
    pos[who] += 1
    w("POST", "/actions", {"type": "move", "actor": who, "path": [{"x": pos[who], "y": 10}]})
t = time.time()
st, v, _ = call("POST", f"/v1/encounters/{eid}/verify")
dt = time.time() - t
print(f"{os.path.basename(binary)}: verify of {v['events_checked']} events ({moves} moves) ok={v['ok']}: {dt*1000:.0f} ms")
srv.send_signal(signal.SIGTERM); srv.wait()
