#include "undo/copy_file.h"

#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

#include "sys/unique_fd.h"

namespace paddock::undo {

Result<CopyHow> copy_file_content(int src, int dst) {
  if (::ioctl(dst, FICLONE, src) == 0) return CopyHow::Reflink;
  // Not the same filesystem, or one without reflinks: copy_file_range, then read/write.
  loff_t in_off = 0, out_off = 0;
  bool ranged = true;
  for (;;) {
    ssize_t n = sys::retry_eintr([&] { return ::copy_file_range(src, &in_off, dst, &out_off, 1 << 30, 0); });
    if (n == 0) return CopyHow::CopyRange;
    if (n > 0) continue;
    if (errno == EXDEV || errno == EINVAL || errno == EOPNOTSUPP || errno == ENOSYS || errno == EPERM) {
      ranged = false;
      break;
    }
    return errno_error("copy_file_range");
  }
  (void)ranged;
  // What copy_file_range did before it gave up stays: carry on from its offsets.
  char buf[1 << 16];
  for (;;) {
    ssize_t n = sys::retry_eintr([&] { return ::pread(src, buf, sizeof(buf), in_off); });
    if (n < 0) return errno_error("read");
    if (n == 0) break;
    in_off += n;
    for (ssize_t done = 0; done < n;) {
      ssize_t w = sys::retry_eintr([&] { return ::pwrite(dst, buf + done, n - done, out_off); });
      if (w < 0) return errno_error("write");
      done += w;
      out_off += w;
    }
  }
  return CopyHow::ReadWrite;
}

}  // namespace paddock::undo
