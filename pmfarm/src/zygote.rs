//! The coordinator's side of the worker zygote (`pmworker::zygote`): one process per run,
//! started from the farm's own binary, that forks one child per file. Every file still runs
//! in a process of its own, in its own process group, under the same limits and watch as a
//! worker started with `posix_spawn` ([`crate::supervise`]); what a forked child skips is a
//! program's start (≈ 1 ms of CPU per file, docs/performance.md).
//!
//! A task on the run's own event loop turns the zygote's replies into each worker's pid
//! and, later, its wait status (no thread of its own: a reply then wakes the one thread that
//! waits for it, not a reader thread that would wake it in turn). When the zygote is gone
//! (killed, or it refused a message), every worker it had started dies with it
//! (`PR_SET_PDEATHSIG`); their files are run again with `posix_spawn`, as is every file
//! after them ([`Zygote::usable`]).

use pmworker::zygote::{receive, send, Reply, Request, ZYGOTE_VAR};
use std::collections::HashMap;
use std::ffi::OsString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// How the farm starts the workers of its own binary (`--worker-start`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum WorkerStart {
    /// Forked, one per file, by a zygote the run starts once (the default).
    #[default]
    Zygote,
    /// Each its own program, started with `posix_spawn`.
    Spawn,
}

/// How long a request waits for the zygote's `started` before the zygote counts as gone.
const START_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// A running zygote.
pub struct Zygote {
    socket: OwnedFd,
    process: Mutex<std::process::Child>,
    state: Arc<Mutex<State>>,
    next_id: AtomicU64,
    /// Set once the loss has been handed out for the run to report ([`Zygote::loss_to_report`]).
    loss_reported: AtomicBool,
    /// Set once the task that reads the replies runs (started by the first launch, on the
    /// run's event loop).
    reading: AtomicBool,
}

#[derive(Default)]
struct State {
    /// Why the zygote cannot be used any more; `None` while it can.
    lost: Option<String>,
    starts: HashMap<u64, oneshot::Sender<Result<Forked, i32>>>,
    exits: HashMap<i32, oneshot::Sender<i32>>,
}

/// A worker the zygote forked.
#[derive(Debug)]
pub struct Forked {
    /// Its process id (and process group id).
    pub pid: i32,
    /// Its wait status, once the zygote has reaped it; closed when the zygote is gone.
    pub exit: oneshot::Receiver<i32>,
}

/// Why a worker could not be forked.
#[derive(Debug)]
pub enum LaunchError {
    /// The zygote is gone or stopped answering; the reason.
    Lost(String),
    /// `fork` (in the zygote) or sending the request failed with this error.
    Io(std::io::Error),
}

impl Zygote {
    /// Starts the zygote: `exe` with `args` (the worker's arguments before the file), and
    /// `env` added to this process's environment.
    pub fn start(exe: &Path, args: &[String], env: &[(&str, String)]) -> std::io::Result<Zygote> {
        let mut pair = [0; 2];
        // SAFETY: socketpair writes two descriptors, which we own from here on.
        if unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC, 0, pair.as_mut_ptr()) }
            != 0
        {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: the two descriptors socketpair just returned.
        let (ours, theirs) = unsafe { (OwnedFd::from_raw_fd(pair[0]), OwnedFd::from_raw_fd(pair[1])) };
        let mut command = std::process::Command::new(exe);
        command.args(args).envs(env.iter().map(|(k, v)| (*k, v.as_str())));
        command.env(ZYGOTE_VAR, theirs.as_raw_fd().to_string());
        command.env_remove(pmworker::fault::FAULT_VAR); // each child gets its own, or none
        command.stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null());
        command.stderr(std::process::Stdio::null());
        // Its own process group, as every worker has: a terminal's Ctrl-C reaches the
        // coordinator alone, and the zygote goes when the coordinator goes.
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let process = crate::inherit::spawn_inheriting(theirs.as_raw_fd(), || command.spawn())?;
        drop(theirs);
        // Replies are read when the event loop says they are there (requests are sent with
        // MSG_DONTWAIT whatever this flag says).
        // SAFETY: fcntl on the descriptor we own.
        if unsafe { libc::fcntl(ours.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Zygote {
            socket: ours,
            process: Mutex::new(process),
            state: Arc::new(Mutex::new(State::default())),
            next_id: AtomicU64::new(1),
            loss_reported: AtomicBool::new(false),
            reading: AtomicBool::new(false),
        })
    }

    /// Why the zygote can no longer start workers, `None` while it can.
    pub fn lost(&self) -> Option<String> {
        self.state.lock().map(|s| s.lost.clone()).unwrap_or_else(|_| Some("state poisoned".into()))
    }

    /// Why the zygote is gone, the first time this is asked after it went (so a run says
    /// it once); `None` while it works, and on every later call.
    pub fn loss_to_report(&self) -> Option<String> {
        let why = self.lost()?;
        (!self.loss_reported.swap(true, Ordering::SeqCst)).then_some(why)
    }

    /// Whether workers can still be forked.
    pub fn usable(&self) -> bool {
        self.lost().is_none()
    }

    /// Forks a worker for `path` with `stdout` and `stderr` (write ends, closed here once
    /// handed over), the breadcrumb slot `slot` and the fault hook `fault`.
    pub async fn launch(
        &self,
        path: &Path,
        fault: Option<OsString>,
        stdout: OwnedFd,
        stderr: OwnedFd,
        slot: Option<RawFd>,
    ) -> Result<Forked, LaunchError> {
        if !self.reading.swap(true, Ordering::SeqCst) {
            self.start_reading()?;
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut state = self.state.lock().map_err(|_| LaunchError::Lost("state poisoned".into()))?;
            if let Some(why) = &state.lost {
                return Err(LaunchError::Lost(why.clone()));
            }
            state.starts.insert(id, tx);
        }
        let request = Request { id, path: path.as_os_str().to_owned(), fault, with_slot: slot.is_some() };
        let mut fds = vec![stdout.as_raw_fd(), stderr.as_raw_fd()];
        fds.extend(slot);
        let sent = send(self.socket.as_raw_fd(), &request.encode(), &fds);
        drop((stdout, stderr)); // the zygote holds its own copies now (or nobody does)
        if let Err(e) = sent {
            self.forget(id);
            return Err(match e.raw_os_error() {
                Some(libc::EAGAIN) => self.give_up("stopped taking requests"),
                _ => self.give_up(&format!("cannot send it a request: {e}")),
            });
        }
        match tokio::time::timeout(START_WAIT, rx).await {
            Ok(Ok(Ok(forked))) => Ok(forked),
            Ok(Ok(Err(errno))) => Err(LaunchError::Io(std::io::Error::from_raw_os_error(errno))),
            Ok(Err(_)) => Err(LaunchError::Lost(self.lost().unwrap_or_else(|| "ended".into()))),
            Err(_) => {
                self.forget(id);
                Err(self.give_up(&format!("no answer in {} s", START_WAIT.as_secs())))
            }
        }
    }

    /// Starts the task that reads the replies, on the event loop this is called from.
    fn start_reading(&self) -> Result<(), LaunchError> {
        let socket = self.socket.try_clone().and_then(|fd| {
            // SAFETY: an OwnedFd (a copy of our socket) stays open, the same descriptor,
            // for as long as the AsyncFd that owns it.
            unsafe { tokio::io::unix::AsyncFd::register(fd) }.map_err(std::io::Error::from)
        });
        match socket {
            Ok(socket) => {
                tokio::spawn(read_replies(socket, self.state.clone()));
                Ok(())
            }
            Err(e) => Err(self.give_up(&format!("cannot watch its replies: {e}"))),
        }
    }

    fn forget(&self, id: u64) {
        if let Ok(mut s) = self.state.lock() {
            s.starts.remove(&id);
        }
    }

    /// Marks the zygote lost (its children keep running and are still watched).
    fn give_up(&self, why: &str) -> LaunchError {
        if let Ok(mut s) = self.state.lock() {
            s.lost.get_or_insert_with(|| why.to_string());
        }
        LaunchError::Lost(why.to_string())
    }
}

