//! Running one script: the host side.
//!
//! The script runs on its own thread ([`vm`]); this side owns everything the
//! script must not influence: the tool table, the call records, the output,
//! the deadline and the abort signal. Tool calls the script makes go through
//! the one pipeline as nested calls (`<codemode id>/<n>`), concurrently;
//! their results go back to the script. The first terminal event wins: the
//! script's end, a crash, the deadline or an abort. Then the VM is stopped,
//! calls still running are cancelled, and the result is laid out ([`output`]).

mod admission;
mod calls;
mod error;
mod globals;
mod output;
mod vm;
mod warm;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::FuturesUnordered;
use pi_agent::{AgentTool, Invocation};
use pi_tools::output_file::OutputFiles;
use pi_tools::{Content, ToolResult};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::describe::tool_sample;
use crate::identifier::to_identifier;
use crate::models::Models;
use crate::source::{self, Script};
use crate::store;
use crate::text::{self, CODEMODE, DEFAULT_MAX_OUTPUT_TOKENS};
use calls::{Calls, Status};
use error::{AdmitError, CallError};
use globals::Globals;
use vm::{FromVm, Item, Launch, Settle};

pub use admission::Runtimes;

/// What a script's run needs besides the call.
pub(crate) struct Env<'a> {
    pub store: &'a pi_agent::SharedSession,
    pub models: &'a Models,
    pub docs_path: &'a str,
    pub runtimes: &'a Runtimes,
}

/// How the script ended.
enum Ending {
    /// It returned (`value`: JSON) or called `exit()`.
    Completed { value: Option<Value>, writes: store::Writes },
    /// It threw (`stack`, or `name: message`).
    Failed(String),
    /// It ran past `timeout_ms`, was aborted, or the sandbox failed: the error line.
    Stopped(String),
}

type Answer = (u64, Result<Option<Value>, CallError>);

/// Decode the runtime's `done`.
fn ending(ok: bool, payload: Option<String>, writes: Option<String>) -> Ending {
    let broken = |what: &str| Ending::Stopped(text::sandbox_failed(&text::bridge_broken(what)));
    if ok {
        let value = match payload.map(|p| serde_json::from_str::<Value>(&p)) {
            None => None,
            Some(Ok(v)) => Some(v),
            Some(Err(_)) => return broken(text::RETURN_NOT_JSON),
        };
        return match store::parse_writes(writes.as_deref().unwrap_or("[]")) {
            Ok(writes) => Ending::Completed { value, writes },
            Err(store::Malformed(what)) => broken(&what),
        };
    }
    let Some(Ok(error)) = payload.map(|p| serde_json::from_str::<Value>(&p)) else {
        return broken(text::ERROR_NOT_JSON);
    };
    if !error.is_object() {
        return broken(text::ERROR_NOT_OBJECT);
    }
    let text_of = |k: &str| error.get(k).filter(|v| !v.is_null());
    let (name, message, stack) = (text_of("name"), text_of("message"), text_of("stack"));
    let bad = |v: Option<&Value>| v.is_some_and(|v| !v.is_string());
    if !message.is_some_and(Value::is_string) || bad(name) || bad(stack) {
        return broken(text::ERROR_MALFORMED);
    }
    let as_str = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    Ending::Failed(as_str(stack).unwrap_or_else(|| {
        format!("{}: {}", as_str(name).unwrap_or_else(|| "Error".into()), as_str(message).unwrap_or_default())
    }))
}

/// Run `inv`'s script.
pub(crate) async fn execute(env: &Env<'_>, inv: Invocation<'_>) -> ToolResult {
    let started = Instant::now();
    let code = inv.args.get("code").and_then(Value::as_str).unwrap_or("");
    let script = match source::parse(code) {
        Ok(s) => s,
        Err(e) => return ToolResult::thrown(e.to_string()),
    };
    let callable: Vec<Arc<dyn AgentTool>> = inv
        .nested
        .as_ref()
        .map(|n| n.callable().into_iter().filter(|t| t.def().name != CODEMODE).collect())
        .unwrap_or_default();
    let samples: HashMap<String, String> =
        callable.iter().map(|t| (t.def().name.clone(), tool_sample(t.as_ref(), &t.def().prompt_guidelines))).collect();
    let calls = Calls::default();
    let publish = || {
        if let Some(f) = &inv.ctx.on_update {
            f(&ToolResult {
                content: vec![],
                details: Some(calls.details()),
                is_error: false,
                structured: None,
                usage: None,
            });
        }
    };
    publish();
    let globals = Globals {
        tools: &callable,
        samples: &samples,
        models: env.models,
        docs_path: env.docs_path,
        call_id: inv.call_id,
        calls: &calls,
        model_calls: Default::default(),
    };
    let slot = match admission::admit(env.runtimes, &inv.ctx.abort, script.options.timeout_ms).await {
        Ok(slot) => slot,
        Err(error) => return not_started(&error, &calls, started),
    };
    let run = Run { inv: &inv, callable: &callable, calls: &calls, globals: &globals, publish: &publish };
    let (ending, output) = run.script(&script, env.store, slot).await;
    finish(env, &script, ending, output, &calls, started, &inv.ctx.output_files)
}

