//! Where interactive dialogs go: to the terminal UI while it runs, else
//! drawn in place on the terminal (the start-up trust question, extension
//! dialogs while extensions load). Extension dialogs, shipped policies'
//! confirmations and notifications all come through here.

use futures::future::BoxFuture;
use pi_config::trust::{TrustChoice, TrustPrompt};
use pi_tui::dialog::{Answer, EditorDialog, InputDialog, SelectDialog, SelectItem};
use pi_tui::host::{DialogAnswer, DialogRequest, UiCall};
use pi_tui::transcript::Level;

use super::link::Link;

/// Show a dialog drawn in place; blocks.
fn in_place(link: &Link, request: DialogRequest) -> DialogAnswer {
    let (theme, keys) = link.early();
    match request {
        DialogRequest::Select { title, options } => {
            let mut d = SelectDialog::simple(&title, &options);
            match pi_tui::standalone::run_dialog(&mut d, &theme, &keys) {
                Answer::Index(i) => options.get(i).cloned().map_or(DialogAnswer::Cancelled, DialogAnswer::Value),
                _ => DialogAnswer::Cancelled,
            }
        }
        DialogRequest::Confirm { title, message } => {
            let t = if message.is_empty() { title } else { format!("{title}\n{message}") };
            let mut d =
                SelectDialog::new(&t, vec![SelectItem::new(pi_tui::text::YES), SelectItem::new(pi_tui::text::NO)]);
            DialogAnswer::Confirmed(pi_tui::standalone::run_dialog(&mut d, &theme, &keys) == Answer::Index(0))
        }
        DialogRequest::Input { title, placeholder } => {
            let mut d = InputDialog::new(&title, placeholder.as_deref());
            text_answer(pi_tui::standalone::run_dialog(&mut d, &theme, &keys))
        }
        DialogRequest::Editor { title, prefill } => {
            let mut d = EditorDialog::new(&title, prefill.as_deref());
            text_answer(pi_tui::standalone::run_dialog(&mut d, &theme, &keys))
        }
        DialogRequest::Tree { title, views, view } => {
            let mut d = pi_tui::dialog::TreeDialog::new(&title, views, view);
            pi_tui::dialog::tree_answer(pi_tui::standalone::run_dialog(&mut d, &theme, &keys))
        }
        DialogRequest::Sessions { sessions, now_ms } => {
            let files: Vec<String> = sessions.iter().map(|s| s.path.to_string_lossy().into_owned()).collect();
            let mut d = pi_tui::dialog::SessionPicker::new(sessions, now_ms);
            match pi_tui::standalone::run_dialog(&mut d, &theme, &keys) {
                Answer::Index(i) => files.get(i).cloned().map_or(DialogAnswer::Cancelled, DialogAnswer::Value),
                _ => DialogAnswer::Cancelled,
            }
        }
    }
}

fn text_answer(a: Answer) -> DialogAnswer {
    match a {
        Answer::Text(t) => DialogAnswer::Value(t),
        _ => DialogAnswer::Cancelled,
    }
}

/// Ask through the UI (or in place); the answer.
async fn dialog(link: &Link, request: DialogRequest) -> DialogAnswer {
    match link.handle() {
        Some(h) => h.dialog(request).await,
        None => {
            let link = link.clone();
            tokio::task::spawn_blocking(move || in_place(&link, request)).await.unwrap_or(DialogAnswer::Cancelled)
        }
    }
}

/// A notification: in the transcript while the UI runs, else on stderr.
fn notify(link: &Link, level: Level, message: &str) {
    match link.handle() {
        Some(h) => h.send(UiCall::Notify(level, message.to_string())),
        None => eprintln!("{message}"),
    }
}

/// The start-up trust question (requirement P4): the reference's title and
/// five answers, drawn in place before the UI starts; `None` when dismissed.
pub(crate) fn trust_prompt(link: &Link, p: &TrustPrompt) -> Option<TrustChoice> {
    let (theme, keys) = link.early();
    let mut d = pi_tui::dialog::trust::startup(&p.title, &p.options);
    match pi_tui::standalone::run_dialog(&mut d, &theme, &keys) {
        Answer::Index(i) => p.options.get(i).map(|o| o.choice),
        _ => None,
    }
}

