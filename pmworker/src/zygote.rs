//! The worker zygote: one process per run, started like any worker (`pmfarm worker …`,
//! memory role and limits set before `main`), that never reads a file itself. For each file
//! the coordinator sends it a request; it `fork`s, and the child — a fresh process of its
//! own, in its own process group — checks that one file and exits. Every file still gets
//! its own process, so a crash, an abort or a hang stays that file's; what the child skips
//! is the start of a program: `exec`, the dynamic loader, the allocators' and the
//! runtime's set-up (≈ 1 ms of CPU per file, docs/performance.md).
//!
//! Wire (a `SOCK_SEQPACKET` socket pair, one message per send, descriptors as
//! `SCM_RIGHTS`): a [`Request`] with the child's stdout, stderr and (when there is one) its
//! breadcrumb slot; a [`Reply`] `started`/`not-started` per request, then `exited` with the
//! wait status once the child has been reaped. The zygote ends when the socket closes; its
//! children die with it (`PR_SET_PDEATHSIG`), as it dies with the coordinator.

use std::ffi::{OsStr, OsString};
use std::os::fd::RawFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

/// Environment variable of a zygote: the descriptor number of its end of the socket.
pub const ZYGOTE_VAR: &str = "PMWORKER_ZYGOTE";

/// The zygote's last argument: room in its command line for each child's own (its file
/// included) to be written over, so `ps` shows every worker's file
/// ([`crate::start::set_last_argument`]). Spaces, so the zygote's own line shows none.
pub fn command_line_room() -> String {
    " ".repeat(COMMAND_LINE_ROOM)
}

const COMMAND_LINE_ROOM: usize = 4096 + 512;

/// Largest request or reply, in bytes (a path is at most `PATH_MAX`, 4096).
pub const MAX_MESSAGE: usize = 16 * 1024;

/// One file to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The coordinator's number for it, echoed in the reply.
    pub id: u64,
    /// The file, as the worker's last argument.
    pub path: OsString,
    /// `PMWORKER_FAULT` for this child (the test-only fault hook), `None` to clear it.
    pub fault: Option<OsString>,
    /// Whether a breadcrumb slot descriptor follows stdout and stderr.
    pub with_slot: bool,
}

/// What the zygote says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Request `id` runs as process `pid`.
    Started { id: u64, pid: i32 },
    /// Request `id` could not be started: `fork` failed with `errno`.
    NotStarted { id: u64, errno: i32 },
    /// Process `pid` ended with wait status `status` (as `waitpid` gives it).
    Exited { pid: i32, status: i32 },
}

const WITH_SLOT: u8 = 1;
const WITH_FAULT: u8 = 2;

impl Request {
    /// `id`, flags, path length, path, then the fault specification.
    pub fn encode(&self) -> Vec<u8> {
        let path = self.path.as_bytes();
        let mut out = Vec::with_capacity(13 + path.len());
        out.extend_from_slice(&self.id.to_le_bytes());
        let flags = if self.with_slot { WITH_SLOT } else { 0 } | if self.fault.is_some() { WITH_FAULT } else { 0 };
        out.push(flags);
        out.extend_from_slice(&(path.len() as u32).to_le_bytes());
        out.extend_from_slice(path);
        if let Some(f) = &self.fault {
            out.extend_from_slice(f.as_bytes());
        }
        out
    }

    /// The request in `bytes`; `None` when they are not one.
    pub fn decode(bytes: &[u8]) -> Option<Request> {
        let id = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
        let flags = *bytes.get(8)?;
        let len = u32::from_le_bytes(bytes.get(9..13)?.try_into().ok()?) as usize;
        let path = bytes.get(13..13usize.checked_add(len)?)?;
        let rest = &bytes[13 + len..];
        if flags & !(WITH_SLOT | WITH_FAULT) != 0 || (flags & WITH_FAULT == 0 && !rest.is_empty()) {
            return None;
        }
        Some(Request {
            id,
            path: OsStr::from_bytes(path).to_owned(),
            fault: (flags & WITH_FAULT != 0).then(|| OsString::from_vec(rest.to_vec())),
            with_slot: flags & WITH_SLOT != 0,
        })
    }
}

