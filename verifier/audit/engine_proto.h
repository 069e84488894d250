/*
 * The external-engine protocol of `millaudit grade --player cmd:...` (docs/grading.md §3): a
 * program that reads lines on stdin and writes lines on stdout.
 *
 *   millaudit: millaudit-engine 1
 *   engine:    ready [name]
 *   then for every move asked:
 *   millaudit: position <variant> <mover stones>/<opponent stones> wf=<n> bf=<n>
 *   millaudit: moves <turn> <turn> ...          (every legal turn, notation of `millaudit probe`)
 *   millaudit: go
 *   engine:    move <turn>                      (one of the listed turns)
 *   and at the end:
 *   millaudit: quit
 *
 * Lines from the engine that are empty or start with '#' or "info" are ignored (logging). Every
 * answer must come within the timeout (seconds, measured from the request); a missing, malformed
 * or illegal answer, an engine that exits or closes its output, is a failure: the engine's process
 * group is killed (SIGKILL) and reaped, and the error is one line naming the engine, what it did
 * and the position. After a failure the engine cannot be used again.
 *
 * The command runs through /bin/sh -c in a process group of its own, so "cmd:python3 e.py" works
 * and a timeout kills the engine's children too. Its stderr is inherited. Writes to an engine that
 * has exited report an error instead of raising SIGPIPE (the signal is blocked and consumed around
 * each write), so the library changes no process-wide signal disposition.
 */
#ifndef MA_VERIFIER_ENGINE_PROTO_H
#define MA_VERIFIER_ENGINE_PROTO_H

#include "common/ma_error.h"
#include "indexer/position.h"
#include "verifier/run/probe.h"

typedef struct ma_engine ma_engine;

/* Starts the engine and completes the handshake. Errors name the command: MA_EINVAL (cannot be
 * started), MA_EFORMAT (handshake broken, like any protocol break below). */
int ma_engine_start(ma_engine **out, const char *command, double timeout_s, ma_error *err);
/* Sends quit, waits up to the timeout for the engine to exit, kills it otherwise. NULL allowed. */
void ma_engine_stop(ma_engine *e);
/* The name the engine gave in "ready", or its command. */
const char *ma_engine_name(const ma_engine *e);

/* Asks for a move in position b of sector s (side to move's view); turns[0..n) are the legal turns
 * (ma_probe_turns). *chosen = the index of the engine's turn. Errors: MA_EFORMAT (protocol broken:
 * timeout, garbage, illegal move, exit), with the engine already stopped. */
int ma_engine_choose(ma_engine *e, ma_variant v, ma_sector s, ma_board b, const ma_probe_turn *turns,
                     int n, int *chosen, ma_error *err);

#endif
