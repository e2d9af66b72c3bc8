//! The `bash` and `powershell` tools: one command, run in the session's
//! folder in its own process group, its merged output streamed, tail-cut for
//! the model and saved in full to a file once it passes the limits.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

use crate::limits::{BASH_UPDATE_INTERVAL_MS, MAX_TIMEOUT_SECONDS};
use crate::text::bash as text;
use crate::{Content, ToolContext, ToolError, ToolResult};

mod accumulator;
mod process;
mod pump;
#[cfg(target_os = "linux")]
mod session;
mod shell;
pub(crate) mod supervisor;

use accumulator::Accumulator;
use process::{CommandSpec, lock};
pub use process::{end_sandbox_sessions, kill_running_commands};
use shell::ShellKind;

/// How long to wait for a killed shell to be reaped before giving up on it.
const REAP_AFTER_KILL: Duration = Duration::from_secs(2);

#[derive(Debug, Deserialize)]
struct CommandArgs {
    command: String,
    timeout: Option<f64>,
}

/// Run `bash`.
pub async fn run(args: Value, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    run_shell(ShellKind::Bash, args, ctx).await
}

/// Run `powershell` (`pwsh` off Windows).
pub async fn run_powershell(args: Value, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    run_shell(ShellKind::PowerShell, args, ctx).await
}

/// Check a `timeout`: positive, finite, at most 2147483.647 seconds.
fn check_timeout(timeout: Option<f64>) -> Result<Option<Duration>, ToolError> {
    let Some(t) = timeout else { return Ok(None) };
    if !t.is_finite() || t <= 0.0 {
        return Err(ToolError::msg(text::INVALID_TIMEOUT));
    }
    if t > MAX_TIMEOUT_SECONDS {
        return Err(ToolError::msg(text::timeout_too_large()));
    }
    Duration::try_from_secs_f64(t).map(Some).map_err(|_| ToolError::msg(text::INVALID_TIMEOUT))
}

/// How a command is started: as it is or wrapped in a sandbox of its own
/// (`Direct`, whose guard lives until it ended), or in a session sandbox.
struct Launch {
    plan: pi_sandbox::Plan,
    /// The unwrapped command, for a sandbox of its own when no session
    /// sandbox can start.
    original: Option<CommandSpec>,
}

impl Launch {
    /// Start the command.
    async fn start(&mut self, ctx: &ToolContext) -> Result<process::Running, ToolError> {
        if let pi_sandbox::Plan::Session(plan) = &self.plan {
            #[cfg(target_os = "linux")]
            if let Some(running) = session::run(plan).await {
                return Ok(running);
            }
            #[cfg(not(target_os = "linux"))]
            let _ = plan;
            let original = self.original.take().ok_or_else(|| ToolError::msg(text::NO_COMMAND))?;
            let prepared =
                ctx.sandbox.wrap(original, &ctx.output_files.recent()).map_err(|e| ToolError::msg(e.to_string()))?;
            self.plan = pi_sandbox::Plan::Direct(prepared);
        }
        let pi_sandbox::Plan::Direct(prepared) = &self.plan else {
            return Err(ToolError::msg(text::NO_COMMAND));
        };
        let spec = &prepared.command;
        process::spawn(spec).map_err(|e| {
            let program = spec.program.to_string_lossy();
            let code = process::errno_name(&e).map(str::to_string).unwrap_or_else(|| e.to_string());
            ToolError::msg(text::spawn_failed(&program, &code))
        })
    }
}

