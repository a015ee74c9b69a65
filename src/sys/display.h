// The one printer for names a sandbox may have chosen (file names, link targets, labels) on their
// way to a person's terminal, a log or a model: every path paddock shows goes through it.
//
// Valid UTF-8 text passes unchanged (names in any script stay readable); what a terminal would act
// on instead of showing is escaped as \xNN: C0 controls (ESC starts an escape sequence that can
// erase lines of a confirmation the user is asked to approve), DEL, C1 controls (U+0080..U+009F,
// 8-bit CSI among them), bytes that are not UTF-8, and the bidirectional overrides and isolates
// (U+202A..U+202E, U+2066..U+2069, which reorder what is shown). A backslash becomes \\ so that
// an escape cannot be forged. Pure and allocation-bounded: no locale is consulted.
#pragma once

#include <string>
#include <string_view>

namespace paddock::sys {

std::string display(std::string_view untrusted);

}  // namespace paddock::sys
