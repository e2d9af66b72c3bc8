//! RPC `bash` and `abort_bash`: a user command runs beside the other
//! commands (a `get_state` is answered while it runs), streams its output as
//! `bash_execution_update` events (carrying the command's `id`), answers with
//! the reference's `BashResult` and leaves a `bashExecution` record that the
//! model reads on the next prompt (unless `excludeFromContext`).

use std::sync::{Arc, Mutex};

use pi_agent::{BashExecutionMessage, Interceptor, UserBashEvent};
use pi_tools::ToolContext;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::json_mode::print_line;

/// The user commands running now, so `abort_bash` (and `abort`) can stop them.
#[derive(Clone, Default)]
pub(crate) struct RunningCommands(Arc<Mutex<Vec<CancellationToken>>>);

impl RunningCommands {
    /// Stop every running user command.
    pub(crate) fn abort_all(&self) {
        if let Ok(mut list) = self.0.lock() {
            for t in list.drain(..) {
                t.cancel();
            }
        }
    }

    fn add(&self, token: CancellationToken) {
        if let Ok(mut list) = self.0.lock() {
            list.retain(|t| !t.is_cancelled());
            list.push(token);
        }
    }
}

/// What a running command needs from the session.
pub(crate) struct BashContext {
    /// The handlers (`user_bash`).
    pub interceptors: Vec<Arc<dyn Interceptor>>,
    /// The session's tool context (folder, shell settings, `PI_*` variables).
    pub tool_ctx: ToolContext,
    /// The session, to record the command on.
    pub runtime: Arc<tokio::sync::Mutex<pi_runtime::Runtime>>,
    /// The session, where the record goes at once (`get_messages` reads it).
    pub session: pi_agent::SharedSession,
    /// The folder the session runs in (it moves with `switch_session`).
    pub folder: Arc<std::sync::Mutex<std::path::PathBuf>>,
}

/// Start `command` in the background; the response is printed when it ends.
pub(crate) fn start(cx: &BashContext, running: &RunningCommands, id: Option<Value>, command: String, exclude: bool) {
    let token = CancellationToken::new();
    running.add(token.clone());
    let mut ctx = cx.tool_ctx.clone();
    ctx.abort = token;
    if let Ok(folder) = cx.folder.lock() {
        ctx.cwd = folder.clone();
    }
    let (interceptors, runtime, session) = (cx.interceptors.clone(), cx.runtime.clone(), cx.session.clone());
    let event = UserBashEvent { command, exclude_from_context: exclude, cwd: ctx.cwd.clone() };
    tokio::spawn(async move {
        let update_id = id.clone();
        let on_output: pi_tools::OutputFn = Arc::new(move |delta: &str| {
            let mut v = json!({"type": "bash_execution_update"});
            if let Some(id) = &update_id {
                v["id"] = id.clone();
            }
            v["delta"] = json!(delta);
            print_line(&v);
        });
        let on_error = |source: &str, error: &str| {
            print_line(
                &json!({"type": "extension_error", "extensionPath": source, "event": "user_bash", "error": error}),
            );
        };
        let outcome = pi_agent::run_user_bash(&interceptors, &event, &ctx, Some(on_output), &on_error).await;
        let mut response = crate::rpc::response_head(&id, "bash");
        match outcome {
            Ok(result) => {
                response["success"] = json!(true);
                response["data"] = serde_json::to_value(&result).unwrap_or(Value::Null);
                let record: pi_agent::AgentMessage = BashExecutionMessage::new(&event, &result).into();
                if let Ok(mut s) = session.lock() {
                    let _ = s.append_message(&record);
                }
                print_line(&response);
                // Recorded already: the conversation takes it once the run lets go.
                runtime.lock().await.agent_mut().push_recorded(record);
            }
            Err(e) => {
                response["success"] = json!(false);
                response["error"] = json!(e.to_string());
                print_line(&response);
            }
        }
    });
}