/// The command line that runs `command` in the session's shell (its
/// `shellCommandPrefix` first), after the checks the reference makes, in the
/// session's sandbox. A sandbox that cannot start is an error: nothing runs.
fn command_spec(kind: ShellKind, command: String, ctx: &ToolContext) -> Result<Launch, ToolError> {
    let path_var = std::env::var_os("PATH");
    let shell = shell::resolve(kind, &ctx.session, path_var.as_deref())?;
    if !ctx.cwd.exists() {
        return Err(ToolError::msg(text::working_dir_missing(&ctx.cwd.to_string_lossy(), kind.label())));
    }
    let command = match (&ctx.session.shell_command_prefix, kind) {
        (Some(prefix), ShellKind::Bash) if !prefix.is_empty() => format!("{prefix}\n{command}"),
        _ => command,
    };
    if command.contains('\0') {
        return Err(ToolError::msg(text::argument_has_nul(shell.args.len(), &text::quote_argument(&command))));
    }
    let spec = process::build_command(&shell, &command, &ctx.cwd, &ctx.session);
    let original = ctx.sandbox.mode().is_sandboxed().then(|| spec.clone());
    let plan = ctx.sandbox.plan(spec, &ctx.output_files.recent()).map_err(|e| ToolError::msg(e.to_string()))?;
    Ok(Launch { plan, original })
}

async fn run_shell(kind: ShellKind, args: Value, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    let args: CommandArgs = super::parse(args)?;
    let timeout = check_timeout(args.timeout)?;
    let mut launch = command_spec(kind, args.command, ctx)?;
    let outcome = execute(&mut launch, kind, timeout, ctx, None).await?;
    drop(launch);
    outcome.into_result(args.timeout.unwrap_or(0.0))
}

/// How a user command (`!cmd`, RPC `bash`) ended, in the shape the
/// reference's clients read (`BashResult`).
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UserCommandResult {
    /// The output (stdout and stderr as they came); its last 2000 lines or
    /// 50 KiB when longer, without a notice.
    pub output: String,
    /// The exit code (128 + n after signal n); absent when cancelled or unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// Stopped by an abort.
    pub cancelled: bool,
    /// The output was cut.
    pub truncated: bool,
    /// Where the whole output is, when cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
}

/// Run a command the user typed, in the session's shell and folder: no
/// timeout, stopped by `ctx.abort`, every decoded piece of output handed to
/// `on_output` as it arrives. Errors are the ones that keep it from starting.
pub async fn run_user_command(
    command: &str,
    ctx: &ToolContext,
    on_output: Option<crate::OutputFn>,
) -> Result<UserCommandResult, ToolError> {
    let mut launch = command_spec(ShellKind::Bash, command.to_string(), ctx)?;
    let outcome = execute(&mut launch, ShellKind::Bash, None, ctx, on_output).await?;
    drop(launch);
    let (exit_code, cancelled) = match outcome.end {
        End::Exited(code) => (Some(code), false),
        End::Aborted => (None, true),
        End::Unknown | End::TimedOut(_) => (None, false),
    };
    let truncated = outcome.shown.truncation.is_some();
    let full_output_path =
        outcome.shown.full_output_path.as_ref().filter(|_| truncated).map(|p| p.to_string_lossy().into_owned());
    Ok(UserCommandResult { output: outcome.shown.text, exit_code, cancelled, truncated, full_output_path })
}

/// How the command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    /// Exit code (128 + n for a signal).
    Exited(i64),
    /// The shell's end could not be observed.
    Unknown,
    /// Killed at the timeout; with the shell's exit code and exit time when
    /// the shell had exited before and only background output was still
    /// being read.
    TimedOut(Option<(i64, Duration)>),
    /// Killed on abort.
    Aborted,
}

/// A finished command: how it ended and its output.
struct Outcome {
    end: End,
    shown: accumulator::Shown,
    structured: accumulator::StructuredOutput,
    wall: Duration,
}