/// The result of a script that got no runtime.
fn not_started(error: &AdmitError, calls: &Calls, started: Instant) -> ToolResult {
    let wall = format!("{:.1}", started.elapsed().as_secs_f64());
    let content = vec![
        Content::Text { text: text::result_header(false, &wall) },
        Content::Text { text: format!("{}{error}{}", text::SCRIPT_ERROR, text::DID_NOT_START) },
    ];
    ToolResult { content, details: Some(calls.details()), is_error: true, structured: None, usage: None }
}

/// Lay out the result of a finished script.
fn finish(
    env: &Env<'_>,
    script: &Script,
    ending: Ending,
    items: Vec<Item>,
    calls: &Calls,
    started: Instant,
    files: &OutputFiles,
) -> ToolResult {
    calls.cancel_running();
    let mut items = items;
    let ok = matches!(ending, Ending::Completed { .. });
    let error = match ending {
        Ending::Completed { value, writes } => {
            store::record(env.store, writes);
            if let Some(v) = value {
                let text = match v {
                    Value::String(s) => s,
                    other => crate::js::stringify(&other),
                };
                items.push(Item::Text { text, console: false });
            }
            None
        }
        Ending::Failed(e) | Ending::Stopped(e) => Some(e),
    };
    let mut blocks = output::format(items);
    if let Some(e) = error {
        blocks.push(output::Block::Text(format!("{}{e}\n\n{}", text::SCRIPT_ERROR, calls.summary())));
    }
    let max_tokens = script.options.max_output_tokens.unwrap_or(DEFAULT_MAX_OUTPUT_TOKENS);
    let (blocks, full_output_path) = output::budget(output::join(blocks), max_tokens, files);
    let blocks = output::join(output::save_images(blocks, files));
    let wall = format!("{:.1}", started.elapsed().as_secs_f64());
    let mut content = vec![Content::Text { text: text::result_header(ok, &wall) }];
    content.extend(output::content(blocks));
    let mut details = calls.details();
    if let Some(p) = full_output_path {
        details["fullOutputPath"] = json!(p);
    }
    ToolResult { content, details: Some(details), is_error: !ok, structured: None, usage: None }
}

/// One script's run: the VM's messages, the calls, the deadline and the abort.
struct Run<'r, 'a> {
    inv: &'r Invocation<'a>,
    callable: &'r [Arc<dyn AgentTool>],
    calls: &'r Calls,
    globals: &'r Globals<'r>,
    publish: &'r (dyn Fn() + Sync),
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

impl<'r, 'a> Run<'r, 'a> {
    fn launch(&self, script: &Script, store: &pi_agent::SharedSession) -> Launch {
        let tools: Vec<Value> = self
            .callable
            .iter()
            .map(|t| {
                let name = &t.def().name;
                let description = self.globals.samples.get(name).cloned().unwrap_or_default();
                json!({"name": name, "jsName": to_identifier(name), "description": description})
            })
            .collect();
        let globals: Vec<Value> = globals::NAMES.iter().map(|n| json!({"name": n, "spread": true})).collect();
        Launch {
            code: script.code.clone(),
            tools_json: Value::Array(tools).to_string(),
            globals_json: Value::Array(globals).to_string(),
            store_json: store::snapshot_json(&store::values(store)),
        }
    }

    /// A tool call of the script, through the pipeline.
    fn tool_call(
        &self,
        id: u64,
        name: String,
        args: Option<Value>,
        abort: &CancellationToken,
    ) -> BoxFuture<'r, Answer> {
        let at = self.calls.start(format!("{}/?", self.inv.call_id), &name, args.as_ref());
        let (calls, publish, abort) = (self.calls, self.publish, abort.clone());
        let nested = self.inv.nested.as_ref();
        let schema = self.callable.iter().find(|t| t.def().name == name).map(|t| t.output_schema().is_some());
        Box::pin(async move {
            let (Some(nested), Some(has_schema)) = (nested, schema) else {
                publish();
                let error = CallError::UnknownTool(name);
                calls.finish(at, None, Status::Error, Some(&error.to_string()));
                return (id, Err(error));
            };
            // `undefined` and `null` arguments are an empty object, as with the reference.
            let args = args.filter(|a| !a.is_null()).unwrap_or_else(|| json!({}));
            let call = nested.call_with_abort(&name, args, None, Some(abort.clone()));
            let mut call = std::pin::pin!(call);
            // The call's start event comes first, then the record saying it runs.
            let first = futures::poll!(call.as_mut());
            publish();
            let outcome = match first {
                std::task::Poll::Ready(o) => o,
                std::task::Poll::Pending => call.await,
            };
            let status = match (outcome.is_error, abort.is_cancelled()) {
                (false, _) => Status::Ok,
                (true, true) => Status::Cancelled,
                (true, false) => Status::Error,
            };
            let error = outcome.is_error.then(|| {
                let t = outcome.result.text_content();
                if t.is_empty() { text::tool_failed(&name) } else { t }
            });
            calls.finish(at, Some(outcome.id.clone()), status, error.as_deref());
            publish();
            (id, calls::script_value(has_schema, &outcome).map(Some))
        })
    }