/// Script extensions' dialogs and notifications (`ctx.ui`).
pub struct TerminalUi(pub Link);

impl pi_ext::UiBridge for TerminalUi {
    fn dialog(&self, request: pi_ext::UiRequest) -> BoxFuture<'static, pi_ext::UiResponse> {
        use pi_ext::{UiRequest, UiResponse};
        let request = match request {
            UiRequest::Select { title, options, .. } => DialogRequest::Select { title, options },
            UiRequest::Confirm { title, message, .. } => DialogRequest::Confirm { title, message },
            UiRequest::Input { title, placeholder, .. } => DialogRequest::Input { title, placeholder },
            UiRequest::Editor { title, prefill } => DialogRequest::Editor { title, prefill },
        };
        let link = self.0.clone();
        Box::pin(async move {
            match dialog(&link, request).await {
                DialogAnswer::Value(v) => UiResponse::Value(v),
                DialogAnswer::Confirmed(b) => UiResponse::Confirmed(b),
                DialogAnswer::Cancelled | DialogAnswer::Label { .. } => UiResponse::Cancelled,
            }
        })
    }

    fn notify(&self, message: &str, level: pi_ext::NotifyLevel) {
        let level = match level {
            pi_ext::NotifyLevel::Info => Level::Info,
            pi_ext::NotifyLevel::Warning => Level::Warning,
            pi_ext::NotifyLevel::Error => Level::Error,
        };
        notify(&self.0, level, message);
    }

    fn fire(&self, call: pi_ext::UiFire) {
        use pi_ext::UiFire;
        let Some(h) = self.0.handle() else { return };
        let call = match call {
            UiFire::Status { key, text } => UiCall::Status(key, text),
            UiFire::Widget { key, lines, placement } => {
                let place = if placement.as_deref() == Some("belowEditor") {
                    pi_tui::host::WidgetPlace::Below
                } else {
                    pi_tui::host::WidgetPlace::Above
                };
                UiCall::Widget(key, lines, place)
            }
            UiFire::EditorText(text) => UiCall::EditorText(text),
            UiFire::WorkingMessage(m) => UiCall::WorkingMessage(m),
            UiFire::ComponentDone { id, result } => return super::components::done(&self.0, id, result),
            UiFire::Render => return h.redraw(),
            // pi does not let extensions retitle the terminal.
            UiFire::Title(_) => return,
        };
        h.send(call);
    }

    fn custom(&self, id: u64, component: Box<dyn pi_ext::ExtComponent>) -> BoxFuture<'static, serde_json::Value> {
        super::components::custom(self.0.clone(), id, component)
    }

    fn place(&self, slot: pi_ext::ComponentSlot, component: Option<Box<dyn pi_ext::ExtComponent>>) {
        super::components::place(self.0.handle(), slot, component);
    }
}

/// The shipped policies' questions (permission gate, approval).
pub struct TerminalApprover(pub Link);

impl pi_policies::Approver for TerminalApprover {
    fn confirm<'a>(&'a self, title: &'a str, message: &'a str) -> BoxFuture<'a, bool> {
        let request = DialogRequest::Confirm { title: title.to_string(), message: message.to_string() };
        Box::pin(async move { dialog(&self.0, request).await == DialogAnswer::Confirmed(true) })
    }

    fn select<'a>(&'a self, title: &'a str, options: &'a [&'a str]) -> BoxFuture<'a, Option<String>> {
        let request = DialogRequest::Select {
            title: title.to_string(),
            options: options.iter().map(|s| s.to_string()).collect(),
        };
        Box::pin(async move {
            match dialog(&self.0, request).await {
                DialogAnswer::Value(v) => Some(v),
                _ => None,
            }
        })
    }

    fn notify(&self, message: &str, kind: pi_policies::NotifyKind) {
        let level = match kind {
            pi_policies::NotifyKind::Info => Level::Info,
            pi_policies::NotifyKind::Warning => Level::Warning,
            pi_policies::NotifyKind::Error => Level::Error,
        };
        notify(&self.0, level, message);
    }
}
