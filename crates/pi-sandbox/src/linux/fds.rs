//! Descriptors the helper inherited beyond stdin, stdout and stderr are
//! closed when it runs the command: an inherited descriptor keeps the access
//! it was opened with, whatever the sandbox says.

/// Mark every descriptor from 3 up close-on-exec.
pub(super) fn close_extra_on_exec() -> std::io::Result<()> {
    const FIRST: libc::c_uint = 3;
    // The one documented exception to `unsafe_code` in this crate.
    // SAFETY: `close_range(2)` with CLOSE_RANGE_CLOEXEC takes three integers,
    // touches no memory of ours and only sets a flag on descriptors; those
    // still in use by this process stay open until the exec that follows.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::syscall(libc::SYS_close_range, FIRST, libc::c_uint::MAX, libc::CLOSE_RANGE_CLOEXEC) };
    if rc == 0 {
        return Ok(());
    }
    // Kernels before 5.11: the descriptors listed in /proc.
    let entries = std::fs::read_dir("/proc/self/fd")?;
    let listed: Vec<i32> = entries.flatten().filter_map(|e| e.file_name().to_str()?.parse().ok()).collect();
    for fd in listed.into_iter().filter(|fd| *fd >= FIRST as i32) {
        let path = format!("/proc/self/fd/{fd}");
        if std::fs::symlink_metadata(&path).is_ok() {
            set_cloexec(fd)?;
        }
    }
    Ok(())
}

fn set_cloexec(fd: i32) -> std::io::Result<()> {
    // SAFETY: `fcntl(F_SETFD)` on a descriptor number only changes its flag;
    // a number that is not open gives EBADF, which is ignored.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    if rc == -1 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EBADF) {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