impl Reply {
    /// A tag byte, then the fields, little-endian.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(13);
        match *self {
            Reply::Started { id, pid } => {
                out.push(b'S');
                out.extend_from_slice(&id.to_le_bytes());
                out.extend_from_slice(&pid.to_le_bytes());
            }
            Reply::NotStarted { id, errno } => {
                out.push(b'N');
                out.extend_from_slice(&id.to_le_bytes());
                out.extend_from_slice(&errno.to_le_bytes());
            }
            Reply::Exited { pid, status } => {
                out.push(b'X');
                out.extend_from_slice(&pid.to_le_bytes());
                out.extend_from_slice(&status.to_le_bytes());
            }
        }
        out
    }

    /// The reply in `bytes`; `None` when they are not one.
    pub fn decode(bytes: &[u8]) -> Option<Reply> {
        let i32_at = |at: usize| Some(i32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
        let u64_at = |at: usize| Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
        let reply = match *bytes.first()? {
            b'S' if bytes.len() == 13 => Reply::Started { id: u64_at(1)?, pid: i32_at(9)? },
            b'N' if bytes.len() == 13 => Reply::NotStarted { id: u64_at(1)?, errno: i32_at(9)? },
            b'X' if bytes.len() == 9 => Reply::Exited { pid: i32_at(1)?, status: i32_at(5)? },
            _ => return None,
        };
        Some(reply)
    }
}

/// Sends `bytes` as one message on `socket`, with `fds` attached. `MSG_DONTWAIT`: a peer
/// that stopped reading gives `EAGAIN` instead of a blocked caller.
pub fn send(socket: RawFd, bytes: &[u8], fds: &[RawFd]) -> std::io::Result<()> {
    let mut iov = libc::iovec { iov_base: bytes.as_ptr() as *mut libc::c_void, iov_len: bytes.len() };
    let mut space = [0u64; 8]; // room for CMSG_SPACE of 4 descriptors, 8-byte aligned
                               // SAFETY: msghdr is plain data; every pointer set below outlives the sendmsg call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    if !fds.is_empty() {
        let data_len = std::mem::size_of_val(fds) as u32;
        // SAFETY: CMSG_SPACE/CMSG_LEN compute sizes; `space` holds CMSG_SPACE(4 fds) ≥ this.
        let needed = unsafe { libc::CMSG_SPACE(data_len) } as usize;
        if fds.len() > 4 || needed > std::mem::size_of_val(&space) {
            return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
        }
        msg.msg_control = space.as_mut_ptr().cast();
        msg.msg_controllen = needed as _;
        // SAFETY: the control buffer is `needed` bytes long and aligned for cmsghdr.
        unsafe {
            let cmsg = libc::CMSG_FIRSTHDR(&msg);
            (*cmsg).cmsg_level = libc::SOL_SOCKET;
            (*cmsg).cmsg_type = libc::SCM_RIGHTS;
            (*cmsg).cmsg_len = libc::CMSG_LEN(data_len) as _;
            std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(cmsg).cast::<RawFd>(), fds.len());
        }
    }
    // SAFETY: `msg` is fully set up above.
    let n = unsafe { libc::sendmsg(socket, &msg, libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL) };
    if n < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if n as usize != bytes.len() {
        return Err(std::io::Error::new(std::io::ErrorKind::WriteZero, "message cut short"));
    }
    Ok(())
}

/// Receives one message from `socket` (blocking, or `WouldBlock` when none waits on a
/// non-blocking socket): its bytes (empty at end of stream) and the descriptors that came
/// with it, each close-on-exec.
pub fn receive(socket: RawFd) -> std::io::Result<(Vec<u8>, Vec<std::os::fd::OwnedFd>)> {
    use std::os::fd::FromRawFd;
    let mut buf = vec![0u8; MAX_MESSAGE];
    let mut iov = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
    let mut space = [0u64; 8];
    // SAFETY: msghdr is plain data; every pointer set below outlives the recvmsg call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = space.as_mut_ptr().cast();
    msg.msg_controllen = std::mem::size_of_val(&space) as _;
    let n = loop {
        // SAFETY: `msg` points at buffers we own for the length it states.
        let n = unsafe { libc::recvmsg(socket, &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n >= 0 {
            break n as usize;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    };
    let mut fds = Vec::new();
    // SAFETY: walking the control messages recvmsg filled in, within msg_controllen.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(cmsg).cast::<RawFd>();
                let count = ((*cmsg).cmsg_len as usize - libc::CMSG_LEN(0) as usize) / std::mem::size_of::<RawFd>();
                for i in 0..count {
                    fds.push(std::os::fd::OwnedFd::from_raw_fd(std::ptr::read_unaligned(data.add(i))));
                }
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
    }
    if msg.msg_flags & (libc::MSG_TRUNC | libc::MSG_CTRUNC) != 0 {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, "message or descriptors cut short"));
    }
    buf.truncate(n);
    Ok((buf, fds))
}

extern "C" fn on_child(_: libc::c_int) {}

