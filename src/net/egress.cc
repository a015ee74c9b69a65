// Placeholder until the egress filter lands (issue 4): filtered networking is refused.
#include "net/egress.h"

namespace paddock::net {

Result<std::unique_ptr<EgressFilter>> create_egress_filter(const NetworkPolicy&,
                                                           const EgressOptions&) {
  return make_error("domain allowlists are not supported by this build yet", "network");
}

}  // namespace paddock::net
