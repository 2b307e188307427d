/* rules: the pure game-logic library. No I/O, no global mutable state, no hidden randomness:
 * every random number comes from a dice handle the caller passes in. */
#ifndef TACTICS_RULES_H
#define TACTICS_RULES_H

#include "attack.h"
#include "dice.h"
#include "facing.h"
#include "flanking.h"
#include "grid.h"
#include "impact.h"
#include "movement.h"
#include "options.h"
#include "size.h"
#include "threat.h"
#include "travel.h"

#endif