/// Runs the zygote on the socket `socket` until it closes: `worker_args` are the worker's
/// arguments before the file (program name first), and each child runs `check_file` on
/// them with its file last (the worker's command line, `crate::cli`, which starts the
/// zygote: passed in, so this module does not import it back). Returns the process's exit
/// code. Single-threaded by design: `fork` copies only the calling thread.
pub fn serve(mut worker_args: Vec<OsString>, socket: RawFd, check_file: fn(Vec<OsString>) -> i32) -> i32 {
    if worker_args.last().is_some_and(|a| a.len() == COMMAND_LINE_ROOM && a.as_bytes().iter().all(|&b| b == b' ')) {
        worker_args.pop();
    }
    // SIGCHLD is blocked except inside ppoll, so a child's end always wakes the wait below.
    // SAFETY: signal-set and sigaction calls on structs we own; the handler does nothing.
    let open_mask = unsafe {
        let mut chld: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut chld);
        libc::sigaddset(&mut chld, libc::SIGCHLD);
        let mut before: libc::sigset_t = std::mem::zeroed();
        libc::sigprocmask(libc::SIG_BLOCK, &chld, &mut before);
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_child as extern "C" fn(libc::c_int) as usize;
        action.sa_flags = libc::SA_NOCLDSTOP;
        libc::sigaction(libc::SIGCHLD, &action, std::ptr::null_mut());
        let mut open = before;
        libc::sigdelset(&mut open, libc::SIGCHLD);
        (before, open)
    };
    // SAFETY: getpid has no preconditions.
    let zygote = unsafe { libc::getpid() };
    loop {
        if reap(socket).is_err() {
            return 0; // the coordinator is gone: so are we (and our children with us)
        }
        let mut pfd = libc::pollfd { fd: socket, events: libc::POLLIN, revents: 0 };
        // SAFETY: one pollfd we own; the mask is a valid sigset.
        let ready = unsafe { libc::ppoll(&mut pfd, 1, std::ptr::null(), &open_mask.1) };
        if ready < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue; // a child ended: reaped at the top
            }
            return 1;
        }
        if pfd.revents & libc::POLLIN == 0 {
            if pfd.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
                return 0;
            }
            continue;
        }
        let Ok((bytes, fds)) = receive(socket) else { return 1 };
        if bytes.is_empty() {
            return 0; // end of stream: the run is over
        }
        let Some(request) = Request::decode(&bytes) else { return 1 };
        let expected = if request.with_slot { 3 } else { 2 };
        if fds.len() != expected {
            return 1;
        }
        // SAFETY: this process is single-threaded (see above), so the child may run any code.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let code = child(&worker_args, request, fds, socket, zygote, &open_mask.0, check_file);
            crate::memory::exit_worker(code);
        }
        let reply = if pid < 0 {
            Reply::NotStarted { id: request.id, errno: std::io::Error::last_os_error().raw_os_error().unwrap_or(0) }
        } else {
            // Its own group from here on, whichever of the two calls runs first, so the
            // coordinator can signal the whole group as soon as it hears the pid.
            // SAFETY: setpgid on our own child.
            unsafe { libc::setpgid(pid, pid) };
            Reply::Started { id: request.id, pid }
        };
        drop(fds);
        if send(socket, &reply.encode(), &[]).is_err() {
            return 1;
        }
    }
}

/// Sends an `exited` reply for every child that has ended.
fn reap(socket: RawFd) -> std::io::Result<()> {
    loop {
        let mut status = 0;
        // SAFETY: waitpid writes one int we own.
        let pid = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if pid <= 0 {
            return Ok(());
        }
        send(socket, &Reply::Exited { pid, status }.encode(), &[])?;
    }
}

