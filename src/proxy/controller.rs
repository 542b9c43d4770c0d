//! The controller that `proxy ... -- CMD ARGS` starts and keeps running, as a pod's kubelet
//! does: on the proxy's kubeconfig (`KUBECONFIG`), in a process group of its own, its stdout and
//! stderr passed on to the proxy's stderr (the same stream across restarts, so nothing it wrote
//! is lost). A `crash` fault kills it with SIGKILL (the whole group: a shell's children too) and
//! it is started again at once; when the proxy stops it gets SIGTERM, then SIGKILL after
//! [`GRACE`], as a pod being deleted. Each start, exit and stop is a [`Notice`] of kind
//! `controller`.

use super::engine::Notice;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot};

/// How long a controller has to stop after SIGTERM: a pod's default
/// `terminationGracePeriodSeconds`.
pub const GRACE: Duration = Duration::from_secs(30);

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spec {
    pub program: String,
    pub args: Vec<String>,
    /// The proxy's kubeconfig, given to the controller as `KUBECONFIG`.
    pub kubeconfig: PathBuf,
}

impl Spec {
    /// The command line as notices show it.
    pub fn describe(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Called by the supervisor right after a kill, with the pid killed (`None`: no controller was
/// running), before the controller is started again: the fault's notice comes first.
pub type OnKilled = Box<dyn FnOnce(Option<u32>) + Send>;

/// The way to the running controller, for the faults: [`Handle::kill`].
#[derive(Clone)]
pub struct Handle {
    kills: mpsc::UnboundedSender<(OnKilled, oneshot::Sender<()>)>,
}

impl Handle {
    /// Kills the controller (SIGKILL) and returns once it is gone and `on_killed` has run; it
    /// is started again after that.
    pub async fn kill(&self, on_killed: OnKilled) {
        let (done, killed) = oneshot::channel();
        if self.kills.send((on_killed, done)).is_ok() {
            let _ = killed.await;
        }
    }
}

/// How the controller's run ended, as the proxy's exit code needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// It exited without being asked (`code 2`, `signal 6`): a finding.
    ByItself(String),
    /// The proxy stopped it.
    Stopped,
}

/// The supervisor's side that the command holds: wait for the controller to end by itself,
/// or stop it.
pub struct Supervisor {
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Ended>,
    /// How it ended, once [`Supervisor::ended`] has seen it.
    ended: Option<Ended>,
    /// The pid (and process group) of the controller running now, 0 between runs: what a
    /// supervisor dropped without a stop kills.
    current: Arc<AtomicU32>,
}

impl Supervisor {
    /// Starts `spec` and supervises it. An error is the first start's (a program not found, not
    /// executable); later starts that fail end the run as an exit would.
    pub fn start(
        spec: Spec,
        notices: mpsc::UnboundedSender<Notice>,
    ) -> std::io::Result<(Supervisor, Handle)> {
        let child = spawn(&spec)?;
        let current = Arc::new(AtomicU32::new(child.id().unwrap_or_default()));
        let (kills, killed) = mpsc::unbounded_channel();
        let (stop, stopped) = oneshot::channel();
        let running = Running {
            spec,
            notices,
            starts: 0,
            kills: 0,
            current: current.clone(),
        };
        let task = tokio::spawn(running.supervise(child, killed, stopped));
        let supervisor = Supervisor {
            stop: Some(stop),
            task,
            ended: None,
            current,
        };
        Ok((supervisor, Handle { kills }))
    }

    /// Returns when the controller has exited by itself (the supervisor is then done).
    pub async fn ended(&mut self) -> Ended {
        if let Some(ended) = &self.ended {
            return ended.clone();
        }
        let ended = (&mut self.task).await.unwrap_or(Ended::Stopped);
        self.ended = Some(ended.clone());
        ended
    }

    /// Stops the controller (SIGTERM, SIGKILL after [`GRACE`]) unless it already ended, and
    /// says how its run ended.
    pub async fn stop(mut self) -> Ended {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.ended.take() {
            Some(ended) => ended,
            None => (&mut self.task).await.unwrap_or(Ended::Stopped),
        }
    }
}

impl Drop for Supervisor {
    /// A proxy that ends by an error (or a panic) leaves no controller behind.
    fn drop(&mut self) {
        if self.stop.is_some() && !self.task.is_finished() {
            self.task.abort();
            let pid = self.current.load(Ordering::Relaxed);
            if pid != 0 {
                signal_group(pid, Signal::Kill);
            }
        }
    }
}

/// The supervisor's state across restarts.
struct Running {
    spec: Spec,
    notices: mpsc::UnboundedSender<Notice>,
    starts: u64,
    kills: u64,
    current: Arc<AtomicU32>,
}

impl Running {
    async fn supervise(
        mut self,
        mut child: Child,
        mut killed: mpsc::UnboundedReceiver<(OnKilled, oneshot::Sender<()>)>,
        mut stopped: oneshot::Receiver<()>,
    ) -> Ended {
        let mut since = self.started(&child);
        // Taken now: a child that was waited for has no pid any more.
        let mut running_pid = child_pid(&child);
        loop {
            tokio::select! {
                status = child.wait() => {
                    self.current.store(0, Ordering::Relaxed);
                    let how = status.map_or_else(|e| format!("unknown ({e})"), |s| exit(&s));
                    self.say(
                        "exited",
                        running_pid,
                        format!(
                            "exited by itself with {how} after {} (pid {}): a controller runs until it is stopped, so the proxy stops and exits 1",
                            crate::format::format_seconds(since.elapsed().as_secs_f64()),
                            running_pid.unwrap_or_default(),
                        ),
                    );
                    return Ended::ByItself(how);
                }
                Some((on_killed, done)) = killed.recv() => {
                    let pid = child_pid(&child);
                    kill_group(&mut child);
                    let _ = child.wait().await;
                    self.current.store(0, Ordering::Relaxed);
                    self.kills += 1;
                    on_killed(pid);
                    let _ = done.send(());
                    child = match spawn(&self.spec) {
                        Ok(child) => child,
                        Err(e) => {
                            let how = format!("a failed start ({e})");
                            self.say("exited", None, format!("could not be started again: {e}; the proxy stops"));
                            return Ended::ByItself(how);
                        }
                    };
                    since = self.started(&child);
                    running_pid = child_pid(&child);
                }
                _ = &mut stopped => {
                    self.terminate(child).await;
                    return Ended::Stopped;
                }
            }
        }
    }

    /// Says that `child` started (the first time, or again after a kill).
    fn started(&mut self, child: &Child) -> Instant {
        self.starts += 1;
        self.current
            .store(child.id().unwrap_or_default(), Ordering::Relaxed);
        let detail = match self.starts {
            1 => format!(
                "started {} (pid {}, KUBECONFIG={})",
                self.spec.describe(),
                child_pid(child).unwrap_or_default(),
                self.spec.kubeconfig.display()
            ),
            n => format!(
                "started again (pid {}, restart {})",
                child_pid(child).unwrap_or_default(),
                n - 1
            ),
        };
        self.say("started", child_pid(child), detail);
        Instant::now()
    }

    /// SIGTERM to its group; SIGKILL if it has not exited after [`GRACE`].
    async fn terminate(&mut self, mut child: Child) {
        let pid = child_pid(&child);
        let stopped = stop_group(&mut child).await;
        self.current.store(0, Ordering::Relaxed);
        let status = match stopped {
            Stopped::Exited(status) => {
                status.map_or_else(|e| format!("unknown ({e})"), |s| exit(&s))
            }
            Stopped::Killed => {
                format!("SIGKILL, {} after SIGTERM", crate::format::duration(GRACE))
            }
        };
        let kills = crate::format::count(self.kills, "time");
        self.say(
            "stopped",
            pid,
            format!(
                "stopped (pid {}, {status}); started {} in all, killed by faults {kills}",
                pid.unwrap_or_default(),
                crate::format::count(self.starts, "time"),
            ),
        );
    }

    fn say(&self, event: &'static str, pid: Option<u32>, detail: String) {
        let _ = self.notices.send(Notice {
            at: SystemTime::now(),
            fault: String::new(),
            kind: "controller",
            request: None,
            detail,
            controller: Some((event, pid)),
        });
    }
}

/// How [`stop_group`] ended a process.
pub enum Stopped {
    /// It exited within [`GRACE`] of the SIGTERM.
    Exited(std::io::Result<ExitStatus>),
    /// It was killed with SIGKILL after [`GRACE`].
    Killed,
}

/// Stops `child`, started in a process group of its own: SIGTERM to the group, and SIGKILL
/// if it has not exited after [`GRACE`] (elsewhere than Unix, a kill).
pub async fn stop_group(child: &mut Child) -> Stopped {
    term_group(child);
    match tokio::time::timeout(GRACE, child.wait()).await {
        Ok(status) => Stopped::Exited(status),
        Err(_) => {
            kill_group(child);
            let _ = child.wait().await;
            Stopped::Killed
        }
    }
}

fn spawn(spec: &Spec) -> std::io::Result<Child> {
    let mut command = Command::new(&spec.program);
    command
        .args(&spec.args)
        .env("KUBECONFIG", &spec.kubeconfig)
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .stderr(std::io::stderr())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    command.spawn()
}

fn child_pid(child: &Child) -> Option<u32> {
    child.id()
}

/// How a process ended, as a shell says it: `code 3`, `signal 9 (SIGKILL)`.
fn exit(status: &ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            let name = match signal {
                libc::SIGKILL => " (SIGKILL)",
                libc::SIGTERM => " (SIGTERM)",
                libc::SIGABRT => " (SIGABRT)",
                libc::SIGSEGV => " (SIGSEGV)",
                libc::SIGINT => " (SIGINT)",
                _ => "",
            };
            return format!("signal {signal}{name}");
        }
    }
    match status.code() {
        Some(code) => format!("code {code}"),
        None => "no exit code".into(),
    }
}

#[derive(Clone, Copy)]
enum Signal {
    Kill,
    Term,
}

/// SIGKILL to the controller's process group (its children die with it).
fn kill_group(child: &mut Child) {
    match child.id() {
        Some(pid) if cfg!(unix) => signal_group(pid, Signal::Kill),
        _ => {
            let _ = child.start_kill();
        }
    }
}

/// SIGTERM to the controller's process group; elsewhere than Unix, a kill.
fn term_group(child: &mut Child) {
    match child.id() {
        Some(pid) if cfg!(unix) => signal_group(pid, Signal::Term),
        _ => {
            let _ = child.start_kill();
        }
    }
}

#[cfg(unix)]
fn signal_group(pid: u32, signal: Signal) {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    let signal = match signal {
        Signal::Kill => libc::SIGKILL,
        Signal::Term => libc::SIGTERM,
    };
    // SAFETY: kill(2) takes no pointers; a negative pid names the process group the child leads
    // (it was started with process_group(0)), which it and its children are in.
    unsafe {
        libc::kill(-pid, signal);
    }
}

/// Elsewhere than Unix there are no process groups: the child is killed by its handle.
#[cfg(not(unix))]
fn signal_group(_pid: u32, _signal: Signal) {}
