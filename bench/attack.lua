-- The attack both bench/attack_vs_healthz.sh and bench/attack_instructions.sh send with wrk:
-- facing, flanking, sneak attack, cover, concealment and damage reduction, one seeded roll.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"rules":{"preset":"d20-3.5-facing"},"attacker":{"x":5,"y":6,"facing":0,' ..
  '"attack_bonus":5,"sneak_attack_dice":2,"damage":"1d6+1"},"defender":{"x":5,"y":5,' ..
  '"facing":0,"defense":{"armor":4,"dex":2},"damage_reduction":2},' ..
  '"allies":[{"x":4,"y":5}],"cover":"quarter","concealment":["quarter"],"seed":7}'