impl Outcome {
    fn into_result(self, timeout_secs: f64) -> Result<ToolResult, ToolError> {
        let mut output = self.shown.model_text();
        let details = self.shown.details();
        let with_notice = |output: &str, notice: &str| {
            if output.is_empty() { notice.to_string() } else { format!("{output}\n\n{notice}") }
        };
        let code = match self.end {
            End::TimedOut(shell_exit) => {
                let mut notice = text::timed_out(timeout_secs);
                if let Some((code, after)) = shell_exit {
                    notice.push_str(&text::timed_out_after_shell_exit(code, tenths_of_seconds(after)));
                }
                return Ok(ToolResult {
                    structured: Some(json!({ "error": text::timeout_code(timeout_secs) })),
                    ..ToolResult::thrown(with_notice(&output, &notice))
                });
            }
            End::Aborted => return Err(ToolError::msg(with_notice(&output, text::COMMAND_ABORTED))),
            End::Unknown => {
                if output.is_empty() {
                    output = text::NO_OUTPUT.to_string();
                }
                return Err(ToolError::msg(with_notice(&output, text::TERMINATED_WITHOUT_EXIT_CODE)));
            }
            End::Exited(code) => code,
        };
        if output.is_empty() {
            output = text::NO_OUTPUT.to_string();
        }
        let mut structured = Map::new();
        structured.insert("output".into(), Value::String(self.structured.output));
        structured.insert("truncated".into(), Value::Bool(self.structured.truncated));
        if self.structured.truncated
            && let Some(p) = &self.shown.full_output_path
        {
            structured.insert("full_output_path".into(), Value::String(p.to_string_lossy().into_owned()));
        }
        structured.insert("exit_code".into(), json!(code));
        structured.insert("wall_time_seconds".into(), wall_seconds(self.wall));
        let text = if code == 0 { output } else { format!("{output}\n\n{}", text::exited_with_code(code)) };
        Ok(ToolResult {
            content: vec![Content::Text { text }],
            details,
            is_error: code != 0,
            structured: Some(Value::Object(structured)),
            usage: None,
        })
    }
}

/// Seconds rounded to 0.1.
fn tenths_of_seconds(d: Duration) -> f64 {
    (d.as_secs_f64() * 10.0).round() / 10.0
}

/// Wall time rounded to 0.1 s, written as an integer when whole (`0`, `1.3`).
fn wall_seconds(wall: Duration) -> Value {
    let secs = tenths_of_seconds(wall);
    if secs.fract() == 0.0 { json!(secs as u64) } else { json!(secs) }
}

