//! Handing one descriptor to one child: a descriptor the coordinator keeps close-on-exec
//! (a worker's breadcrumb slot, the zygote's end of its socket) is made inheritable only
//! around the one start that needs it, under a lock, so no other process started at the
//! same moment inherits it too. Used by `crate::supervise` (workers) and `crate::zygote`.

/// Held while a descriptor is inheritable (between clearing its close-on-exec flag and the
/// child's `exec`).
static SPAWN: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Holds [`SPAWN`] while `fd` is inheritable (its close-on-exec flag cleared) around
/// `spawn`, so no other process started at that moment inherits it too.
pub(crate) fn spawn_inheriting<T>(fd: i32, spawn: impl FnOnce() -> std::io::Result<T>) -> std::io::Result<T> {
    let _only_this_one = SPAWN.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: fcntl on a descriptor the caller owns; the flag is restored below.
    unsafe { libc::fcntl(fd, libc::F_SETFD, 0) };
    let spawned = spawn();
    // SAFETY: as above.
    unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    spawned
}