impl std::fmt::Debug for Zygote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Zygote").field("socket", &self.socket).field("lost", &self.lost()).finish()
    }
}

impl Drop for Zygote {
    /// Ends the zygote and waits for it: the socket closes (it leaves when it reads the end)
    /// and SIGKILL makes sure, so a stopped zygote cannot hold the run up. Its children, if
    /// any are left, die with it.
    fn drop(&mut self) {
        // SAFETY: shutdown on a socket we own.
        unsafe { libc::shutdown(self.socket.as_raw_fd(), libc::SHUT_RDWR) };
        if let Ok(mut p) = self.process.lock() {
            let _ = p.kill();
            let _ = p.wait();
        }
    }
}

/// The reader task: hands each reply to whoever waits for it, until the socket ends.
async fn read_replies(socket: tokio::io::unix::AsyncFd<OwnedFd>, state: Arc<Mutex<State>>) {
    let why = loop {
        let mut ready = match socket.readable().await {
            Ok(ready) => ready,
            Err(e) => break format!("cannot watch its replies: {e}"),
        };
        let bytes = match receive(socket.get_ref().as_raw_fd()) {
            Ok((bytes, _)) if bytes.is_empty() => break "ended".to_string(),
            Ok((bytes, _)) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                ready.clear_ready();
                continue;
            }
            Err(e) => break format!("cannot read its replies: {e}"),
        };
        let Some(reply) = Reply::decode(&bytes) else { break "sent a reply that does not parse".to_string() };
        let Ok(mut s) = state.lock() else { return };
        match reply {
            Reply::Started { id, pid } => {
                let (tx, exit) = oneshot::channel();
                s.exits.insert(pid, tx);
                let delivered = s.starts.remove(&id).is_some_and(|w| w.send(Ok(Forked { pid, exit })).is_ok());
                if !delivered {
                    // Nobody watches it (its request gave up waiting): it must not run on.
                    s.exits.remove(&pid);
                    // SAFETY: signalling the process group the zygote created for it.
                    unsafe { libc::kill(-pid, libc::SIGKILL) };
                }
            }
            Reply::NotStarted { id, errno } => {
                if let Some(w) = s.starts.remove(&id) {
                    let _ = w.send(Err(errno));
                }
            }
            Reply::Exited { pid, status } => {
                if let Some(w) = s.exits.remove(&pid) {
                    let _ = w.send(status);
                }
            }
        }
    };
    if let Ok(mut s) = state.lock() {
        s.lost.get_or_insert(why);
        // Every waiter hears "gone": its worker died with the zygote (PR_SET_PDEATHSIG).
        s.starts.clear();
        s.exits.clear();
    }
}
