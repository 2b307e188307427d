/* rules: the pure game-logic library. No I/O, no global mutable state, no hidden randomness:
 * every random number comes from a dice handle the caller passes in. */
#ifndef TACTICS_RULES_H
#define TACTICS_RULES_H

#include "rules/attack/attack.h"
#include "rules/board/facing.h"
#include "rules/board/flanking.h"
#include "rules/board/grid.h"
#include "rules/board/size.h"
#include "rules/board/threat.h"
#include "rules/dice/dice.h"
#include "rules/move/move.h"
#include "rules/options.h"
#include "rules/world/impact.h"
#include "rules/world/travel.h"

#endif
