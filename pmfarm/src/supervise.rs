//! Runs one `pmworker` under the limits: its own process group, an address-space cap,
//! a hard and a no-output timeout, SIGTERM → grace → SIGKILL of the whole group, stdout
//! parsed line by line as it streams (read on the watch loop's wake-ups, bounded line
//! length and total bytes), the tail of stderr kept. Produces a [`RawRun`]; deciding the
//! status is [`crate::outcome`]'s job.

use crate::limits::Limits;
use crate::zygote::{Forked, LaunchError, Zygote};
use pmworker::confine::Confinement;
use pmworker::events::Event;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Instant;
use tokio::process::Command;

/// Environment variable naming a path substring: when set, the worker fault hook
/// (`PMWORKER_FAULT`) is passed only to workers whose file path contains it. Lets tests
/// break one file of a run while the rest completes.
pub const FAULT_FILE_VAR: &str = "PMWORKER_FAULT_FILE";

/// How the worker is launched.
#[derive(Clone, Debug)]
pub struct WorkerCommand {
    /// The `pmworker` executable.
    pub exe: PathBuf,
    /// Arguments placed before the file path (tiers, exports, reference folder).
    pub args: Vec<String>,
    /// How the limits reach the worker.
    pub confinement: Confinement,
    /// The run's zygote, which forks the workers of the farm's own binary; `None` (or a
    /// zygote that is gone) starts each worker as a program of its own.
    pub zygote: Option<Arc<Zygote>>,
}

/// Why the farm killed a worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KillReason {
    /// The hard time limit passed.
    HardTimeout,
    /// No output for the idle limit.
    IdleTimeout,
    /// Stdout broke a bound (line too long, too many bytes).
    OutputBound(String),
}

/// Everything observed about one worker run.
#[derive(Debug, Default)]
pub struct RawRun {
    /// Parsed events in order.
    pub events: Vec<Event>,
    /// Lines that were not events (count) and the first one (truncated).
    pub garbage_lines: u64,
    /// First unparsable line, truncated to 200 bytes.
    pub first_garbage: Option<String>,
    /// Exit code when the worker exited.
    pub exit_code: Option<i32>,
    /// Signal number that ended it.
    pub signal: Option<i32>,
    /// Set when the farm killed it.
    pub killed: Option<KillReason>,
    /// Last bytes of stderr.
    pub stderr_tail: String,
    /// Wall time from spawn to reap.
    pub wall_ms: u64,
    /// Set when the worker could not be started.
    pub spawn_error: Option<String>,
    /// The start failed for want of a coordinator resource (descriptors, processes,
    /// memory: EMFILE, ENFILE, EAGAIN, ENOMEM), not because of the file: worth a retry
    /// at a lower concurrency.
    pub exhausted: bool,
    /// Last breadcrumb from the worker's breadcrumb slot (exact, including the Scene
    /// object ones that do not go to stdout), when the slot holds a complete one.
    pub slot_breadcrumb: Option<pmworker::events::Breadcrumb>,
    /// The worker was forked by the zygote, which is gone: the worker died with it, so the
    /// file is run again without the zygote.
    pub zygote_lost: bool,
}

/// A one-page breadcrumb slot for one worker (`pmworker::slot`). The file never has a name:
/// it is an anonymous memory file (`memfd_create`; an unlinked `O_TMPFILE` in `$TMPDIR`
/// where the kernel has none) handed to the worker as an inherited descriptor
/// (`/proc/self/fd/N`), so no `pmfarm-slot-*` file can be left behind whoever is killed
/// when, and no file system is touched per worker. Written out in full, not sparse, so a
/// shortage fails here (and the worker falls back to stdout breadcrumbs) instead of raising
/// SIGBUS in the worker.
struct BreadcrumbSlot {
    file: std::fs::File,
}

impl BreadcrumbSlot {
    fn create() -> std::io::Result<Self> {
        use std::io::Write;
        let mut file = anonymous_memory_file().or_else(|_| tempfile::tempfile())?;
        // Written out (not sparse) so the pages exist; no sync: a shared mapping needs none.
        file.write_all(&[0u8; pmworker::slot::SLOT_BYTES])?;
        Ok(BreadcrumbSlot { file })
    }

    fn fd(&self) -> i32 {
        use std::os::unix::io::AsRawFd;
        self.file.as_raw_fd()
    }

