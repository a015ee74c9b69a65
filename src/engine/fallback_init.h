// The fallback's init (no pid namespace): a child subreaper that owns every process the command
// starts, and kills them all when the command ends, when paddock asks (timeout, cancel) and when
// paddock dies, even by SIGKILL (its parent-death signal). Runs in the child between clone and
// exec: async-signal-safe calls only, no allocation.
//
// The command gets its Landlock domain after the fork (child.cc), so the init is outside it:
// with Landlock ABI 6 signal scoping the command cannot signal it, and so cannot kill it to free
// its daemons. Below ABI 6 that is a stated gap (fallback_gaps()).
#pragma once

#include <sys/types.h>

namespace paddock::engine {

// The signal that makes the fallback init kill and reap everything below it, then die by
// SIGKILL: paddock sends it instead of SIGKILL, and it is the init's parent-death signal.
// SIGRTMAX: no default user, never forwarded to the command.
int fallback_sweep_signal();

// In the init, before the command is forked: becomes a child subreaper, installs the sweep
// handler and sets it as the parent-death signal. `parent` is paddock's pid as the parent saw
// it: if paddock is already gone (reparented before the death signal was set) the init sweeps
// at once. Returns false with errno set when a step failed.
bool fallback_init_setup(pid_t parent, int sweep_signal);

// Kills (SIGKILL) and reaps every descendant of this process, level by level: the children of a
// killed process are reparented to this subreaper and are killed in the next round. Never
// blocks on a process it has not killed (a daemon two levels down cannot hang it). Returns the
// number of processes reaped.
unsigned long sweep_descendants();

}  // namespace paddock::engine
