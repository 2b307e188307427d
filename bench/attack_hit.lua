-- bench/attack.lua's attack with its dice given (results) so that it hits and rolls its damage:
-- the d20 15, the concealment's percentile 50, then 1d6+1 and the sneak attack's 2d6. The seeded
-- attack of bench/attack.lua misses (the cover takes the blow), so its answer has no damage roll.
-- Used by bench/attack_vs_healthz.sh and bench/attack_instructions.sh with ATTACK=hit.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"rules":{"preset":"d20-3.5-facing"},"attacker":{"x":5,"y":6,"facing":0,' ..
  '"attack_bonus":5,"sneak_attack_dice":2,"damage":"1d6+1"},"defender":{"x":5,"y":5,' ..
  '"facing":0,"defense":{"armor":4,"dex":2},"damage_reduction":2},' ..
  '"allies":[{"x":4,"y":5}],"cover":"quarter","concealment":["quarter"],"results":[15,50,4,3,5]}'