    /// The slot's bytes (fewer when the read comes up short, none when it fails).
    fn read(&self) -> Vec<u8> {
        use std::os::unix::fs::FileExt;
        let mut buf = [0u8; pmworker::slot::SLOT_BYTES];
        match self.file.read_at(&mut buf, 0) {
            Ok(n) => buf[..n].to_vec(),
            Err(_) => Vec::new(),
        }
    }
}

/// A close-on-exec memory file with no name in any file system (`memfd_create`).
fn anonymous_memory_file() -> std::io::Result<std::fs::File> {
    use std::os::unix::io::FromRawFd;
    // SAFETY: memfd_create reads the NUL-terminated name and returns a new descriptor or -1.
    let fd = unsafe { libc::memfd_create(c"pmfarm-slot".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` is a descriptor we just opened and own.
    Ok(unsafe { std::fs::File::from_raw_fd(fd) })
}

/// Errors that say the coordinator ran short of a resource rather than anything about the file.
pub fn is_exhaustion(e: &std::io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE | libc::EAGAIN | libc::ENOMEM))
}

/// How often a running worker's stdout and stderr are read. They are never registered with
/// the event loop: a pipe there wakes the coordinator for every line the worker flushes
/// (edge-triggered readiness), ≈ 20 wake-ups per file, each a context switch on a core a
/// worker is using. Instead the watch loop wakes when the worker ends (its wait status), at
/// a deadline, or at the next read, which comes [`READ_FIRST`] after the start, then at
/// intervals doubling up to [`READ_MAX`] while little comes, or [`READ_BUSY`] after a read of
/// [`BUSY_BYTES`] or more (a full pipe holds a worker's next write until it is read).
const READ_FIRST: std::time::Duration = std::time::Duration::from_millis(10);
const READ_MAX: std::time::Duration = std::time::Duration::from_millis(40);
const READ_BUSY: std::time::Duration = std::time::Duration::from_millis(1);
const BUSY_BYTES: u64 = 16 * 1024;
/// At most this many reads of each pipe per wake-up, so a worker that floods a pipe as fast
/// as it is read cannot keep the watch loop from its deadlines (or from other workers).
const READS_PER_WAKE: u32 = 16;

/// A started worker and the read ends of its stdout and stderr.
struct Launched {
    process: Process,
    stdout: OutputPipe,
    stderr: OutputPipe,
}

/// The read end of a worker's stdout or stderr, read without blocking; `None` once it ended.
struct OutputPipe(Option<OwnedFd>);

impl OutputPipe {
    /// A close-on-exec pipe for a worker's output: (its read end, non-blocking; the write
    /// end for the worker, blocking, so a full pipe holds the worker instead of failing it).
    fn create() -> std::io::Result<(OutputPipe, OwnedFd)> {
        use std::os::fd::FromRawFd;
        let mut fds = [0; 2];
        // SAFETY: pipe2 writes two descriptors, which we own from here on.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: the two descriptors pipe2 just returned.
        let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        // SAFETY: fcntl on the read end, which we own.
        if unsafe { libc::fcntl(read.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok((OutputPipe(Some(read)), write))
    }

    fn is_open(&self) -> bool {
        self.0.is_some()
    }

    /// One read into `buf` (cleared first, filled up to its capacity): the bytes read, or
    /// `None` when the pipe holds nothing now or has ended (every write end closed, or an
    /// error that ends it; [`OutputPipe::is_open`] then says `false`).
    fn read(&mut self, buf: &mut Vec<u8>) -> Option<usize> {
        let fd = self.0.as_ref()?;
        buf.clear();
        loop {
            // SAFETY: reads at most `capacity` bytes into the vector's own allocation.
            let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.capacity()) };
            if n > 0 {
                // SAFETY: the kernel wrote `n` ≤ capacity bytes.
                unsafe { buf.set_len(n as usize) };
                return Some(n as usize);
            }
            if n < 0 {
                match std::io::Error::last_os_error().raw_os_error() {
                    Some(libc::EINTR) => continue,
                    Some(libc::EAGAIN) => return None,
                    _ => {}
                }
            }
            self.0 = None;
            return None;
        }
    }
}

/// Why a worker did not start.
enum Unlaunched {
    /// The zygote is gone: the file is started again without it.
    Lost(String),
    /// Starting it failed with this error.
    Io(std::io::Error),
}

/// A worker process, however it was started.
enum Process {
    /// Its own program, a child of the coordinator.
    Spawned(tokio::process::Child),
    /// Forked by the zygote, which reports its wait status.
    Forked { pid: i32, exit: tokio::sync::oneshot::Receiver<i32>, status: Option<std::process::ExitStatus> },
}

/// After SIGKILL, how long a forked worker's wait status may take to come from the zygote
/// before the farm records the kill itself (a zygote stopped by hand must not hold the run).
const KILLED_REPORT_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

impl Process {
    /// The process id, which is also its process group id.
    fn id(&self) -> Option<i32> {
        match self {
            Process::Spawned(c) => c.id().map(|p| p as i32),
            Process::Forked { pid, .. } => Some(*pid),
        }
    }

    /// Waits for its end (cancel-safe: a later call picks up where this one stopped).
    async fn wait(&mut self) -> std::io::Result<std::process::ExitStatus> {
        match self {
            Process::Spawned(c) => c.wait().await,
            Process::Forked { status: Some(s), .. } => Ok(*s),
            Process::Forked { exit, status, .. } => match exit.await {
                Ok(raw) => Ok(*status.insert(std::process::ExitStatus::from_raw(raw))),
                Err(_) => Err(std::io::Error::other("its zygote ended before reporting it")),
            },
        }
    }

    /// SIGKILL to the process (its group has been signalled already).
    fn start_kill(&mut self) {
        match self {
            Process::Spawned(c) => {
                let _ = c.start_kill();
            }
            // SAFETY: signalling the process the zygote forked for this file.
            Process::Forked { pid, .. } => unsafe {
                libc::kill(*pid, libc::SIGKILL);
            },
        }
    }

    /// Waits for the end of a process just sent SIGKILL; a forked one whose status does not
    /// come within [`KILLED_REPORT_WAIT`] is recorded as killed by that signal.
    async fn wait_killed(&mut self) -> std::io::Result<std::process::ExitStatus> {
        match self {
            Process::Spawned(_) => self.wait().await,
            Process::Forked { .. } => match tokio::time::timeout(KILLED_REPORT_WAIT, self.wait()).await {
                Ok(status) => status,
                Err(_) => Ok(std::process::ExitStatus::from_raw(libc::SIGKILL)),
            },
        }
    }
}

/// The fault hook a worker for `file` gets: `PMWORKER_FAULT`, unless [`FAULT_FILE_VAR`]
/// names another file.
fn fault_for(file: &Path) -> Option<std::ffi::OsString> {
    let spec = std::env::var_os(pmworker::fault::FAULT_VAR)?;
    match std::env::var(FAULT_FILE_VAR) {
        Ok(target) if !file.to_string_lossy().contains(&target) => None,
        _ => Some(spec),
    }
}

/// Has the zygote fork a worker for `file`, its output into two fresh pipes.
async fn fork_worker(zygote: &Zygote, file: &Path, slot: Option<i32>) -> Result<Launched, Unlaunched> {
    let (stdout, out_write) = OutputPipe::create().map_err(Unlaunched::Io)?;
    let (stderr, err_write) = OutputPipe::create().map_err(Unlaunched::Io)?;
    match zygote.launch(file, fault_for(file), out_write, err_write, slot).await {
        Ok(Forked { pid, exit }) => {
            Ok(Launched { process: Process::Forked { pid, exit, status: None }, stdout, stderr })
        }
        Err(LaunchError::Lost(why)) => Err(Unlaunched::Lost(why)),
        Err(LaunchError::Io(e)) => Err(Unlaunched::Io(e)),
    }
}

/// Starts `cmd` on `file` as a program of its own (`posix_spawn` for the farm's own binary,
/// `fork` + limits + `exec` for any other).
fn spawn_worker(
    cmd: &WorkerCommand,
    file: &Path,
    limits: &Limits,
    slot_fd: Option<i32>,
) -> Result<Launched, Unlaunched> {
    let (stdout, out_write) = OutputPipe::create().map_err(Unlaunched::Io)?;
    let (stderr, err_write) = OutputPipe::create().map_err(Unlaunched::Io)?;
    let mut command = Command::new(&cmd.exe);
    command.args(&cmd.args).arg(file).stdin(Stdio::null()).stdout(out_write).stderr(err_write);
    command.process_group(0).kill_on_drop(true);
    let coordinator = std::process::id();
    let memory = limits.memory_bytes;
    command.envs(pmworker::confine::worker_environment(coordinator, cmd.confinement, memory));
    match fault_for(file) {
        Some(spec) => command.env(pmworker::fault::FAULT_VAR, spec),
        None => command.env_remove(pmworker::fault::FAULT_VAR),
    };
    command.env_remove(FAULT_FILE_VAR);
    if let Some(fd) = slot_fd {
        command.env(pmworker::slot::SLOT_VAR, pmworker::slot::inherited(fd));
    }
    if cmd.confinement == Confinement::BeforeExec {
        // SAFETY: only async-signal-safe libc calls between fork and exec.
        unsafe {
            command.pre_exec(move || {
                pmworker::confine::before_exec(coordinator, memory)?;
                // The slot (close-on-exec in the coordinator) is inherited by this worker only.
                if let Some(fd) = slot_fd {
                    if libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
    }
    let spawned = match (cmd.confinement, slot_fd) {
        (Confinement::InWorker, Some(fd)) => crate::inherit::spawn_inheriting(fd, || command.spawn()),
        _ => command.spawn(),
    };
    // The write ends go with the command: only the worker holds them now, so its end
    // (or its group's) ends the pipes.
    drop(command);
    let child = spawned.map_err(Unlaunched::Io)?;
    Ok(Launched { process: Process::Spawned(child), stdout, stderr })
}

/// Runs the worker on `file` and watches it until it ends or is killed.
pub async fn run_worker(cmd: &WorkerCommand, file: &Path, limits: &Limits) -> RawRun {
    let started = Instant::now();
    let mut run = RawRun::default();
    let slot = match BreadcrumbSlot::create() {
        Ok(slot) => Some(slot),
        Err(e) if is_exhaustion(&e) => {
            run.spawn_error = Some(format!("cannot create the breadcrumb slot: {e}"));
            run.exhausted = true;
            return run;
        }
        Err(_) => None, // e.g. no memory file and a full $TMPDIR: stdout breadcrumbs then
    };
    let slot_fd = slot.as_ref().map(BreadcrumbSlot::fd);
    let zygote = cmd.zygote.as_ref().filter(|z| z.usable());
    let launched = match zygote {
        Some(z) => fork_worker(z, file, slot_fd).await,
        None => spawn_worker(cmd, file, limits, slot_fd),
    };
    let Launched { process: mut child, mut stdout, mut stderr } = match launched {
        Ok(l) => l,
        Err(Unlaunched::Lost(why)) => {
            run.spawn_error = Some(format!("the worker zygote {why}"));
            run.zygote_lost = true;
            return run;
        }
        Err(Unlaunched::Io(e)) => {
            run.exhausted = is_exhaustion(&e);
            run.spawn_error = Some(format!("cannot start {}: {e}", cmd.exe.display()));
            return run;
        }
    };
    let pid = child.id();
    let mut slot_seq = None;
    // Read into spare capacity: no buffer zeroed per worker.
    let mut out_buf = Vec::with_capacity(64 * 1024);
    let mut err_buf = Vec::with_capacity(16 * 1024);
    let mut line = Vec::new();
    let mut total_out = 0u64;
    let mut stderr_tail: Vec<u8> = Vec::new();
    let mut exit = None;
    let hard_deadline = tokio::time::Instant::from_std(started + limits.timeout);
    let mut last_output = tokio::time::Instant::now();
    let mut interval = READ_FIRST;
    while run.killed.is_none() {
        // Everything the pipes hold now (after the worker's end: up to their end).
        let mut fresh = drain_stdout(&mut stdout, &mut out_buf, &mut line, &mut total_out, &mut run, limits);
        fresh += drain_stderr(&mut stderr, &mut err_buf, &mut stderr_tail, limits);
        let now = tokio::time::Instant::now();
        if fresh > 0 {
            last_output = now;
        }
        if run.killed.is_some() || (exit.is_some() && !stdout.is_open() && !stderr.is_open()) {
            break;
        }
        let deadline = hard_deadline.min(last_output + limits.idle_timeout);
        if now >= deadline {
            // Breadcrumbs written to the slot are progress too: the worker is busy, not idle.
            let seq = slot.as_ref().and_then(|s| pmworker::slot::read_seq(&s.read()));
            if now < hard_deadline && seq.is_some() && seq != slot_seq {
                slot_seq = seq;
                last_output = now;
                continue;
            }
            run.killed = Some(if now >= hard_deadline { KillReason::HardTimeout } else { KillReason::IdleTimeout });
            break;
        }
        let wait = if fresh >= BUSY_BYTES {
            interval = READ_FIRST;
            READ_BUSY
        } else {
            let this = interval;
            interval = (interval * 2).min(READ_MAX);
            this
        };
        tokio::select! {
            status = child.wait(), if exit.is_none() => exit = Some(status),
            _ = tokio::time::sleep_until((now + wait).min(deadline)) => {}
        }
    }
    if !line.is_empty() && run.killed.is_none() {
        take_line(&mut run, &line);
    }
    if run.killed.is_some() && exit.is_none() {
        exit = Some(terminate_group(&mut child, pid, limits).await);
    }
    record_exit(&mut run, exit, &child);
    if stderr_tail.len() > limits.stderr_tail_bytes {
        stderr_tail.drain(..stderr_tail.len() - limits.stderr_tail_bytes);
    }
    run.stderr_tail = String::from_utf8_lossy(&stderr_tail).into_owned();
    // The worker has ended (exited or killed with its group): the slot is stable now.
    run.slot_breadcrumb = slot.as_ref().and_then(|s| pmworker::slot::read_slot(&s.read()));
    run.wall_ms = started.elapsed().as_millis() as u64;
    run
}

/// Reads what the worker's stdout holds now (at most `READS_PER_WAKE` reads), turning complete
/// lines into events; sets `run.killed` when an output bound is crossed. Returns the bytes read.
fn drain_stdout(
    stdout: &mut OutputPipe,
    buf: &mut Vec<u8>,
    line: &mut Vec<u8>,
    total_out: &mut u64,
    run: &mut RawRun,
    limits: &Limits,
) -> u64 {
    let mut fresh = 0u64;
    for _ in 0..READS_PER_WAKE {
        let Some(n) = stdout.read(buf) else { break };
        fresh += n as u64;
        *total_out += n as u64;
        if *total_out > limits.max_output_bytes {
            run.killed = Some(KillReason::OutputBound(format!("stdout over {} bytes", limits.max_output_bytes)));
            break;
        }
        take_lines(run, line, buf);
        if run.events.len() > limits.max_events {
            run.killed = Some(KillReason::OutputBound(format!("more than {} events on stdout", limits.max_events)));
            break;
        }
        if line.len() > limits.max_line_bytes {
            run.killed = Some(KillReason::OutputBound(format!("stdout line over {} bytes", limits.max_line_bytes)));
            break;
        }
    }
    fresh
}

/// Reads what the worker's stderr holds now (at most `READS_PER_WAKE` reads), keeping only its
/// tail (trimmed once it doubles the kept size). Returns the bytes read.
fn drain_stderr(stderr: &mut OutputPipe, buf: &mut Vec<u8>, tail: &mut Vec<u8>, limits: &Limits) -> u64 {
    let mut fresh = 0u64;
    for _ in 0..READS_PER_WAKE {
        let Some(n) = stderr.read(buf) else { break };
        fresh += n as u64;
        tail.extend_from_slice(buf);
        let keep = limits.stderr_tail_bytes;
        if tail.len() > keep * 2 {
            tail.drain(..tail.len() - keep);
        }
    }
    fresh
}

/// The worker's end as its wait returned it: exit code or signal, or why it could not be
/// waited for.
fn record_exit(run: &mut RawRun, exit: Option<std::io::Result<std::process::ExitStatus>>, child: &Process) {
    match exit {
        Some(Ok(status)) => {
            run.exit_code = status.code();
            run.signal = status.signal();
        }
        Some(Err(e)) => {
            // A forked worker whose zygote is gone died with it: its file says nothing yet.
            run.zygote_lost = matches!(child, Process::Forked { .. });
            run.spawn_error = Some(format!("cannot wait for the worker: {e}"));
        }
        None => {}
    }
}

/// Takes every line `bytes` completes (the first one continuing `partial`) and leaves the
/// unfinished rest in `partial`.
fn take_lines(run: &mut RawRun, partial: &mut Vec<u8>, bytes: &[u8]) {
    let mut rest = bytes;
    while let Some(end) = rest.iter().position(|&b| b == b'\n') {
        if partial.is_empty() {
            take_line(run, &rest[..end]);
        } else {
            partial.extend_from_slice(&rest[..end]);
            take_line(run, partial);
            partial.clear();
        }
        rest = &rest[end + 1..];
    }
    partial.extend_from_slice(rest);
}

fn take_line(run: &mut RawRun, line: &[u8]) {
    // Valid UTF-8 (every line a worker writes) is borrowed as it is; only a line that is
    // not goes through the lossy copy.
    let text = match std::str::from_utf8(line) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(line),
    };
    if text.trim().is_empty() {
        return;
    }
    match Event::from_line(&text) {
        // Only the last breadcrumb of a row is ever read (the crash locator): keep that one,
        // so a worker streaming breadcrumbs without end cannot grow the farm's memory.
        Ok(e @ Event::Breadcrumb(_)) if matches!(run.events.last(), Some(Event::Breadcrumb(_))) => {
            if let Some(last) = run.events.last_mut() {
                *last = e;
            }
        }
        Ok(e) => run.events.push(e),
        Err(_) => {
            run.garbage_lines += 1;
            if run.first_garbage.is_none() {
                run.first_garbage = Some(text.chars().take(200).collect());
            }
        }
    }
}

/// SIGTERM to the group, up to `grace` for it to go, then SIGKILL.
async fn terminate_group(
    child: &mut Process,
    pid: Option<i32>,
    limits: &Limits,
) -> std::io::Result<std::process::ExitStatus> {
    if let Some(pid) = pid {
        // SAFETY: signalling our own worker's process group.
        unsafe { libc::kill(-pid, libc::SIGTERM) };
        if let Ok(status) = tokio::time::timeout(limits.grace, child.wait()).await {
            unsafe { libc::kill(-pid, libc::SIGKILL) };
            return status;
        }
        unsafe { libc::kill(-pid, libc::SIGKILL) };
    }
    child.start_kill();
    child.wait_killed().await
}

/// `SIGSEGV` for 11, `signal 64` for unnamed ones.
pub fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGABRT => "SIGABRT",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGINT => "SIGINT",
        libc::SIGTRAP => "SIGTRAP",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in worker: `sh -c SCRIPT FILE`, so the bounds are tested on a real process.
    fn shell(script: &str, limits: &Limits) -> RawRun {
        let cmd = WorkerCommand {
            exe: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
            confinement: Confinement::BeforeExec,
            zygote: None,
        };
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(run_worker(&cmd, Path::new("victim.max"), limits))
    }

    #[test]
    fn a_flood_of_breadcrumbs_keeps_one_and_ends_at_the_byte_bound() {
        let limits = Limits { max_output_bytes: 4 << 20, ..Limits::default() };
        let run = shell(r#"yes '{"event":"breadcrumb","tier":"t1","stream":"flood"}'"#, &limits);
        assert_eq!(run.killed, Some(KillReason::OutputBound(format!("stdout over {} bytes", 4 << 20))));
        assert_eq!(run.events.len(), 1, "consecutive breadcrumbs collapse to the last one");
    }

    #[test]
    fn a_flood_of_other_events_ends_at_the_event_bound() {
        let limits = Limits { max_events: 1000, ..Limits::default() };
        let run = shell(r#"yes '{"event":"triage","classes":[]}'"#, &limits);
        assert_eq!(run.killed, Some(KillReason::OutputBound("more than 1000 events on stdout".into())));
        assert!(run.events.len() <= 1000 + 64 * 1024 / 30, "stopped within one read: {}", run.events.len());
    }

    /// Stderr has no byte bound (only its tail is kept) and a flood of it is output, so the
    /// idle limit never comes: the hard limit still ends it, and memory holds only the tail.
    #[test]
    fn a_flood_of_stderr_ends_at_the_hard_limit_with_its_tail_kept() {
        let limits = Limits {
            timeout: std::time::Duration::from_millis(800),
            grace: std::time::Duration::from_millis(200),
            ..Limits::default()
        };
        let started = Instant::now();
        let run = shell("yes 'stderr noise' >&2", &limits);
        assert_eq!(run.killed, Some(KillReason::HardTimeout));
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "took {:?}", started.elapsed());
        assert!(run.stderr_tail.len() <= limits.stderr_tail_bytes, "tail of {} bytes", run.stderr_tail.len());
        assert!(run.stderr_tail.contains("stderr noise\n"), "the tail is kept");
    }

    /// A worker that writes a little and ends: everything it wrote is read, up to the end of
    /// both pipes, whether it ended before the first read or after it.
    #[test]
    fn output_written_before_the_end_is_read_to_the_end() {
        let quick = shell(r#"printf '{"event":"triage","classes":[]}\n'; printf 'why' >&2"#, &Limits::default());
        assert_eq!((quick.events.len(), quick.stderr_tail.as_str(), quick.killed), (1, "why", None));
        let slow = shell(
            r#"printf '{"event":"triage","classes":[]}\n'; sleep 0.1; printf '{"event":"triage","classes":[]}'"#,
            &Limits::default(),
        );
        assert_eq!(
            (slow.events.len(), slow.exit_code, slow.garbage_lines),
            (2, Some(0), 0),
            "the unended last line too"
        );
    }
}
