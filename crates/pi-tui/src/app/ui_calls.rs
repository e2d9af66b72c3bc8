//! Extension UI calls: dialogs, notifications, statuses, widgets, the working
//! message, custom components and replaced header or footer.

use super::{App, Purpose, Replaced, ReplyKind};
use crate::dialog::{CustomDialog, EditorDialog, InputDialog, SelectDialog, SelectItem, SessionPicker};
use crate::host::{DialogRequest, UiCall, WidgetPlace};
use crate::text;
use crate::transcript::Level;

/// Most lines one widget may show.
pub const WIDGET_MAX_LINES: usize = 20;
/// Most statuses and widgets an extension may set.
pub const UI_MAX_KEYS: usize = 50;

impl App {
    pub(crate) fn ui_call(&mut self, call: UiCall) {
        match call {
            UiCall::Dialog(request, reply) => {
                let (dialog, kind): (Box<dyn crate::dialog::Dialog>, ReplyKind) = match request {
                    DialogRequest::Select { title, options } => {
                        (Box::new(SelectDialog::simple(&title, &options)), ReplyKind::Select(options))
                    }
                    DialogRequest::Confirm { title, message } => {
                        let t = if message.is_empty() { title } else { format!("{title}\n{message}") };
                        let items = vec![SelectItem::new(text::YES), SelectItem::new(text::NO)];
                        (Box::new(SelectDialog::new(&t, items)), ReplyKind::Confirm)
                    }
                    DialogRequest::Input { title, placeholder } => {
                        (Box::new(InputDialog::new(&title, placeholder.as_deref())), ReplyKind::Text)
                    }
                    DialogRequest::Editor { title, prefill } => {
                        (Box::new(EditorDialog::new(&title, prefill.as_deref())), ReplyKind::Text)
                    }
                    DialogRequest::Tree { title, views, view } => {
                        (Box::new(crate::dialog::TreeDialog::new(&title, views, view)), ReplyKind::Tree)
                    }
                    DialogRequest::Sessions { sessions, now_ms } => {
                        let files = sessions.iter().map(|s| s.path.to_string_lossy().into_owned()).collect();
                        (Box::new(SessionPicker::new(sessions, now_ms)), ReplyKind::Select(files))
                    }
                };
                self.open(dialog, Purpose::Reply(reply, kind));
            }
            UiCall::Notify(level, message) => match level {
                Level::Error => self.error(&crate::sanitize::clean(&message)),
                Level::Warning => {
                    self.transcript.notice(Level::Warning, text::warning_line(&crate::sanitize::clean(&message)))
                }
                Level::Info => self.status(Level::Info, crate::sanitize::clean(&message)),
            },
            UiCall::Status(key, value) => match value {
                Some(v) if self.statuses.len() < UI_MAX_KEYS || self.statuses.contains_key(&key) => {
                    self.statuses.insert(key, crate::sanitize::clean_line(&v));
                }
                Some(_) => {}
                None => {
                    self.statuses.remove(&key);
                }
            },
            UiCall::Widget(key, lines, place) => {
                let map = match place {
                    WidgetPlace::Above => &mut self.widgets_above,
                    WidgetPlace::Below => &mut self.widgets_below,
                };
                match lines {
                    Some(l) if map.len() < UI_MAX_KEYS || map.contains_key(&key) => {
                        map.insert(key, l.into_iter().take(WIDGET_MAX_LINES).collect());
                    }
                    Some(_) => {}
                    None => {
                        map.remove(&key);
                    }
                }
            }
            UiCall::WorkingMessage(m) => self.working = m.map(|m| crate::sanitize::clean_line(&m)),
            UiCall::EditorText(t) => self.editor.set_text(&crate::sanitize::clean(&t)),
            UiCall::Custom(factory, reply) => {
                let handle = self.ui.component_handle(reply);
                let component = factory(handle.clone());
                self.open(Box::new(CustomDialog::new(component, handle)), Purpose::Custom);
            }
            UiCall::Footer(factory) => {
                self.footer_component = factory.map(|f| {
                    let (tx, _rx) = tokio::sync::oneshot::channel();
                    let handle = self.ui.component_handle(tx);
                    Replaced { component: f(handle.clone()), _handle: handle }
                });
            }
            UiCall::Header(factory) => {
                self.header_component = factory.map(|f| {
                    let (tx, _rx) = tokio::sync::oneshot::channel();
                    let handle = self.ui.component_handle(tx);
                    Replaced { component: f(handle.clone()), _handle: handle }
                });
            }
        }
    }
}