    /// Run the script to its end; returns how it ended and its output.
    async fn script(
        &self,
        script: &Script,
        store: &pi_agent::SharedSession,
        slot: admission::Slot,
    ) -> (Ending, Vec<Item>) {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let vm = match vm::start(self.launch(script, store), tx, slot.permit) {
            Ok(vm) => vm,
            Err(e) => return (Ending::Stopped(text::sandbox_failed(&e.to_string())), Vec::new()),
        };
        let abort = self.inv.ctx.abort.child_token();
        // The wait for a runtime counted toward the deadline.
        let left = script
            .options
            .timeout_ms
            .map(|ms| (ms as f64 - slot.waited.as_secs_f64() * 1000.0).round().max(1.0) as u64);
        let deadline = left.map(|ms| tokio::time::Instant::now() + Duration::from_millis(ms));
        let mut pending: FuturesUnordered<BoxFuture<'r, Answer>> = FuturesUnordered::new();
        let mut items = Vec::new();
        let (mut chars, mut count) = (0usize, 0usize);
        let ending = loop {
            tokio::select! {
                ev = rx.recv() => match ev {
                    None => break Ending::Stopped(text::sandbox_failed(text::VM_GONE)),
                    Some(FromVm::Done { ok, payload, writes }) => break ending(ok, payload, writes),
                    Some(FromVm::Crash(e)) => break Ending::Stopped(text::sandbox_failed(&e.to_string())),
                    Some(FromVm::Output(item)) => {
                        chars += match &item { Item::Text { text, .. } => crate::js::len16(text), Item::Image { data, .. } => data.len() };
                        count += 1;
                        if chars > text::MAX_OUTPUT_CHARS || count > text::MAX_OUTPUT_ITEMS {
                            break Ending::Stopped(text::sandbox_failed(&text::bridge_broken(text::OUTPUT_PAST_LIMITS)));
                        }
                        items.push(item);
                    }
                    Some(FromVm::Call { id, tool, name, args }) => {
                        let args = match args.map(|a| serde_json::from_str::<Value>(&a).map_err(|_| a)) {
                            None => None,
                            Some(Ok(v)) => Some(v),
                            Some(Err(raw)) => {
                                let message = crate::v8json::parse_error(&raw).unwrap_or_default();
                                vm.settle(Settle { id, ok: false, payload: Some(message), properties: None });
                                continue;
                            }
                        };
                        if tool {
                            pending.push(self.tool_call(id, name, args, &abort));
                        } else {
                            let list = match args { Some(Value::Array(a)) => a, _ => Vec::new() };
                            let answer = self.globals.call(&name, &list).map_err(CallError::from);
                            (self.publish)();
                            vm.settle(settle(id, answer));
                        }
                    }
                },
                Some((id, answer)) = pending.next(), if !pending.is_empty() => vm.settle(settle(id, answer)),
                _ = self.inv.ctx.abort.cancelled() => break Ending::Stopped(text::aborted(text::ABORT_REASON)),
                _ = sleep_until(deadline) => {
                    break Ending::Stopped(text::timed_out(left.unwrap_or_default()))
                }
            }
        };
        vm.stop();
        // The runtime's thread ends (and frees its slot) once the handle is gone.
        drop(vm);
        abort.cancel();
        self.calls.cancel_running();
        // Cancelled calls get a moment to finish, so their ends are reported.
        let _ = tokio::time::timeout(text::CANCEL_GRACE, async { while pending.next().await.is_some() {} }).await;
        (ending, items)
    }
}

fn settle(id: u64, answer: Result<Option<Value>, CallError>) -> Settle {
    match answer {
        Ok(v) => Settle { id, ok: true, payload: v.map(|v| crate::js::stringify(&v)), properties: None },
        Err(e) => Settle { id, ok: false, payload: Some(e.to_string()), properties: None },
    }
}
