/*
 * The players `millaudit grade` measures (docs/grading.md §2):
 *
 *   ab:EVAL:D     alpha-beta (negamax, fail-soft) to D plies (1..8) with evaluation EVAL
 *                 (verifier/audit/eval.h); a turn that wins by reduction scores a win at once, a side
 *                 without a turn has lost, a full mora board is a draw; wins are preferred sooner,
 *                 losses later. Turns that close a mill are searched first. Ties at the root are
 *                 broken uniformly at random with the run's generator, so no turn order is favoured.
 *   random        a legal turn uniformly at random
 *   cmd:COMMAND   an external engine over the line protocol of verifier/audit/engine_proto.h
 *
 * The player sees a position (sector, board, side to move's view) and the list of legal turns
 * (ma_probe_turns) and answers an index into that list. Not thread-safe.
 */
#ifndef MA_VERIFIER_PLAYER_H
#define MA_VERIFIER_PLAYER_H

#include <stdint.h>

#include "common/ma_error.h"
#include "indexer/position.h"
#include "verifier/run/probe.h"
#include "verifier/audit/rng.h"

typedef struct ma_player ma_player;

/* Parses spec and prepares the player (starting an engine: its handshake happens here).
 * timeout_s bounds each engine answer. MA_EINVAL for a bad spec (message shows the forms);
 * engine failures as ma_engine_start. */
int ma_player_create(ma_player **out, const char *spec, ma_variant v, double timeout_s,
                     ma_error *err);
void ma_player_free(ma_player *p);
/* The spec in canonical spelling: "ab:material+mobility:3", "random", "cmd:/x/engine". */
const char *ma_player_name(const ma_player *p);

/* Picks a turn: *chosen in [0, n). n >= 1. Errors: an engine's protocol failure (MA_EFORMAT),
 * MA_ENOMEM, MA_EINTERNAL. */
int ma_player_choose(ma_player *p, ma_sector s, ma_board b, const ma_probe_turn *turns, int n,
                     ma_rng *rng, int *chosen, ma_error *err);

/* Nodes the alpha-beta player searched so far (0 for other players). */
uint64_t ma_player_nodes(const ma_player *p);

#endif
