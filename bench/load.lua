-- bench/load.sh's mix: every stateless endpoint family and encounter writes (one in five
-- requests: a facing change on this wrk thread's own encounter, carrying the version the last
-- answer gave; with several connections a thread's writes race, and the losers get 412, as
-- they should). Counts 5xx per thread and prints p50, p99 and the status tally.
local bodies = {
  {"/v1/dice/roll", '{"expression":"4d6kh3+2","seed":42}'},
  {"/v1/attacks/resolve", '{"rules":{"preset":"d20-3.5-facing"},"attacker":{"x":5,"y":6,"facing":0,"attack_bonus":5,"sneak_attack_dice":2,"damage":"1d6+1"},"defender":{"x":5,"y":5,"facing":0,"defense":{"armor":4,"dex":2}},"seed":7}'},
  {"/v1/movement/path", '{"rules":{"preset":"d20-3.5-facing"},"map":{"width":10,"height":10},"creatures":[{"id":"fighter","x":5,"y":5,"facing":6}],"mover":{"x":6,"y":4,"facing":4,"speeds":{"walk":30}},"mode":"move","path":[{"x":6,"y":5},{"x":6,"y":6},{"x":6,"y":7}]}'},
  {"/v1/movement/reach", '{"map":{"width":30,"height":30},"creatures":[{"id":"o","x":10,"y":10}],"mover":{"x":15,"y":15,"speeds":{"walk":30}},"mode":"double_move"}'},
  {"/v1/geometry/flanking", '{"attacker":{"x":4,"y":5},"target":{"x":5,"y":5},"allies":[{"x":6,"y":5}]}'},
  {"/v1/falling", '{"height_ft":50,"seed":3}'},
  {"/v1/travel", '{"legs":[{"miles":30,"terrain":"plains","way":"road"}],"party":{"members":[{"speed_ft":30}]}}'},
  {"/v1/movement/speed", '{"mover":{"speeds":{"walk":30},"armor":"heavy","load":"medium","constitution":12}}'},
}
local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end
function init(args)
  enc_id = os.getenv("ENC_ID_" .. tid)
  token = os.getenv("ENC_TOKEN_" .. tid)
  version = 2
  n = 0
  fivexx = 0
  statuses = {}
end
function request()
  n = n + 1
  if n % 5 == 0 then
    return wrk.format("POST", "/v1/encounters/" .. enc_id .. "/actions",
      {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. token,
       ["If-Match"] = '"v' .. version .. '"'},
      '{"type":"facing","actor":"a","facing":' .. (n % 8) .. '}')
  end
  local b = bodies[(n % #bodies) + 1]
  return wrk.format("POST", b[1], {["Content-Type"] = "application/json"}, b[2])
end
function response(status, headers, body)
  local etag = headers["ETag"]
  if etag then
    local v = string.match(etag, "v(%d+)")
    if v and tonumber(v) > version then version = tonumber(v) end
  end
  if status >= 500 then fivexx = fivexx + 1 end
  statuses[status] = (statuses[status] or 0) + 1
end
function done(summary, latency, requests)
  local total5 = 0
  local tally = {}
  for _, t in ipairs(threads) do
    total5 = total5 + t:get("fivexx")
    for k, v in pairs(t:get("statuses")) do tally[k] = (tally[k] or 0) + v end
  end
  local parts = {}
  for k, v in pairs(tally) do table.insert(parts, k .. ":" .. v) end
  table.sort(parts)
  io.write(string.format("LOAD requests %d, socket errors %d, 5xx %d, p50 %.2f ms, p99 %.2f ms, statuses %s\n",
    summary.requests, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    total5, latency:percentile(50) / 1000, latency:percentile(99) / 1000, table.concat(parts, " ")))
end