/// Start `spec` and follow it to its end: stream updates, enforce the
/// timeout, honour the abort, and stop reading shortly after the shell exits.
async fn execute(
    launch: &mut Launch,
    kind: ShellKind,
    timeout: Option<Duration>,
    ctx: &ToolContext,
    on_output: Option<crate::OutputFn>,
) -> Result<Outcome, ToolError> {
    let started = Instant::now();
    let process::Running { mut child, mut group, output, lifeline } = launch.start(ctx).await?;
    // Output wakes the update throttle (and reaches a user command's listener).
    let arrived = Arc::new(tokio::sync::Notify::new());
    let wake = Arc::clone(&arrived);
    let listener: crate::OutputFn = Arc::new(move |piece: &str| {
        wake.notify_one();
        if let Some(f) = &on_output {
            f(piece);
        }
    });
    let acc = Arc::new(Mutex::new(
        Accumulator::new(kind.output_prefix(), std::env::temp_dir(), ctx.output_files.clone())
            .with_output(Some(listener)),
    ));
    let stop = Arc::new(pump::StopSignal::default());
    let (done_tx, mut done_rx) = oneshot::channel::<()>();
    {
        let (acc, stop) = (Arc::clone(&acc), Arc::clone(&stop));
        std::thread::Builder::new()
            .name(format!("pi-{}-output", kind.output_prefix().trim_start_matches("pi-")))
            .spawn(move || {
                pump::pump(output, &acc, &stop);
                let _ = done_tx.send(());
            })
            .map_err(|e| ToolError::msg(e.to_string()))?;
    }

    let update = ctx.on_update.clone();
    if let Some(f) = &update {
        f(&ToolResult { content: vec![], details: None, is_error: false, structured: None, usage: None });
    }
    let mut last_version = 0u64;
    let mut emit_update = |acc: &Mutex<Accumulator>| {
        let Some(f) = &update else { return };
        let (version, shown) = {
            let a = lock(acc);
            if a.version() == last_version {
                return;
            }
            (a.version(), a.shown())
        };
        last_version = version;
        f(&ToolResult {
            content: vec![Content::Text { text: shown.text.clone() }],
            details: Some(shown.update_details()),
            is_error: false,
            structured: None,
            usage: None,
        });
    };

    let deadline = async {
        match timeout {
            Some(t) => tokio::time::sleep(t).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(deadline);
    let aborted = ctx.abort.cancelled();
    tokio::pin!(aborted);
    // Updates as the reference throttles them: output after a quiet spell is
    // shown at once, more output within the interval at its end.
    let mut throttle = Throttle::new(Duration::from_millis(BASH_UPDATE_INTERVAL_MS));

    let mut end = loop {
        tokio::select! {
            code = child.wait() => break code.map_or(End::Unknown, End::Exited),
            _ = &mut deadline => break End::TimedOut(None),
            _ = &mut aborted => break End::Aborted,
            _ = arrived.notified(), if update.is_some() => {
                if throttle.output_arrived() {
                    emit_update(&acc);
                }
            }
            _ = throttle.due(), if throttle.pending() => {
                throttle.emitted();
                emit_update(&acc);
            }
        }
    };
    if matches!(end, End::TimedOut(_) | End::Aborted) {
        group.kill();
        let _ = tokio::time::timeout(REAP_AFTER_KILL, child.wait()).await;
    }
    // The shell is gone. Output still coming from background processes is
    // read while it keeps coming (within limits, see `pump::pump`); the
    // timeout and an abort still kill the group meanwhile.
    let exited = Instant::now();
    stop.shell_exited(exited);
    let shell_exit = match end {
        End::Exited(code) => Some((code, exited.duration_since(started))),
        _ => None,
    };
    let mut killed = shell_exit.is_none();
    loop {
        tokio::select! {
            _ = &mut done_rx => break,
            _ = &mut deadline, if !killed => {
                killed = true;
                group.kill();
                end = End::TimedOut(shell_exit);
            }
            _ = &mut aborted, if !killed => {
                killed = true;
                group.kill();
                end = End::Aborted;
            }
            _ = arrived.notified(), if update.is_some() => {
                if throttle.output_arrived() {
                    emit_update(&acc);
                }
            }
            _ = throttle.due(), if throttle.pending() => {
                throttle.emitted();
                emit_update(&acc);
            }
        }
    }
    // An update still owed when the output ends goes out (as the reference's throttle does).
    if throttle.pending() {
        emit_update(&acc);
    }
    group.disarm();
    drop(lifeline);
    let a = lock(&acc);
    Ok(Outcome { end, shown: a.shown(), structured: a.structured(), wall: started.elapsed() })
}

/// Leading-and-trailing throttle of streaming updates.
struct Throttle {
    interval: Duration,
    last: Option<tokio::time::Instant>,
    pending: Option<tokio::time::Instant>,
}

impl Throttle {
    fn new(interval: Duration) -> Self {
        Throttle { interval, last: None, pending: None }
    }

    /// Output arrived: true when an update is due now; otherwise one is
    /// scheduled for the end of the interval.
    fn output_arrived(&mut self) -> bool {
        let now = tokio::time::Instant::now();
        match self.last {
            Some(last) if now < last + self.interval => {
                self.pending.get_or_insert(last + self.interval);
                false
            }
            _ => {
                self.last = Some(now);
                self.pending = None;
                true
            }
        }
    }

    fn pending(&self) -> bool {
        self.pending.is_some()
    }

    /// When the scheduled update is due (never, when none is).
    async fn due(&self) {
        match self.pending {
            Some(at) => tokio::time::sleep_until(at).await,
            None => std::future::pending().await,
        }
    }

    /// The scheduled update went out.
    fn emitted(&mut self) {
        self.pending = None;
        self.last = Some(tokio::time::Instant::now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::SessionEnv;
    use serde_json::json;
    use std::path::Path;

    fn ctx(dir: &Path) -> ToolContext {
        ToolContext::new(dir)
    }

    /// `kill_running_commands` kills every command of this process, so its
    /// test runs alone (write) while the others share (read).
    static KILL_ALL: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

    async fn bash(ctx: &ToolContext, args: Value) -> Result<ToolResult, ToolError> {
        let _shared = KILL_ALL.read().await;
        run(args, ctx).await
    }

    fn text_of(r: &ToolResult) -> String {
        r.text_content()
    }

    /// Whether any process of group `pgid` is still alive after a short wait
    /// (a killed process needs a moment to die; zombies, dead but not yet
    /// reaped by init, do not count).
    fn group_alive(pgid: i32) -> bool {
        let t0 = Instant::now();
        while group_alive_now(pgid) {
            if t0.elapsed() > Duration::from_secs(1) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    fn group_alive_now(pgid: i32) -> bool {
        std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else { return false };
            // Fields after the command name `(…)`: state, ppid, pgrp.
            let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else { return false };
            let fields: Vec<&str> = rest.split_whitespace().collect();
            fields.len() > 2 && fields[0] != "Z" && fields[2].parse::<i32>().ok() == Some(pgid)
        })
    }

    #[tokio::test]
    async fn structured_result_of_success_and_failure() {
        let dir = tempfile::tempdir().unwrap();
        let r = bash(&ctx(dir.path()), json!({"command": "echo hi"})).await.unwrap();
        assert_eq!((text_of(&r).as_str(), r.is_error, r.details.clone()), ("hi\n", false, None));
        assert_eq!(
            r.structured.unwrap(),
            json!({"output": "hi\n", "truncated": false, "exit_code": 0, "wall_time_seconds": 0})
        );
        let r = bash(&ctx(dir.path()), json!({"command": "printf 'out\\n'; exit 3"})).await.unwrap();
        assert_eq!((text_of(&r).as_str(), r.is_error), ("out\n\n\nCommand exited with code 3", true));
        assert_eq!(r.structured.unwrap()["exit_code"], 3);
        let r = bash(&ctx(dir.path()), json!({"command": "true"})).await.unwrap();
        assert_eq!(text_of(&r), "(no output)");
        assert_eq!(r.structured.unwrap()["output"], "");
    }

    #[tokio::test]
    async fn structured_output_over_one_mib_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let r = bash(&ctx(dir.path()), json!({"command": "head -c 3000000 /dev/zero | tr '\\0' c"})).await.unwrap();
        let s = r.structured.unwrap();
        assert_eq!(s["truncated"], true);
        let path = s["full_output_path"].as_str().unwrap();
        assert_eq!(r.details.unwrap()["fullOutputPath"], path);
        assert_eq!(std::fs::metadata(path).unwrap().len(), 3_000_000);
        let out = s["output"].as_str().unwrap();
        assert_eq!(out.len(), 1_048_576 + "\n\n[... 1951424 bytes omitted ...]\n\n".len());
        let keys: Vec<&String> = s.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["output", "truncated", "full_output_path", "exit_code", "wall_time_seconds"]);
    }

    #[test]
    fn wall_time_is_rounded_to_tenths() {
        assert_eq!(wall_seconds(Duration::from_millis(40)), json!(0));
        assert_eq!(wall_seconds(Duration::from_millis(1260)), json!(1.3));
        assert_eq!(wall_seconds(Duration::from_millis(2000)), json!(2));
    }

    #[tokio::test]
    async fn timeouts_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let c = ctx(dir.path());
        for t in [json!(0), json!(-1), json!(-f64::MIN_POSITIVE)] {
            let e = bash(&c, json!({"command": "echo a", "timeout": t})).await.unwrap_err();
            assert_eq!(e.to_string(), "Invalid timeout: must be a finite number of seconds");
        }
        let e = bash(&c, json!({"command": "echo a", "timeout": 2147483.648})).await.unwrap_err();
        assert_eq!(e.to_string(), "Invalid timeout: maximum is 2147483.647 seconds");
        assert!(check_timeout(Some(f64::NAN)).is_err() && check_timeout(Some(f64::INFINITY)).is_err());
        assert_eq!(check_timeout(Some(2147483.647)).unwrap(), Some(Duration::from_millis(2147483647)));
    }

    #[tokio::test]
    async fn timeout_result_and_structured_error() {
        let dir = tempfile::tempdir().unwrap();
        let t0 = Instant::now();
        let r = bash(&ctx(dir.path()), json!({"command": "printf x; sleep 5", "timeout": 0.5})).await.unwrap();
        assert!(t0.elapsed() < Duration::from_secs(2));
        assert_eq!((text_of(&r).as_str(), r.is_error), ("x\n\nCommand timed out after 0.5 seconds", true));
        assert_eq!(r.structured.unwrap(), json!({"error": "timeout:0.5"}));
    }

    #[tokio::test]
    async fn abort_kills_the_group_and_keeps_the_output() {
        let dir = tempfile::tempdir().unwrap();
        let c = ctx(dir.path());
        let token = c.abort.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(400)).await;
            token.cancel();
        });
        let t0 = Instant::now();
        let e = bash(&c, json!({"command": "echo $$; sleep 100 & sleep 100"})).await.unwrap_err();
        assert!(t0.elapsed() < Duration::from_secs(2));
        let text = e.to_string();
        let (pid, rest) = text.split_once('\n').unwrap();
        assert_eq!(rest, "\n\nCommand aborted");
        assert!(!group_alive(pid.parse().unwrap()));
    }

    #[tokio::test]
    async fn dropping_the_call_kills_the_group() {
        let dir = tempfile::tempdir().unwrap();
        let c = ctx(dir.path());
        let pid_file = dir.path().join("pid");
        let cmd = format!("echo $$ > {}; sleep 100 & sleep 100", pid_file.display());
        let _shared = KILL_ALL.read().await;
        let r = tokio::time::timeout(Duration::from_millis(500), run(json!({ "command": cmd }), &c)).await;
        assert!(r.is_err());
        let pgid: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
        assert!(!group_alive(pgid));
    }

    #[tokio::test]
    async fn kill_running_commands_ends_every_running_group() {
        let _alone = KILL_ALL.write().await;
        let dir = tempfile::tempdir().unwrap();
        let c = ctx(dir.path());
        let killer = tokio::spawn(async {
            tokio::time::sleep(Duration::from_millis(400)).await;
            kill_running_commands();
        });
        let t0 = Instant::now();
        let r = run(json!({"command": "sleep 100"}), &c).await.unwrap();
        killer.await.unwrap();
        assert!(t0.elapsed() < Duration::from_secs(5));
        assert_eq!(text_of(&r), "(no output)\n\nCommand exited with code 137");
    }

    #[tokio::test]
    async fn session_settings_shell_path_and_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = ctx(dir.path());
        c.session = SessionEnv {
            shell_path: Some("/bin/sh".into()),
            shell_command_prefix: Some("X=from-prefix".into()),
            session_id: Some("s-1".into()),
            provider: Some("p".into()),
            model: Some("m".into()),
            reasoning_level: Some("high".into()),
            agent_dir: Some(dir.path().join("agent")),
            ..SessionEnv::default()
        };
        let r = bash(
            &c,
            json!({"command": "echo $0 $X $PI_SESSION_ID $PI_PROVIDER $PI_MODEL $PI_REASONING_LEVEL; echo $PATH"}),
        )
        .await
        .unwrap();
        let text = text_of(&r);
        let (first, path) = text.split_once('\n').unwrap();
        assert_eq!(first, "/bin/sh from-prefix s-1 p m high");
        assert!(path.starts_with(&format!("{}:", dir.path().join("agent/bin").display())), "{path}");
        c.session.shell_path = Some(dir.path().join("nope").to_string_lossy().into_owned());
        let e = bash(&c, json!({"command": "echo"})).await.unwrap_err();
        assert_eq!(e.to_string(), format!("Custom shell path not found: {}", dir.path().join("nope").display()));
        // A folder as shell cannot be started; the error names the program like Node does.
        c.session.shell_path = Some(dir.path().to_string_lossy().into_owned());
        let e = bash(&c, json!({"command": "echo"})).await.unwrap_err();
        assert_eq!(e.to_string(), format!("spawn {} EACCES", dir.path().display()));
    }

    #[tokio::test]
    async fn updates_start_empty_are_throttled_and_carry_truncation() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = ctx(dir.path());
        let seen: Arc<Mutex<Vec<ToolResult>>> = Arc::default();
        let sink = Arc::clone(&seen);
        c.on_update = Some(Arc::new(move |r: &ToolResult| sink.lock().unwrap().push(r.clone())));
        let cmd = "for i in $(seq 20); do echo line$i; sleep 0.05; done; seq 3000; sleep 0.3";
        let t0 = Instant::now();
        bash(&c, json!({ "command": cmd })).await.unwrap();
        let ticks = t0.elapsed().as_millis() as usize / BASH_UPDATE_INTERVAL_MS as usize;
        let seen = seen.lock().unwrap();
        // One empty update, then at most one per interval (the reference's test: < 25).
        assert!(seen.len() >= 5 && seen.len() <= ticks + 2 && seen.len() < 25, "{} updates", seen.len());
        assert!(seen[0].content.is_empty() && seen[0].details.is_none());
        assert_eq!(seen[1].details, Some(json!({})));
        assert!(text_of(&seen[1]).starts_with("line1\n"));
        let last = seen.last().unwrap();
        assert!(text_of(last).ends_with("\n3000"));
        let d = last.details.as_ref().unwrap();
        assert_eq!(d["truncation"]["totalLines"], 3020);
        assert!(d["fullOutputPath"].as_str().unwrap().contains("pi-bash-"));
    }

    #[tokio::test]
    async fn nul_bytes_and_missing_folders_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let e = bash(&ctx(dir.path()), json!({"command": "echo a\u{0}b"})).await.unwrap_err();
        assert_eq!(
            e.to_string(),
            "The argument 'args[1]' must be a string without null bytes. Received 'echo a\\x00b'"
        );
        let gone = dir.path().join("gone");
        let e = bash(&ctx(&gone), json!({"command": "echo"})).await.unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("Working directory does not exist: {}\nCannot execute bash commands.", gone.display())
        );
    }

    #[tokio::test]
    async fn a_sandbox_that_cannot_start_runs_nothing() {
        // No helper is set in this crate's tests: every sandboxed command
        // fails closed with the reason, and nothing runs.
        let dir = tempfile::tempdir().unwrap();
        let mut c = ctx(dir.path());
        let policy = pi_sandbox::Policy { mode: pi_sandbox::Mode::ReadOnly, ..Default::default() };
        c.sandbox = Arc::new(pi_sandbox::Sandbox::new(policy, None, None));
        let canary = dir.path().join("ran");
        let e = bash(&c, json!({"command": format!("touch {}", canary.display())})).await.unwrap_err();
        assert_eq!(
            e.to_string(),
            "sandbox: read-only: the command was not run: no sandbox helper is set (the pi binary provides it)"
        );
        let e = run_user_command("true", &c, None).await.unwrap_err();
        assert!(e.to_string().starts_with("sandbox: read-only: the command was not run"), "{e}");
        assert!(!canary.exists());
    }
}