/// In the forked child: becomes a worker for `request`'s file and returns its exit code.
fn child(
    worker_args: &[OsString],
    request: Request,
    fds: Vec<std::os::fd::OwnedFd>,
    socket: RawFd,
    zygote: libc::pid_t,
    signal_mask: &libc::sigset_t,
    check_file: fn(Vec<OsString>) -> i32,
) -> i32 {
    use std::os::fd::{AsRawFd, IntoRawFd};
    let mut fds = fds.into_iter();
    let (Some(stdout), Some(stderr)) = (fds.next(), fds.next()) else {
        return crate::confine::NOT_CONFINED_EXIT;
    };
    // Stays open for the worker's mapping, under the number it names.
    let slot = fds.next().map(IntoRawFd::into_raw_fd);
    // SAFETY: plain system calls on descriptors and structs this process owns; the process
    // has one thread, so changing its environment races with nothing.
    unsafe {
        libc::close(socket);
        libc::signal(libc::SIGCHLD, libc::SIG_DFL);
        libc::sigprocmask(libc::SIG_SETMASK, signal_mask, std::ptr::null_mut());
        libc::setpgid(0, 0);
        // Dies with the zygote, which dies with the coordinator; a zygote already gone
        // means nobody supervises this child: it goes. (Its address-space cap is the
        // zygote's, inherited through `fork`.)
        if crate::confine::confine(zygote as u32, None).is_err() {
            libc::_exit(crate::confine::NOT_CONFINED_EXIT);
        }
        if libc::dup2(stdout.as_raw_fd(), 1) < 0 || libc::dup2(stderr.as_raw_fd(), 2) < 0 {
            libc::_exit(crate::confine::NOT_CONFINED_EXIT);
        }
        std::env::remove_var(ZYGOTE_VAR);
        match slot {
            Some(fd) => std::env::set_var(crate::slot::SLOT_VAR, crate::slot::inherited(fd)),
            None => std::env::remove_var(crate::slot::SLOT_VAR),
        }
        match &request.fault {
            Some(spec) => std::env::set_var(crate::fault::FAULT_VAR, spec),
            None => std::env::remove_var(crate::fault::FAULT_VAR),
        }
    }
    // stdout and stderr are the pipes now; the received copies close (never fds 0-2: the
    // zygote's own are open, so what it received came above them).
    for copy in [stdout, stderr] {
        if copy.as_raw_fd() > 2 {
            drop(copy);
        } else {
            let _ = copy.into_raw_fd();
        }
    }
    crate::start::set_last_argument(&request.path);
    check_file(worker_args.iter().cloned().chain(std::iter::once(request.path)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_replies_round_trip_and_bad_bytes_are_refused() {
        for request in [
            Request { id: 7, path: "a/b.max".into(), fault: None, with_slot: true },
            Request {
                id: u64::MAX,
                path: OsString::from_vec(vec![0xff, b'x']),
                fault: Some("abort@t1".into()),
                with_slot: false,
            },
            Request { id: 0, path: OsString::new(), fault: Some(OsString::new()), with_slot: false },
        ] {
            assert_eq!(Request::decode(&request.encode()), Some(request.clone()));
            let bytes = request.encode();
            for cut in 0..13 {
                assert_eq!(Request::decode(&bytes[..cut]), None, "cut at {cut}");
            }
        }
        let mut bad_flags = Request { id: 1, path: "x".into(), fault: None, with_slot: false }.encode();
        bad_flags[8] = 4;
        assert_eq!(Request::decode(&bad_flags), None);
        let mut trailing = Request { id: 1, path: "x".into(), fault: None, with_slot: false }.encode();
        trailing.push(b'!');
        assert_eq!(Request::decode(&trailing), None, "bytes after the path without a fault flag");
        for reply in [
            Reply::Started { id: 3, pid: 4242 },
            Reply::NotStarted { id: 4, errno: libc::EAGAIN },
            Reply::Exited { pid: 4242, status: 0x0b },
        ] {
            assert_eq!(Reply::decode(&reply.encode()), Some(reply));
        }
        assert_eq!(Reply::decode(b""), None);
        assert_eq!(Reply::decode(b"S123"), None);
        assert_eq!(Reply::decode(b"Q123456789012"), None);
    }

    #[test]
    fn messages_carry_descriptors_across_a_socket_pair() {
        use std::io::{Read, Write};
        use std::os::fd::{AsRawFd, FromRawFd};
        let mut pair = [0; 2];
        // SAFETY: socketpair writes two descriptors we then own.
        assert_eq!(
            unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC, 0, pair.as_mut_ptr()) },
            0
        );
        // SAFETY: the two descriptors socketpair just gave us.
        let (a, b) =
            unsafe { (std::os::fd::OwnedFd::from_raw_fd(pair[0]), std::os::fd::OwnedFd::from_raw_fd(pair[1])) };
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(b"through the socket").unwrap();
        send(a.as_raw_fd(), b"hello", &[file.as_raw_fd()]).unwrap();
        let (bytes, fds) = receive(b.as_raw_fd()).unwrap();
        assert_eq!(bytes, b"hello");
        assert_eq!(fds.len(), 1);
        let mut copy = std::fs::File::from(fds.into_iter().next().unwrap());
        let mut text = String::new();
        std::io::Seek::seek(&mut copy, std::io::SeekFrom::Start(0)).unwrap();
        copy.read_to_string(&mut text).unwrap();
        assert_eq!(text, "through the socket");
        drop(a);
        let (end, none) = receive(b.as_raw_fd()).unwrap();
        assert!(end.is_empty() && none.is_empty(), "end of stream once the peer closes");
    }
}
